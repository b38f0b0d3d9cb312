package streamablehttp

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/testkit"
)

// handoutEvents returns the events of a call's stream the handout tests
// read: a priming event (an id, no message), the call's answer (id 7) and
// a notification.
func handoutEvents() (prime, answer, note string) {
	return "event: prime\nid: s_0\ndata: \n\n",
		"event: message\nid: s_1\ndata: " + response(60) + "\n\n",
		"event: message\ndata: " + notification(100) + "\n\n"
}

// pieces returns one piece per Read, as a network hands out what arrived,
// and io.EOF with the last, as an HTTP response body does when the end of
// the body arrived with it. An empty last piece is an end that arrives
// later.
type pieces [][]byte

func (p *pieces) Read(b []byte) (int, error) {
	if len(*p) == 0 {
		return 0, io.EOF
	}
	n := copy(b, (*p)[0])
	if (*p)[0] = (*p)[0][n:]; len((*p)[0]) == 0 {
		*p = (*p)[1:]
	}
	if len(*p) == 0 {
		return n, io.EOF
	}
	return n, nil
}

// A response stream hands the go-sdk no more of each event than the go-sdk
// keeps of it: of an event without a message its id and retry; of the
// call's answer its data alone, and not the events without a message just
// before it in the same read (the go-sdk ends the stream at the answer,
// and resumes from no id read before it); after the answer nothing. A
// notification keeps its place before the answer.
func TestSSEBodyHandsTheGoSDKWhatItKeeps(t *testing.T) {
	prime, answer, note := handoutEvents()
	for _, tc := range []struct {
		name   string
		reads  []string
		call   bool
		handed string
	}{
		{"priming event and answer in one read", []string{prime + answer}, true,
			"data: " + response(60) + "\n\n"},
		{"priming event, then the answer", []string{prime, answer}, true,
			"id: s_0\n\n" + "data: " + response(60) + "\n\n"},
		{"a notification, a priming event and the answer", []string{note + prime + answer}, true,
			note + "data: " + response(60) + "\n\n"},
		{"the answer, then a notification", []string{answer + note}, true,
			"data: " + response(60) + "\n\n"},
		{"the standalone stream", []string{prime + "retry: 50\n\n" + note}, false,
			"id: s_0\n\nretry: 50\n\n" + note},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in pieces
			for _, r := range tc.reads {
				in = append(in, []byte(r))
			}
			b := newBodyBase(t, "")
			b.rc = io.NopCloser(&in)
			body := &sseBody{bodyBase: b, ctx: context.Background(), maxEvent: 1 << 20, maxTotal: 1 << 20}
			if tc.call {
				body.call = testCall
			}
			out, err := io.ReadAll(body)
			body.Close()
			if err != nil {
				t.Fatalf("reading the body: %v", err)
			}
			if diff := cmp.Diff(tc.handed, string(out)); diff != "" {
				t.Errorf("handed to the go-sdk (-want +got):\n%s", diff)
			}
		})
	}
}

// netBody is a response body from the network: pieces, and whether it was
// read to its end and closed.
type netBody struct {
	pieces
	mu          sync.Mutex // guards eof and closed: a drain reads on a goroutine of its own
	eof, closed bool
}

func (n *netBody) Read(b []byte) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	k, err := n.pieces.Read(b)
	n.eof = n.eof || err == io.EOF
	return k, err
}

func (n *netBody) Close() error {
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	return nil
}

// state reports whether the body was read to its end and closed.
func (n *netBody) state() (eof, closed bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.eof, n.closed
}

type baseFunc func(*http.Request) (*http.Response, error)

