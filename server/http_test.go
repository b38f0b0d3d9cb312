package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// countingServer is a server with the lookup tool, and the number of times
// the tool ran.
func countingServer(t testing.TB, opts *Options) (*Server, *atomic.Int64) {
	t.Helper()
	s := newServer(t, "docs", "v1", opts)
	var runs atomic.Int64
	mustRegister(t, s, lookupTool(), func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return lookup(ctx, req)
	})
	return s, &runs
}

// serveHTTP serves h on a loopback httptest server, closed at cleanup
// (the handler first, so that open streams end).
func serveHTTP(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		if c, ok := h.(io.Closer); ok {
			c.Close()
		}
		ts.Close()
	})
	return ts
}

// connectHTTP connects a go-sdk client to url over Streamable HTTP.
func connectHTTP(t testing.TB, ts *httptest.Server, url string) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: ts.Client(), MaxRetries: 2})
}

// connectWith connects a go-sdk client over tr at 2025-11-25, whose
// sessions these tests are about (a 2026-07-28 client has none: see
// stateless_test.go), and closes the session at cleanup.
func connectWith(t testing.TB, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	return testkit.Connect(t, tr, &testkit.ConnectOptions{Version: "2025-11-25"})
}

func sessionCount(s *Server) int {
	n := 0
	for range s.MCP().Sessions() {
		n++
	}
	return n
}

