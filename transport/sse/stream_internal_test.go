package sse

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/sse"
	"github.com/looprig/mcp/transport"
)

const endpointEvent = "event: endpoint\ndata: /messages?sessionid=1\n\n"

// event returns a data-only event of exactly n bytes.
func event(n int) string { return "data: " + strings.Repeat("x", n-8) + "\n\n" }

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func newTestStream(t *testing.T, lim Limits, input string) (*streamBody, *countingReader) {
	t.Helper()
	f, err := New("http://127.0.0.1:1/sse", &Options{Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	st := newConnState(f)
	t.Cleanup(st.shutdown)
	cr := &countingReader{r: strings.NewReader(input)}
	return st.openStream(context.Background(), io.NopCloser(cr), func() {}), cr
}

// readAll reads the events of s to the stream's end, as sse.Append writes
// them, failing t if that takes more than 10s: a broken bound that stops
// the stream's progress fails the test instead of hanging it. A stream
// that ended cleanly gives a nil error.
func readAll(t *testing.T, s *streamBody) ([]byte, error) {
	t.Helper()
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		var b []byte
		for {
			e, err := s.next()
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				done <- result{b, err}
				return
			}
			b, _ = sse.Append(b, e)
		}
	}()
	select {
	case res := <-done:
		return res.b, res.err
	case <-time.After(10 * time.Second):
		t.Fatal("reading the stream has not ended after 10s")
		return nil, nil
	}
}

// An event of exactly MaxEventBytes is delivered; one of a byte more ends
// the stream with the limit error, having read at most one byte past it.
func TestEventLimitIsExact(t *testing.T) {
	leakcheck.Check(t)
	const max = 64
	ok := endpointEvent + event(max)
	input := ok + event(max+1) + strings.Repeat("y", 1<<20)
	s, cr := newTestStream(t, Limits{MaxEventBytes: max}, input)
	got, err := readAll(t, s)
	if diff := cmp.Diff(&transport.LimitError{Transport: pkg, What: "sse event", Limit: max}, err); diff != "" {
		t.Errorf("read error mismatch (-want +got):\n%s", diff)
	}
	if string(got) != ok {
		t.Errorf("read %q, want the %d bytes of the events within the bound", got, len(ok))
	}
	if want := int64(len(ok) + max + 1); cr.n > want {
		t.Errorf("read %d bytes from the network, want at most %d (one past the bound)", cr.n, want)
	}
}

// A session stream of exactly MaxStreamBytes is delivered whole and ends
// as the server ended it; one byte more ends it with the limit error,
// after the events complete within the bound, having read at most one
// byte past it.
func TestStreamLimitIsExact(t *testing.T) {
	const max = 200
	head := endpointEvent + strings.Repeat(event(50), 2)
	for _, tc := range []struct {
		input, want string
		err         error
	}{
		{head + event(max-len(head)), head + event(max-len(head)), nil},
		{head + event(max-len(head)+1), head, &transport.LimitError{Transport: pkg, What: "stream", Limit: max}},
		{head + event(max-len(head)) + event(50), head + event(max-len(head)), &transport.LimitError{Transport: pkg, What: "stream", Limit: max}},
	} {
		leakcheck.Check(t)
		s, cr := newTestStream(t, Limits{MaxStreamBytes: max}, tc.input)
		got, err := readAll(t, s)
		if tc.err == nil && err != nil || tc.err != nil && !cmp.Equal(tc.err, err) {
			t.Errorf("stream of %d bytes: read error %v, want %v", len(tc.input), err, tc.err)
		}
		if string(got) != tc.want {
			t.Errorf("stream of %d bytes: read %d bytes, want the %d of the events within the bound", len(tc.input), len(got), len(tc.want))
		}
		if cr.n > max+1 {
			t.Errorf("stream of %d bytes: read %d bytes from the network, want at most %d", len(tc.input), cr.n, max+1)
		}
	}
}