func (f baseFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A call's event stream whose first message is the call's answer is handed
// to the go-sdk as an application/json body holding the answer alone, which
// the go-sdk reads without parsing an event stream, whether the stream's end
// came with the answer or is still to come (the go-sdk would not read what
// follows the answer on an event stream either). A stream whose first
// message is another one, or that ends before any, is handed over as an
// event stream. Either way the stream is read to its end, so that its
// connection is reused: an event stream before its body ends; a JSON body
// whose stream's end is still to come once the go-sdk closes it (it decodes
// the answer after closing the body, which must not wait for the end).
func TestCallAnsweredFirstIsHandedAsJSON(t *testing.T) {
	prime, answer, note := handoutEvents()
	for _, tc := range []struct {
		name        string
		reads       []string
		contentType string
		handed      string
	}{
		{"the answer and the end", []string{answer}, "application/json", response(60)},
		{"a priming event, then the answer and the end", []string{prime, answer}, "application/json", response(60)},
		{"the answer, a notification and the end", []string{answer + note}, "application/json", response(60)},
		{"the answer, then the end", []string{answer, ""}, "application/json", response(60)},
		{"the answer, then a notification and the end", []string{answer, note}, "application/json", response(60)},
		{"a priming event and the answer, then the end", []string{prime + answer, ""}, "application/json", response(60)},
		{"a notification, then the answer", []string{note, answer}, "text/event-stream",
			note + "data: " + response(60) + "\n\n"},
		{"a notification and the answer in one read", []string{note + answer}, "text/event-stream",
			note + "data: " + response(60) + "\n\n"},
		{"a priming event, then the end", []string{prime}, "text/event-stream", "id: s_0\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nb := &netBody{}
			for _, r := range tc.reads {
				nb.pieces = append(nb.pieces, []byte(r))
			}
			f, err := New("http://127.0.0.1:1/mcp", &Options{Base: baseFunc(func(r *http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: nb, Request: r}, nil
			})})
			if err != nil {
				t.Fatal(err)
			}
			st := newConnState(f)
			t.Cleanup(st.shutdown)
			req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			resp, err := st.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Header.Get("Content-Type"); got != tc.contentType {
				t.Errorf("Content-Type %q, want %q", got, tc.contentType)
			}
			out, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatalf("reading the body: %v", err)
			}
			if eof, _ := nb.state(); !eof && tc.contentType == "text/event-stream" {
				t.Errorf("the body ended before the stream from the network was read to its end")
			}
			resp.Body.Close()
			testkit.Poll(t, "the stream from the network read to its end and closed", func() bool {
				eof, closed := nb.state()
				return eof && closed
			})
			if diff := cmp.Diff(tc.handed, string(out)); diff != "" {
				t.Errorf("handed to the go-sdk (-want +got):\n%s", diff)
			}
		})
	}
}

// The rest of a stream handed over as JSON is read within the stream's
// bound: a server that goes on writing after the answer cannot hold the
// drain (and its connection and concurrency slot) for more. A stream of
// exactly MaxStreamBytes is read to its end, so that its connection is
// reused; one byte more and the drain stops there, closing the stream
// without reading on.
func TestDrainKeepsTheStreamBound(t *testing.T) {
	_, answer, _ := handoutEvents()
	filler := strings.Repeat(": keep-alive\n", 100)
	total := int64(len(answer) + len(filler))
	for _, tc := range []struct {
		name string
		max  int64
		eof  bool // the stream was read to its end
	}{
		{"the stream at the bound", total, true},
		{"the stream a byte past it", total - 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nb := &netBody{pieces: pieces{[]byte(answer), []byte(filler), {}}} // the end after the filler, in a read of its own
			f, err := New("http://127.0.0.1:1/mcp", &Options{Limits: Limits{MaxStreamBytes: tc.max}, Base: baseFunc(func(r *http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: nb, Request: r}, nil
			})})
			if err != nil {
				t.Fatal(err)
			}
			st := newConnState(f)
			t.Cleanup(st.shutdown)
			req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			resp, err := st.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Header.Get("Content-Type"); got != "application/json" {
				t.Fatalf("Content-Type %q, want application/json", got)
			}
			if out, err := io.ReadAll(resp.Body); err != nil || string(out) != response(60) {
				t.Fatalf("handed %q, %v; want the answer", out, err)
			}
			resp.Body.Close()
			testkit.Poll(t, "the drain closing the stream from the network", func() bool {
				_, closed := nb.state()
				return closed
			})
			if eof, _ := nb.state(); eof != tc.eof {
				t.Errorf("the stream was read to its end: %v, want %v", eof, tc.eof)
			}
		})
	}
}
