package streamablehttp_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stableVersion is the protocol revision these tests speak: the one with
// sessions, DELETE and Last-Event-ID resumption.
const stableVersion = "2025-11-25"

// rig is a go-sdk MCP server over HTTP on loopback, with tools that count
// their executions.
type rig struct {
	srv   *httptest.Server
	calls atomic.Int64 // executions of the "count" tool

	// The "block" tool signals entered, then waits for release.
	entered chan struct{}
	release chan struct{}

	mu       sync.Mutex // guards requests
	requests []string   // "METHOD Last-Event-ID" of every request that reached the MCP handler
}

type rigConfig struct {
	eventStore   bool
	jsonResponse bool
	stateless    bool // serve 2026-07-28 (and nothing with a session)
	// middleware wraps the MCP handler (fault injection).
	middleware func(http.Handler) http.Handler
	// connState, if set, is the server's http.Server.ConnState hook.
	connState func(net.Conn, http.ConnState)
}

type bigArgs struct {
	N int `json:"n"`
}

func newRig(t testing.TB, cfg rigConfig) *rig {
	t.Helper()
	r := &rig{entered: make(chan struct{}, 1), release: make(chan struct{})}
	s := mcp.NewServer(&mcp.Implementation{Name: "rig", Version: "v0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "count"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		r.calls.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "big"}, func(ctx context.Context, req *mcp.CallToolRequest, a bigArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", a.N)}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "block"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		r.entered <- struct{}{}
		select {
		case <-r.release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released"}}}, nil, nil
	})
	opts := &mcp.StreamableHTTPOptions{JSONResponse: cfg.jsonResponse, Stateless: cfg.stateless}
	if cfg.eventStore {
		opts.EventStore = mcp.NewMemoryEventStore(nil)
	}
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, opts)
	if cfg.middleware != nil {
		h = cfg.middleware(h)
	}
	r.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.requests = append(r.requests, req.Method+" "+req.Header.Get("Last-Event-ID"))
		r.mu.Unlock()
		h.ServeHTTP(w, req)
	}))
	r.srv.Config.ConnState = cfg.connState
	r.srv.Start()
	t.Cleanup(r.srv.Close)
	return r
}

func (r *rig) url() string { return r.srv.URL + "/mcp" }

func (r *rig) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.requests...)
}

// connect opens a session over f at stableVersion and closes it at cleanup.
func connect(t testing.TB, f *streamablehttp.Factory) *mcp.ClientSession {
	t.Helper()
	return connectAt(t, f, stableVersion)
}

// connectAt opens a session over f at version, which the server must
// negotiate, and closes it at cleanup.
func connectAt(t testing.TB, f *streamablehttp.Factory, version string) *mcp.ClientSession {
	t.Helper()
	return testkit.Connect(t, testkit.Transport(t, f), &testkit.ConnectOptions{Version: version})
}

// connectErr opens a session over f at stableVersion, closed at cleanup,
// returning Connect's error.
func connectErr(t testing.TB, f *streamablehttp.Factory) (*mcp.ClientSession, error) {
	t.Helper()
	return testkit.TryConnect(t, testkit.Transport(t, f), &testkit.ConnectOptions{Version: stableVersion})
}

func newFactory(t testing.TB, endpoint string, opts *streamablehttp.Options) *streamablehttp.Factory {
	t.Helper()
	f, err := streamablehttp.New(endpoint, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return f
}

func callCount(t testing.TB, cs *mcp.ClientSession) (*mcp.CallToolResult, error) {
	t.Helper()
	return cs.CallTool(testkit.Context(t), &mcp.CallToolParams{Name: "count"})
}

func text(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}
