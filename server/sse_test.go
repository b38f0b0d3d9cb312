package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// postRecorder remembers the URL of the last POST: the session endpoint
// the legacy SSE transport announced.
type postRecorder struct {
	rt  http.RoundTripper
	mu  sync.Mutex
	url string
}

func (p *postRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost {
		p.mu.Lock()
		p.url = req.URL.String()
		p.mu.Unlock()
	}
	return p.rt.RoundTrip(req)
}

func (p *postRecorder) endpoint() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.url
}

// connectSSE connects a go-sdk client over the legacy transport and
// returns the session's POST endpoint.
func connectSSE(t testing.TB, ts *httptest.Server) (*mcp.ClientSession, string) {
	t.Helper()
	hc := *ts.Client()
	rec := &postRecorder{rt: hc.Transport}
	hc.Transport = rec
	cs := connectWith(t, &mcp.SSEClientTransport{Endpoint: ts.URL, HTTPClient: &hc})
	return cs, rec.endpoint()
}

// ssePost POSTs body to a legacy session endpoint, letting edit change the
// request.
func ssePost(t testing.TB, ts *httptest.Server, endpoint, body string, edit func(*http.Request)) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if edit != nil {
		edit(req)
	}
	return do(t, ts, req)
}

func TestSSERefusals(t *testing.T) {
	for _, tc := range []struct {
		name       string
		opts       *HTTPOptions
		body       string
		edit       func(*http.Request)
		wantStatus int
		wantBody   string
	}{
		{"host", nil, callBody(7, "evil"), func(r *http.Request) { r.Host = "evil.example" }, http.StatusForbidden, `Host "evil.example"`},
		{"origin", nil, callBody(7, "evil"), func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }, http.StatusForbidden, `Origin "http://evil.example"`},
		{"body", &HTTPOptions{MaxBodyBytes: 1024}, callBody(7, strings.Repeat("x", 2048)), nil, http.StatusRequestEntityTooLarge, "exceeds the 1024-byte limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			s, runs := countingServer(t, nil)
			ts := serveHTTP(t, sseHandler(t, s, tc.opts))
			cs, endpoint := connectSSE(t, ts)

			status, body := ssePost(t, ts, endpoint, tc.body, tc.edit)
			if status != tc.wantStatus || !strings.Contains(body, tc.wantBody) {
				t.Errorf("refused POST: status %d, body %q; want %d and a body containing %q", status, body, tc.wantStatus, tc.wantBody)
			}
			// The session goes on, and the refused call never ran.
			call(t, cs, "lookup", `{"query":"good"}`)
			if got := runs.Load(); got != 1 {
				t.Errorf("tool ran %d times, want 1 (the good call)", got)
			}
		})
	}
}

func TestSSERefusesForeignHostGET(t *testing.T) {
	leakcheck.Check(t)
	s, _ := countingServer(t, nil)
	ts := serveHTTP(t, sseHandler(t, s, nil))
	req, _ := http.NewRequest(http.MethodGet, ts.URL, nil)
	req.Host = "evil.example"
	if status, body := do(t, ts, req); status != http.StatusForbidden {
		t.Errorf("GET with a foreign Host: status %d (%q), want 403", status, body)
	}
	if got := sessionCount(s); got != 0 {
		t.Errorf("a refused GET opened %d sessions", got)
	}
}

func TestSSECloseEndsSessions(t *testing.T) {
	leakcheck.Check(t)
	s, _ := countingServer(t, nil)
	h := sseHandler(t, s, nil)
	ts := serveHTTP(t, h)
	cs, endpoint := connectSSE(t, ts)
	call(t, cs, "lookup", `{"query":"x"}`)

	h.Close()
	testkit.Poll(t, "Close to end the session", func() bool { return sessionCount(s) == 0 })
	if status, body := ssePost(t, ts, endpoint, callBody(7, "late"), nil); status != http.StatusServiceUnavailable {
		t.Errorf("POST after Close: status %d (%q), want 503", status, body)
	}
}

func TestSSEGoneSession(t *testing.T) {
	leakcheck.Check(t)
	s, runs := countingServer(t, nil)
	ts := serveHTTP(t, sseHandler(t, s, nil))
	cs, endpoint := connectSSE(t, ts)
	cs.Close() // ends the GET stream, and so the session
	testkit.Poll(t, "the session to end", func() bool { return sessionCount(s) == 0 })
	if status, body := ssePost(t, ts, endpoint, callBody(7, "late"), nil); status != http.StatusNotFound {
		t.Errorf("POST in an ended session: status %d (%q), want 404", status, body)
	}
	if got := runs.Load(); got != 0 {
		t.Errorf("tool ran %d times, want 0", got)
	}
}