func TestEndpointEventIsReadAlone(t *testing.T) {
	leakcheck.Check(t)
	rest := "event: message\ndata: {}\n\n"
	s, _ := newTestStream(t, Limits{}, ": hello\n\n"+endpointEvent+": keepalive\n\n"+rest)
	// The go-sdk reads the endpoint event with a reader it then drops:
	// nothing after the event may come with it. Comments are not passed on.
	// (The go-sdk's next Read would pump the rest to the connection.)
	buf := make([]byte, 4096)
	n, err := s.Read(buf)
	if err != nil || string(buf[:n]) != endpointEvent {
		t.Errorf("first Read = %q, %v; want the endpoint event only", buf[:n], err)
	}
	got, err := readAll(t, s)
	if err != nil || string(got) != rest {
		t.Errorf("then read %q, %v; want %q", got, err, rest)
	}
}

// TestSessionStreamLineEnds: the session stream is read as the standard
// defines it, whatever the server's line ends and spacing.
func TestSessionStreamLineEnds(t *testing.T) {
	leakcheck.Check(t)
	for _, eol := range []string{"\n", "\r\n", "\r"} {
		in := ":hi" + eol + "event:endpoint" + eol + "data:/messages?sessionid=1" + eol + eol + "data:{}" + eol + "data: " + eol + eol
		s, _ := newTestStream(t, Limits{}, in)
		got, err := readAll(t, s)
		if want := endpointEvent + "data: {}\ndata: \n\n"; err != nil || string(got) != want {
			t.Errorf("eol %q: read %q, %v; want %q", eol, got, err, want)
		}
	}
}

// counting is a server that counts requests and answers with body.
func counting(t *testing.T, body string) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestRequestToAnotherOriginRefused(t *testing.T) {
	leakcheck.Check(t)
	home, _ := counting(t, "")
	other, n := counting(t, "")
	f, err := New(home.URL, &Options{Credentials: auth.Bearer(auth.NewToken("tok"))})
	if err != nil {
		t.Fatal(err)
	}
	st := newConnState(f)
	t.Cleanup(st.shutdown)
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		req, _ := http.NewRequest(method, other.URL+"/messages", strings.NewReader("{}"))
		if _, err := st.client.Do(req); !errors.Is(err, &transport.PolicyError{Rule: transport.RuleCrossOrigin}) {
			t.Errorf("%s to %s: error = %v, want &transport.PolicyError{Rule: transport.RuleCrossOrigin}", method, other.URL, err)
		}
	}
	if got := n.Load(); got != 0 {
		t.Errorf("other origin received %d requests, want 0", got)
	}
}

func TestPOSTBodyLimit(t *testing.T) {
	leakcheck.Check(t)
	srv, _ := counting(t, strings.Repeat("x", 1<<20))
	f, err := New(srv.URL, &Options{Limits: Limits{MaxBodyBytes: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	st := newConnState(f)
	t.Cleanup(st.shutdown)
	resp, err := st.client.Post(srv.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if diff := cmp.Diff(&transport.LimitError{Transport: pkg, What: "body", Limit: 1000}, err); diff != "" {
		t.Errorf("read error mismatch (-want +got):\n%s", diff)
	}
	if len(got) > 1000 {
		t.Errorf("read %d bytes, want at most 1000", len(got))
	}
}

// A POST's answer of exactly MaxBodyBytes is read whole; one byte more is
// refused at the bound.
func TestPOSTBodyLimitIsExact(t *testing.T) {
	leakcheck.Check(t)
	const max = 1000
	for _, n := range []int{max, max + 1} {
		srv, _ := counting(t, strings.Repeat("x", n))
		f, err := New(srv.URL, &Options{Limits: Limits{MaxBodyBytes: max}})
		if err != nil {
			t.Fatal(err)
		}
		st := newConnState(f)
		resp, err := st.client.Post(srv.URL, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		st.shutdown()
		switch {
		case n == max && (err != nil || len(got) != max):
			t.Errorf("answer of %d bytes: read %d, %v; want it whole", n, len(got), err)
		case n > max && !errors.Is(err, transport.ErrLimit):
			t.Errorf("answer of %d bytes: read %d, %v; want ErrLimit at %d", n, len(got), err, max)
		case n > max && len(got) > max:
			t.Errorf("answer of %d bytes: read %d, want at most %d", n, len(got), max)
		}
	}
}