// callBody is the JSON-RPC body of a lookup call with the given query.
func callBody(id int, query string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"lookup","arguments":{"query":%q}}}`, id, query)
}

// post sends a raw Streamable HTTP POST in cs's session, letting edit change
// the request, and returns the status and the whole body.
func post(t testing.TB, ts *httptest.Server, cs *mcp.ClientSession, body string, edit func(*http.Request)) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", cs.ID())
	req.Header.Set("Mcp-Protocol-Version", cs.InitializeResult().ProtocolVersion)
	if edit != nil {
		edit(req)
	}
	return do(t, ts, req)
}

func do(t testing.TB, ts *httptest.Server, req *http.Request) (int, string) {
	t.Helper()
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	return resp.StatusCode, string(b)
}

func TestHTTPToolCall(t *testing.T) {
	leakcheck.Check(t)
	s, runs := countingServer(t, nil)
	ts := serveHTTP(t, httpHandler(t, s, nil))
	cs := connectHTTP(t, ts, ts.URL)

	if got, isErr := call(t, cs, "lookup", `{"query":"http"}`); got != "docs: http" || isErr {
		t.Errorf("CallTool = %q (isError %v), want %q", got, isErr, "docs: http")
	}
	if got := runs.Load(); got != 1 {
		t.Errorf("tool ran %d times, want 1", got)
	}
}

func TestSSEToolCall(t *testing.T) {
	leakcheck.Check(t)
	s, runs := countingServer(t, nil)
	ts := serveHTTP(t, sseHandler(t, s, nil))
	cs := connectWith(t, &mcp.SSEClientTransport{Endpoint: ts.URL, HTTPClient: ts.Client()})

	if got, isErr := call(t, cs, "lookup", `{"query":"sse"}`); got != "docs: sse" || isErr {
		t.Errorf("CallTool = %q (isError %v), want %q", got, isErr, "docs: sse")
	}
	if got := runs.Load(); got != 1 {
		t.Errorf("tool ran %d times, want 1", got)
	}
}

func TestHTTPSessionIDFromOptions(t *testing.T) {
	leakcheck.Check(t)
	var n atomic.Int64
	s, _ := countingServer(t, &Options{SessionID: func() string { return fmt.Sprintf("session-%d", n.Add(1)) }})
	ts := serveHTTP(t, httpHandler(t, s, nil))

	got := []string{connectHTTP(t, ts, ts.URL).ID(), connectHTTP(t, ts, ts.URL).ID()}
	if diff := cmp.Diff([]string{"session-1", "session-2"}, got); diff != "" {
		t.Errorf("session ids mismatch (-want +got):\n%s", diff)
	}
}

func TestHTTPDeleteEndsSession(t *testing.T) {
	leakcheck.Check(t)
	s, runs := countingServer(t, nil)
	ts := serveHTTP(t, httpHandler(t, s, nil))
	cs := connectHTTP(t, ts, ts.URL)
	call(t, cs, "lookup", `{"query":"before"}`)
	if got := sessionCount(s); got != 1 {
		t.Fatalf("server has %d sessions, want 1", got)
	}

	if err := cs.Close(); err != nil { // sends the protocol DELETE
		t.Fatalf("Close: %v", err)
	}
	testkit.Poll(t, "the server to end the session", func() bool { return sessionCount(s) == 0 })

	// The session is gone: a request in it gets 404, and the tool does not run.
	status, body := post(t, ts, cs, callBody(7, "after"), nil)
	if status != http.StatusNotFound {
		t.Errorf("POST in a deleted session: status %d (%q), want 404", status, body)
	}
	req, _ := http.NewRequest(http.MethodDelete, ts.URL, nil)
	req.Header.Set("Mcp-Session-Id", cs.ID())
	if status, body := do(t, ts, req); status != http.StatusNotFound {
		t.Errorf("DELETE of a deleted session: status %d (%q), want 404", status, body)
	}
	if got := runs.Load(); got != 1 {
		t.Errorf("tool ran %d times, want 1", got)
	}
}

// TestHTTPRefusesRebinding proves that a request with a foreign Host or
// Origin is refused before the protocol sees it: the same request with
// proper headers runs the tool.
func TestHTTPRefusesRebinding(t *testing.T) {
	for _, tc := range []struct {
		name, wantBody string
		edit           func(*http.Request)
	}{
		{"host", `Host "evil.example:80" is not a loopback name`, func(r *http.Request) { r.Host = "evil.example:80" }},
		{"origin", `Origin "http://evil.example" is not a loopback origin`, func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }},
		{"null origin", `Origin "null" is not a valid origin`, func(r *http.Request) { r.Header.Set("Origin", "null") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			s, runs := countingServer(t, nil)
			ts := serveHTTP(t, httpHandler(t, s, nil))
			cs := connectHTTP(t, ts, ts.URL)

			status, body := post(t, ts, cs, callBody(7, "evil"), tc.edit)
			if status != http.StatusForbidden || !strings.Contains(body, tc.wantBody) {
				t.Errorf("refused request: status %d, body %q; want 403 and a body containing %q", status, body, tc.wantBody)
			}
			if got := runs.Load(); got != 0 {
				t.Fatalf("the tool ran %d times for a refused request", got)
			}

			status, body = post(t, ts, cs, callBody(8, "good"), func(r *http.Request) { r.Header.Set("Origin", ts.URL) })
			if status != http.StatusOK || !strings.Contains(body, "docs: good") {
				t.Errorf("control request: status %d, body %q; want 200 and the tool's result", status, body)
			}
			if got := runs.Load(); got != 1 {
				t.Errorf("tool ran %d times, want 1 (the control request)", got)
			}
		})
	}
}

func TestHTTPAllowlists(t *testing.T) {
	leakcheck.Check(t)
	s, runs := countingServer(t, nil)
	ts := serveHTTP(t, httpHandler(t, s, &HTTPOptions{
		AllowedHosts:   []string{"mcp.internal"},
		AllowedOrigins: []string{"https://app.example"},
	}))
	// The client speaks to the loopback server under the allowed name.
	hc := *ts.Client()
	hc.Transport = hostRewriter{"mcp.internal:8443", hc.Transport}
	cs := connectWith(t, &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: &hc})
	call(t, cs, "lookup", `{"query":"ok"}`)

	for _, tc := range []struct {
		host, origin string
		want         int
	}{
		{"mcp.internal", "https://app.example", http.StatusOK},
		{"MCP.internal:9000", "https://app.example:443", http.StatusOK},
		{ts.Listener.Addr().String(), "", http.StatusForbidden}, // loopback, but not listed
		{"mcp.internal", "http://localhost", http.StatusForbidden},
	} {
		status, _ := post(t, ts, cs, callBody(9, "x"), func(r *http.Request) {
			r.Host = tc.host
			if tc.origin != "" {
				r.Header.Set("Origin", tc.origin)
			}
		})
		if status != tc.want {
			t.Errorf("Host %q, Origin %q: status %d, want %d", tc.host, tc.origin, status, tc.want)
		}
	}
	if got := runs.Load(); got != 3 {
		t.Errorf("tool ran %d times, want 3", got)
	}
}

type hostRewriter struct {
	host string
	rt   http.RoundTripper
}

func (h hostRewriter) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Host = h.host
	return h.rt.RoundTrip(req)
}

func TestHostPolicy(t *testing.T) {
	leakcheck.Check(t)
	loopback := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	public := &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 443}
	for _, tc := range []struct {
		name    string
		opts    HTTPOptions
		local   net.Addr // nil: unknown
		host    string
		origin  string
		allowed bool
	}{
		{"loopback ip", HTTPOptions{}, loopback, "127.0.0.1:8080", "", true},
		{"localhost", HTTPOptions{}, loopback, "localhost:8080", "", true},
		{"ipv6 loopback", HTTPOptions{}, loopback, "[::1]:8080", "", true},
		{"dot localhost", HTTPOptions{}, loopback, "app.localhost", "", true},
		{"foreign host on loopback", HTTPOptions{}, loopback, "evil.example", "", false},
		{"empty host on loopback", HTTPOptions{}, loopback, "", "", false},
		{"unknown local address is loopback", HTTPOptions{}, nil, "evil.example", "", false},
		{"loopback origin any port", HTTPOptions{}, loopback, "localhost:8080", "http://localhost:3000", true},
		{"foreign origin on loopback", HTTPOptions{}, loopback, "localhost:8080", "https://evil.example", false},
		{"public: any host", HTTPOptions{}, public, "mcp.example.com", "", true},
		{"public: same origin", HTTPOptions{}, public, "mcp.example.com", "https://mcp.example.com", true},
		{"public: same origin, explicit port", HTTPOptions{}, public, "mcp.example.com:8443", "https://mcp.example.com:8443", true},
		{"public: other origin", HTTPOptions{}, public, "mcp.example.com", "https://evil.example", false},
		{"public: other port", HTTPOptions{}, public, "mcp.example.com:8443", "https://mcp.example.com", false},
		{"listed host any port", HTTPOptions{AllowedHosts: []string{"mcp.example.com"}}, public, "mcp.example.com:1234", "", true},
		{"listed host:port", HTTPOptions{AllowedHosts: []string{"mcp.example.com:443"}}, public, "mcp.example.com:443", "", true},
		{"listed host:port, other port", HTTPOptions{AllowedHosts: []string{"mcp.example.com:443"}}, public, "mcp.example.com:444", "", false},
		{"listed ipv6", HTTPOptions{AllowedHosts: []string{"[2001:db8::1]"}}, public, "[2001:db8::1]:80", "", true},
		{"unlisted host", HTTPOptions{AllowedHosts: []string{"mcp.example.com"}}, public, "evil.example", "", false},
		{"listed origin", HTTPOptions{AllowedOrigins: []string{"https://app.example"}}, public, "mcp.example.com", "https://APP.example", true},
		{"unlisted origin", HTTPOptions{AllowedOrigins: []string{"https://app.example"}}, public, "mcp.example.com", "https://mcp.example.com", false},
		{"listed origin on loopback", HTTPOptions{AllowedOrigins: []string{"https://app.example"}}, loopback, "localhost", "https://app.example", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			req.Host = tc.host
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.local != nil {
				req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, tc.local))
			}
			p, err := newHostPolicy("test", &tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			err = p.Check(req)
			if got := err == nil; got != tc.allowed {
				t.Errorf("Check(Host %q, Origin %q) = %v; allowed %v, want %v", tc.host, tc.origin, err, got, tc.allowed)
			}
		})
	}
}

// TestHandlerOriginErrors: an AllowedOrigins entry that is not an origin
// makes HTTPHandler and SSEHandler return an *OptionsError naming the entry
// with the text "auth: invalid origin: not an origin: …"; valid entries
// give none.
func TestHandlerOriginErrors(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "docs", "v1", nil)
	handlers := map[string]func(*HTTPOptions) (io.Closer, error){
		"HTTPHandler": func(o *HTTPOptions) (io.Closer, error) {
			h, err := s.HTTPHandler(o)
			if h == nil {
				return nil, err
			}
			return h, err
		},
		"SSEHandler": func(o *HTTPOptions) (io.Closer, error) {
			h, err := s.SSEHandler(o)
			if h == nil {
				return nil, err
			}
			return h, err
		},
	}
	for fn, mk := range handlers {
		t.Run(fn, func(t *testing.T) {
			h, err := mk(&HTTPOptions{AllowedOrigins: []string{"https://a.example", "http://localhost:8080"}})
			if err != nil {
				t.Fatalf("valid origins: %v", err)
			}
			h.Close()
			for _, bad := range []string{"ftp://x", "https://user@a.example", "not a url", ""} {
				h, err := mk(&HTTPOptions{AllowedOrigins: []string{"https://a.example", bad}})
				if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), ": auth: invalid origin: not an origin: ") {
					t.Errorf("%s(AllowedOrigins %q) error = %v; want ErrInvalidOptions, an invalid origin", fn, bad, err)
				}
				if h != nil {
					t.Errorf("%s(AllowedOrigins %q) returned a handler beside its error", fn, bad)
				}
				var oe *OptionsError
				if errors.As(err, &oe) {
					want := OptionsError{Func: fn, Option: "AllowedOrigins[1]", Value: bad}
					if diff := cmp.Diff(want, OptionsError{Func: oe.Func, Option: oe.Option, Value: oe.Value}); diff != "" {
						t.Errorf("OptionsError mismatch (-want +got):\n%s", diff)
					}
				}
			}
		})
	}
}

// hideLength makes a request body of unknown length, sent chunked.
type hideLength struct{ io.Reader }

func TestHTTPOversizeBody(t *testing.T) {
	leakcheck.Check(t)
	s, runs := countingServer(t, nil)
	ts := serveHTTP(t, httpHandler(t, s, &HTTPOptions{MaxBodyBytes: 2048}))
	cs := connectHTTP(t, ts, ts.URL)
	big := callBody(7, strings.Repeat("x", 4096))

	status, body := post(t, ts, cs, big, nil)
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(body, "exceeds the 2048-byte limit") {
		t.Errorf("oversize body: status %d, body %q; want 413 naming the limit", status, body)
	}
	status, body = post(t, ts, cs, big, func(r *http.Request) {
		r.ContentLength = -1
		r.Body = io.NopCloser(hideLength{strings.NewReader(big)})
	})
	if status != http.StatusRequestEntityTooLarge {
		t.Errorf("oversize chunked body: status %d, body %q; want 413", status, body)
	}
	if got := runs.Load(); got != 0 {
		t.Fatalf("the tool ran %d times for an oversize request", got)
	}
	if got, _ := call(t, cs, "lookup", `{"query":"small"}`); got != "docs: small" {
		t.Errorf("CallTool after the refusals = %q, want %q", got, "docs: small")
	}
}

func TestHTTPDefaultBodyBound(t *testing.T) {
	leakcheck.Check(t)
	s, runs := countingServer(t, nil)
	ts := serveHTTP(t, httpHandler(t, s, nil))
	cs := connectHTTP(t, ts, ts.URL)
	status, _ := post(t, ts, cs, callBody(7, strings.Repeat("x", DefaultMaxBodyBytes)), nil)
	if status != http.StatusRequestEntityTooLarge {
		t.Errorf("body over DefaultMaxBodyBytes: status %d, want 413", status)
	}
	if got := runs.Load(); got != 0 {
		t.Errorf("the tool ran %d times for an oversize request", got)
	}
}

// TestHTTPResumeAfterDrop drops the response stream of a tool call after the
// server's first event (the priming event, which carries an event id), as a
// broken connection would. The go-sdk client resumes with a GET carrying
// Last-Event-ID and reads the result from the server's event store; the
// tool ran once.
func TestHTTPResumeAfterDrop(t *testing.T) {
	leakcheck.Check(t)
	s, runs := countingServer(t, nil)
	drop := &dropper{next: httpHandler(t, s, nil)}
	ts := serveHTTP(t, drop)
	cs := connectHTTP(t, ts, ts.URL)

	if got, isErr := call(t, cs, "lookup", `{"query":"resumed"}`); got != "docs: resumed" || isErr {
		t.Errorf("CallTool = %q (isError %v), want %q", got, isErr, "docs: resumed")
	}
	if got := runs.Load(); got != 1 {
		t.Errorf("tool ran %d times, want 1", got)
	}
	drop.mu.Lock()
	defer drop.mu.Unlock()
	if !drop.dropped || len(drop.resumes) == 0 {
		t.Fatalf("dropped %v, resumed with Last-Event-ID %q; want a drop and a resume", drop.dropped, drop.resumes)
	}
}

// TestHTTPNoEventStoreNoResume is the control: without the event store
// there is no event id to resume from, and the dropped call fails.
func TestHTTPNoEventStoreNoResume(t *testing.T) {
	leakcheck.Check(t)
	s, runs := countingServer(t, nil)
	drop := &dropper{next: httpHandler(t, s, &HTTPOptions{EventStoreBytes: -1})}
	ts := serveHTTP(t, drop)
	cs := connectHTTP(t, ts, ts.URL)

	if _, _, err := tryCall(cs, "lookup", `{"query":"lost"}`); err == nil {
		t.Error("CallTool succeeded after its stream dropped, with no event store")
	}
	if got := runs.Load(); got != 1 {
		t.Errorf("tool ran %d times, want 1", got)
	}
}

// dropper breaks the connection of the first tools/call POST when the
// server writes the call's result, after whatever it wrote before (the
// priming event, when there is an event store). To keep the test fast it
// adds a retry field to the first event it passes (the go-sdk client
// otherwise waits a second or more before resuming); the field changes
// when the client resumes, not what.
type dropper struct {
	next http.Handler

	mu      sync.Mutex // guards the fields below
	dropped bool
	resumes []string // the Last-Event-ID of each GET
}

func (d *dropper) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method == http.MethodGet {
		if id := req.Header.Get("Last-Event-ID"); id != "" {
			d.mu.Lock()
			d.resumes = append(d.resumes, id)
			d.mu.Unlock()
		}
	}
	if req.Method != http.MethodPost {
		d.next.ServeHTTP(w, req)
		return
	}
	body, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(strings.NewReader(string(body)))
	d.mu.Lock()
	target := !d.dropped && strings.Contains(string(body), `"tools/call"`)
	d.dropped = d.dropped || target
	d.mu.Unlock()
	if !target {
		d.next.ServeHTTP(w, req)
		return
	}
	d.next.ServeHTTP(&dropWriter{ResponseWriter: w}, req)
}

type dropWriter struct {
	http.ResponseWriter
	passed bool // an event was passed through
	broken bool
}

func (w *dropWriter) Write(b []byte) (int, error) {
	if w.broken {
		return 0, net.ErrClosed
	}
	if !strings.Contains(string(b), `"result"`) {
		if w.passed {
			return w.ResponseWriter.Write(b)
		}
		w.passed = true
		return w.ResponseWriter.Write(append(slices.Clip(b), "retry: 10\n\n"...)) // b is the caller's
	}
	// Break the connection, as a network failure would.
	w.broken = true
	if conn, _, err := http.NewResponseController(w.ResponseWriter).Hijack(); err == nil {
		conn.Close()
	}
	return 0, net.ErrClosed
}

func (w *dropWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *dropWriter) Flush() {
	if !w.broken {
		http.NewResponseController(w.ResponseWriter).Flush()
	}
}

// TestHTTPReplayLastEventID resumes a finished stream with raw requests: a
// GET with the Last-Event-ID of the priming event replays the result.
func TestHTTPReplayLastEventID(t *testing.T) {
	leakcheck.Check(t)
	s, runs := countingServer(t, nil)
	ts := serveHTTP(t, httpHandler(t, s, nil))
	cs := connectHTTP(t, ts, ts.URL)

	status, body := post(t, ts, cs, callBody(7, "replay"), nil)
	if status != http.StatusOK {
		t.Fatalf("POST: status %d (%q)", status, body)
	}
	events := parseEvents(body)
	if len(events) < 2 || events[0].id == "" || !strings.Contains(events[len(events)-1].data, "docs: replay") {
		t.Fatalf("POST stream = %+v; want a priming event with an id, then the result", events)
	}

	req, _ := http.NewRequest(http.MethodGet, ts.URL, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", cs.ID())
	req.Header.Set("Mcp-Protocol-Version", cs.InitializeResult().ProtocolVersion)
	req.Header.Set("Last-Event-ID", events[0].id)
	status, body = do(t, ts, req)
	if status != http.StatusOK {
		t.Fatalf("GET with Last-Event-ID: status %d (%q)", status, body)
	}
	replayed := parseEvents(body)
	if diff := cmp.Diff(events[1:], replayed, cmp.AllowUnexported(event{})); diff != "" {
		t.Errorf("replayed events mismatch (-want +got):\n%s", diff)
	}
	if got := runs.Load(); got != 1 {
		t.Errorf("tool ran %d times, want 1", got)
	}
}

type event struct{ name, id, data string }

// parseEvents splits an SSE body into events, skipping comments.
func parseEvents(body string) []event {
	var out []event
	var e event
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if e != (event{}) {
				out = append(out, e)
			}
			e = event{}
		case strings.HasPrefix(line, "event: "):
			e.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "id: "):
			e.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: "):
			e.data = strings.TrimPrefix(line, "data: ")
		}
	}
	return out
}

func TestHTTPCloseEndsSessions(t *testing.T) {
	leakcheck.Check(t)
	s, _ := countingServer(t, nil)
	h := httpHandler(t, s, nil)
	ts := serveHTTP(t, h)
	cs := connectHTTP(t, ts, ts.URL)
	call(t, cs, "lookup", `{"query":"x"}`)

	h.Close()
	testkit.Poll(t, "Close to end the session", func() bool { return sessionCount(s) == 0 })
	status, body := post(t, ts, cs, callBody(7, "late"), nil)
	if status != http.StatusServiceUnavailable {
		t.Errorf("request after Close: status %d (%q), want 503", status, body)
	}
}

// TestHTTPEventStoreBound proves the event store's bound is in force: with
// room for one result, a second call's events push out the first's, and
// resuming the first stream is refused (400) instead of replayed.
func TestHTTPEventStoreBound(t *testing.T) {
	leakcheck.Check(t)
	s, _ := countingServer(t, nil)
	ts := serveHTTP(t, httpHandler(t, s, &HTTPOptions{EventStoreBytes: 1}))
	cs := connectHTTP(t, ts, ts.URL)

	_, body := post(t, ts, cs, callBody(7, "first"), nil)
	first := parseEvents(body)
	if len(first) == 0 || first[0].id == "" {
		t.Fatalf("POST stream = %+v; want a priming event with an id", first)
	}
	post(t, ts, cs, callBody(8, "second"), nil)

	req, _ := http.NewRequest(http.MethodGet, ts.URL, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", cs.ID())
	req.Header.Set("Mcp-Protocol-Version", cs.InitializeResult().ProtocolVersion)
	req.Header.Set("Last-Event-ID", first[0].id)
	if status, body := do(t, ts, req); status != http.StatusBadRequest {
		t.Errorf("resuming a purged stream: status %d (%q), want 400", status, body)
	}
}

func TestHTTPIdleTimeout(t *testing.T) {
	leakcheck.Check(t)
	s, _ := countingServer(t, nil)
	ts := serveHTTP(t, httpHandler(t, s, &HTTPOptions{IdleTimeout: 50 * time.Millisecond}))
	cs := connectHTTP(t, ts, ts.URL)
	call(t, cs, "lookup", `{"query":"x"}`)
	testkit.Poll(t, "the idle session to end", func() bool { return sessionCount(s) == 0 })
	if status, body := post(t, ts, cs, callBody(7, "late"), nil); status != http.StatusNotFound {
		t.Errorf("request in a timed-out session: status %d (%q), want 404", status, body)
	}
}
