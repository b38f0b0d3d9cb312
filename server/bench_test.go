package server

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCallTool measures one validated, bounded tool call in-process.
func BenchmarkCallTool(b *testing.B) {
	s := newServer(b, "docs", "v1", nil)
	mustRegister(b, s, lookupTool(), lookup)
	cs := connect(b, s)
	p := &mcp.CallToolParams{Name: "lookup", Arguments: json.RawMessage(`{"query":"bench"}`)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cs.CallTool(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallToolUnguarded is the same call on the go-sdk server alone,
// for comparison.
func BenchmarkCallToolUnguarded(b *testing.B) {
	s := newServer(b, "docs", "v1", nil)
	s.MCP().AddTool(lookupTool(), mcp.ToolHandler(lookup))
	cs := connect(b, s)
	p := &mcp.CallToolParams{Name: "lookup", Arguments: json.RawMessage(`{"query":"bench"}`)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cs.CallTool(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHTTPCall measures one tool call over Streamable HTTP on a
// loopback listener, by revision, through HTTPHandler and through the
// go-sdk's own handler in the same mode (the baseline): the cost of this
// package's checks and routing. Compare go-sdk/… with ours/… of the same
// revision.
func BenchmarkHTTPCall(b *testing.B) {
	guarded := newServer(b, "docs", "v1", nil)
	mustRegister(b, guarded, lookupTool(), lookup)
	bare := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "v1"}, nil)
	bare.AddTool(lookupTool(), mcp.ToolHandler(lookup))
	goSDK := func(stateless bool) func() http.Handler {
		return func() http.Handler {
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return bare }, &mcp.StreamableHTTPOptions{Stateless: stateless})
		}
	}
	ours := func(o *HTTPOptions) func() http.Handler {
		return func() http.Handler { return httpHandler(b, guarded, o) }
	}
	for _, bc := range []struct {
		name, version string
		h             func() http.Handler
	}{
		{"2026-07-28/go-sdk-stateless", "2026-07-28", goSDK(true)},
		{"2026-07-28/ours", "2026-07-28", ours(nil)},
		{"2026-07-28/ours-stateless", "2026-07-28", ours(&HTTPOptions{Stateless: true})},
		{"2025-11-25/go-sdk-stateful", "2025-11-25", goSDK(false)},
		{"2025-11-25/ours", "2025-11-25", ours(nil)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ts := serveHTTP(b, bc.h())
			cs := connectVersion(b, ts, nil, bc.version)
			p := &mcp.CallToolParams{Name: "lookup", Arguments: json.RawMessage(`{"query":"bench"}`)}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cs.CallTool(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
