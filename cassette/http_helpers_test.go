package cassette_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpRig is the counter server (count, echo, ask) served by the go-sdk's
// Streamable HTTP handler on loopback, with an event store (so streams carry
// event ids and can be resumed) and session ids that count from
// "session-1", so that recordings are deterministic.
type httpRig struct {
	*counter
	srv *httptest.Server

	mu       sync.Mutex // guards requests
	requests []string   // "METHOD Last-Event-ID" of every request that reached the handler
}

func newHTTPRig(t testing.TB, middleware func(http.Handler) http.Handler) *httpRig {
	t.Helper()
	var sessions atomic.Int64
	r := &httpRig{counter: newCounterWith(&mcp.ServerOptions{
		GetSessionID: func() string { return fmt.Sprintf("session-%d", sessions.Add(1)) },
	})}
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return r.counter.srv }, &mcp.StreamableHTTPOptions{
		EventStore: mcp.NewMemoryEventStore(nil),
	})
	if middleware != nil {
		h = middleware(h)
	}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.requests = append(r.requests, req.Method+" "+req.Header.Get("Last-Event-ID"))
		r.mu.Unlock()
		h.ServeHTTP(w, req)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *httpRig) url() string { return r.srv.URL + "/mcp" }

// base returns a fresh pool for one recording, closed at cleanup.
func base(t testing.TB) *http.Transport {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// recordHTTP runs calls against a fresh rig through an HTTPRecorder and
// returns the cassette's bytes and the outcomes.
func recordHTTP(t *testing.T, path string, opts *cassette.Options, sopts *streamablehttp.Options, calls ...call) ([]byte, []outcome) {
	t.Helper()
	rig := newHTTPRig(t, nil)
	rec := cassette.RecordHTTP(rig.url(), base(t), path, opts)
	var so streamablehttp.Options
	if sopts != nil {
		so = *sopts
	}
	so.Base = rec
	f, err := streamablehttp.New(rig.url(), &so)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := session(t, f, calls...)
	if err != nil {
		t.Fatalf("recorded session Close: %v", err)
	}
	if err := rec.Close(); err != nil {
		t.Fatalf("HTTPRecorder.Close: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data, outs
}

// isToolCall reports whether r is a POST carrying a tools/call, leaving its
// body readable.
func isToolCall(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	data, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(data))
	return strings.Contains(string(data), `"tools/call"`)
}

// dropWriter passes the first `after` server-sent events through, then
// sends a retry: field and cuts the connection; later writes are swallowed,
// as if the network had eaten them.
type dropWriter struct {
	http.ResponseWriter
	after   int
	events  int
	dropped bool
}

func (d *dropWriter) Write(p []byte) (int, error) {
	if d.dropped {
		return len(p), nil
	}
	if d.events >= d.after {
		d.dropped = true
		rc := http.NewResponseController(d.ResponseWriter)
		d.ResponseWriter.Write([]byte("retry: 10\n\n"))
		rc.Flush()
		if conn, _, err := rc.Hijack(); err == nil {
			conn.Close()
		}
		return len(p), nil
	}
	d.events += bytes.Count(p, []byte("\n\n"))
	return d.ResponseWriter.Write(p)
}

func (d *dropWriter) Flush() {
	if !d.dropped {
		http.NewResponseController(d.ResponseWriter).Flush()
	}
}

// dropFirstCall cuts the first tools/call response stream after its first
// event (the priming event, which carries an id).
func dropFirstCall(next http.Handler) http.Handler {
	var fired atomic.Bool
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isToolCall(r) && fired.CompareAndSwap(false, true) {
			next.ServeHTTP(&dropWriter{ResponseWriter: w, after: 1}, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// spy is a RoundTripper that notes "METHOD Last-Event-ID" of each request.
type spy struct {
	rt       http.RoundTripper
	mu       sync.Mutex
	requests []string
}

func (s *spy) RoundTrip(req *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.requests = append(s.requests, req.Method+" "+req.Header.Get("Last-Event-ID"))
	s.mu.Unlock()
	return s.rt.RoundTrip(req)
}

func (s *spy) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

var _ = context.Background
