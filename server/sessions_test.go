package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// initialize is a 2025-11-25 initialize request, with id.
func initialize(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"v0"}}}`, id)
}

// TestHTTPMaxSessions opens sessions up to the bound (3), concurrently,
// with twice as many clients trying: exactly 3 are opened, the others
// refused with 503, Retry-After and -32603 before the server handles
// their initialize. The open sessions go on serving, 2026-07-28 requests
// (which keep none) are still answered, and once a client deletes its
// session a new one opens.
func TestHTTPMaxSessions(t *testing.T) {
	leakcheck.Check(t)
	const max = 3
	s, runs := countingServer(t, nil)
	methods := countMethods(s)
	ts := serveHTTP(t, httpHandler(t, s, &HTTPOptions{MaxSessions: max}))
	type reply struct {
		status int
		retry  string
		r      rpcReply
	}
	replies := make(chan reply, 2*max)
	var wg sync.WaitGroup
	for i := range 2 * max {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(initialize(i+1)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			replies <- reply{resp.StatusCode, resp.Header.Get("Retry-After"), parseReply(t, string(b))}
		})
	}
	wg.Wait()
	close(replies)
	var opened, busy int
	for r := range replies {
		switch {
		case r.status == http.StatusOK && r.r.Error == nil:
			opened++
		case r.status == http.StatusServiceUnavailable && r.retry != "" && r.r.Error != nil && r.r.Error.Code == jsonrpc.CodeInternalError && r.r.ID != 0:
			busy++
		default:
			t.Errorf("initialize answered %d %+v", r.status, r.r)
		}
	}
	if opened != max || busy != max {
		t.Errorf("%d sessions opened and %d refused, want %d and %d", opened, busy, max, max)
	}
	if got := methods.counts("initialize")["initialize"]; got != max {
		t.Errorf("the server handled %d initialize requests, want %d: a refused one must not reach it", got, max)
	}
	// The open sessions serve; a 2026-07-28 call needs none.
	if n := sessionCount(s); n != max {
		t.Errorf("%d sessions open, want %d", n, max)
	}
	if status, r, text := send(t, ts, lookupCall("1", ","+meta, ""), current); status != http.StatusOK || r.Error != nil {
		t.Errorf("a 2026-07-28 call at the bound: %d %s", status, text)
	}
	// One more client is refused; once one client leaves, it connects.
	_, err := testkit.TryConnect(t, &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: ts.Client(), MaxRetries: -1}, &testkit.ConnectOptions{Version: "2025-11-25"})
	if err == nil || !strings.Contains(err.Error(), "Service Unavailable") {
		t.Errorf("a fourth client connects: %v; want it refused with 503", err)
	}
	for ss := range s.MCP().Sessions() {
		ss.Close() // as a client's DELETE does
		break
	}
	cs := connectWith(t, &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: ts.Client(), MaxRetries: -1})
	if text, _ := call(t, cs, "lookup", `{"query":"q"}`); text != "docs: q" {
		t.Errorf("the new session's call = %q", text)
	}
	if got := runs.Load(); got != 2 {
		t.Errorf("lookup ran %d times, want 2", got)
	}
}

// TestHTTPMaxSessionsUnbounded: a negative bound opens as many as asked.
func TestHTTPMaxSessionsUnbounded(t *testing.T) {
	leakcheck.Check(t)
	s, _ := countingServer(t, nil)
	ts := serveHTTP(t, httpHandler(t, s, &HTTPOptions{MaxSessions: -1}))
	for i := range 20 {
		if status, _, text := send(t, ts, initialize(i+1), nil); status != http.StatusOK {
			t.Fatalf("session %d: %d %s", i+1, status, text)
		}
	}
}

// TestSSEMaxSessions: the legacy handler keeps as many session streams as
// its bound, refuses the next with 503, and opens one again once a stream
// ends.
func TestSSEMaxSessions(t *testing.T) {
	leakcheck.Check(t)
	const max = 2
	s, _ := countingServer(t, nil)
	ts := serveHTTP(t, sseHandler(t, s, &HTTPOptions{MaxSessions: max}))
	open := func() (*http.Response, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL, nil)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp, func() { cancel(); resp.Body.Close() }
	}
	var ends []context.CancelFunc
	for i := range max {
		resp, end := open()
		ends = append(ends, end)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: %d", i+1, resp.StatusCode)
		}
	}
	defer func() {
		for _, end := range ends {
			end()
		}
	}()
	resp, end := open()
	end()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("stream %d: %d, want 503 with Retry-After", max+1, resp.StatusCode)
	}
	ends[0]()
	testkit.Poll(t, "the ended stream to leave the count", func() bool {
		resp, end := open()
		end()
		return resp.StatusCode == http.StatusOK
	})
}

// TestHTTPSessionBelongsToPrincipal puts the handler behind the go-sdk's
// bearer-token middleware: alice's session serves alice, and a request
// naming it with bob's token, or with none, is refused before anything
// runs.
func TestHTTPSessionBelongsToPrincipal(t *testing.T) {
	leakcheck.Check(t)
	s, runs := countingServer(t, nil)
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		if token != "alice" && token != "bob" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: token, Expiration: time.Now().Add(time.Hour)}, nil
	}
	h := httpHandler(t, s, nil)
	ts := httptest.NewServer(auth.RequireBearerToken(verify, nil)(h))
	t.Cleanup(func() { h.Close(); ts.Close() })
	alice := connectWith(t, &mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{"alice", ts.Client().Transport}}})
	if text, _ := call(t, alice, "lookup", `{"query":"mine"}`); text != "docs: mine" {
		t.Fatalf("alice's call = %q", text)
	}
	for _, tc := range []struct {
		name, token string
		want        int
	}{
		{"bob's token", "Bearer bob", http.StatusForbidden},
		{"no token", "", http.StatusUnauthorized},
		{"a token that does not verify", "Bearer mallory", http.StatusUnauthorized},
	} {
		status, _ := post(t, ts, alice, callBody(9, "theirs"), func(r *http.Request) {
			if tc.token != "" {
				r.Header.Set("Authorization", tc.token)
			}
		})
		if status != tc.want {
			t.Errorf("%s in alice's session: %d, want %d", tc.name, status, tc.want)
		}
	}
	if got := runs.Load(); got != 1 {
		t.Errorf("lookup ran %d times, want 1 (alice's own call)", got)
	}
}

// bearer adds a bearer token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(req)
}

// BenchmarkSessionMemory opens 1,000 idle 2025-11-25 sessions on this
// package's handler and on the go-sdk's own, and reports the live heap and
// the goroutines each session costs, and the ratio to the go-sdk's:
//
//	go test -run '^$' -bench SessionMemory -benchtime 1x -count 3 ./server/
func BenchmarkSessionMemory(b *testing.B) {
	const n = 1000
	var sdkHeap, sdkGoroutines float64
	for _, tc := range []struct {
		name    string
		handler func(*Server) http.Handler
	}{
		{"go-sdk", func(s *Server) http.Handler {
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.MCP() }, &mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)})
		}},
		{"server", func(s *Server) http.Handler { return httpHandler(b, s, nil) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var heap, goroutines float64
			for range b.N {
				s, _ := countingServer(b, nil)
				h := tc.handler(s)
				before, g0 := liveHeap(), runtime.NumGoroutine()
				for i := range n {
					req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/", strings.NewReader(initialize(i+1)))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "application/json, text/event-stream")
					w := httptest.NewRecorder()
					h.ServeHTTP(w, req)
					if w.Code != http.StatusOK {
						b.Fatalf("session %d: %d %s", i+1, w.Code, w.Body)
					}
				}
				heap += float64(liveHeap()-before) / n
				goroutines += float64(runtime.NumGoroutine()-g0) / n
				for ss := range s.MCP().Sessions() {
					ss.Close()
				}
				if c, ok := h.(interface{ Close() error }); ok {
					c.Close()
				}
			}
			heap /= float64(b.N)
			goroutines /= float64(b.N)
			b.ReportMetric(heap, "heap-B/session")
			b.ReportMetric(goroutines, "goroutines/session")
			if tc.name == "go-sdk" {
				sdkHeap, sdkGoroutines = heap, goroutines
			} else if sdkHeap > 0 {
				b.ReportMetric(heap/sdkHeap, "heap-x-go-sdk")
				b.ReportMetric(goroutines/sdkGoroutines, "goroutines-x-go-sdk")
			}
		})
	}
}

// liveHeap is the heap in use after a collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
