package sse_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport/sse"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rig is a go-sdk MCP server over the legacy SSE transport on loopback,
// with tools that count their executions, and a log of the requests that
// reached it.
type rig struct {
	srv   *httptest.Server
	calls atomic.Int64 // executions of the "count" tool

	mu       sync.Mutex // guards requests
	requests []string   // "METHOD rpc-method" of every request
}

type bigArgs struct {
	N int `json:"n"`
}

// newRig starts the server; middleware, if not nil, wraps the MCP handler.
func newRig(t testing.TB, middleware func(http.Handler) http.Handler) *rig {
	t.Helper()
	r := &rig{}
	s := mcp.NewServer(&mcp.Implementation{Name: "rig", Version: "v0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "count"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		r.calls.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "big"}, func(_ context.Context, _ *mcp.CallToolRequest, a bigArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", a.N)}}}, nil, nil
	})
	// The "block" tool says nothing until it is cancelled or the test ends
	// (the go-sdk's SSE server waits for it before it ends the session).
	release := make(chan struct{})
	mcp.AddTool(s, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		select {
		case <-ctx.Done():
		case <-release:
		}
		return nil, nil, ctx.Err()
	})
	var h http.Handler = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
	if middleware != nil {
		h = middleware(h)
	}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.requests = append(r.requests, req.Method+" "+rpcMethod(req))
		r.mu.Unlock()
		h.ServeHTTP(w, req)
	}))
	t.Cleanup(r.srv.Close)
	t.Cleanup(func() { close(release) }) // runs first
	return r
}

func (r *rig) url() string { return r.srv.URL + "/sse" }

func (r *rig) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.requests...)
}

// rpcMethod returns the JSON-RPC method a POST carries (the body is put
// back), or "".
func rpcMethod(req *http.Request) string {
	if req.Method != http.MethodPost || req.Body == nil {
		return ""
	}
	data, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(data))
	var m struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(data, &m)
	return m.Method
}

// otherOrigin is a second server that counts the requests and the
// Authorization headers it receives.
type otherOrigin struct {
	srv      *httptest.Server
	requests atomic.Int64
	auths    atomic.Int64
}

func newOtherOrigin(t testing.TB) *otherOrigin {
	t.Helper()
	o := &otherOrigin{}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.requests.Add(1)
		if r.Header.Get("Authorization") != "" {
			o.auths.Add(1)
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(o.srv.Close)
	return o
}

func (o *otherOrigin) check(t testing.TB) {
	t.Helper()
	if n := o.auths.Load(); n != 0 {
		t.Errorf("other origin received %d Authorization headers, want 0", n)
	}
	if n := o.requests.Load(); n != 0 {
		t.Errorf("other origin received %d requests, want 0", n)
	}
}

func newFactory(t testing.TB, endpoint string, opts *sse.Options) *sse.Factory {
	t.Helper()
	f, err := sse.New(endpoint, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return f
}

// connectErr opens a go-sdk session over f at 2024-11-05, closed at
// cleanup, and returns Connect's error.
func connectErr(t testing.TB, f *sse.Factory) (*mcp.ClientSession, error) {
	t.Helper()
	return testkit.TryConnect(t, testkit.Transport(t, f), &testkit.ConnectOptions{Version: sse.ProtocolVersion})
}

// connect opens a go-sdk session over f at 2024-11-05 and closes it at
// cleanup.
func connect(t testing.TB, f *sse.Factory) *mcp.ClientSession {
	t.Helper()
	return testkit.Connect(t, testkit.Transport(t, f), &testkit.ConnectOptions{Version: sse.ProtocolVersion})
}

func callCount(t testing.TB, cs *mcp.ClientSession) (*mcp.CallToolResult, error) {
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
