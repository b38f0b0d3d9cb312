package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCallTool measures one validated, bounded tool call in-process.
func BenchmarkCallTool(b *testing.B) {
	s := New("docs", "v1", nil)
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
	s := New("docs", "v1", nil)
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
