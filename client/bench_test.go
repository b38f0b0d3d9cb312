package client_test

import (
	"context"
	"testing"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCallTool compares a tool call through this package's client over
// the in-process transport with the go-sdk's own client over
// mcp.NewInMemoryTransports, against the same server. Compare the two
// sub-benchmarks with benchstat:
//
//	go test -run '^$' -bench CallTool -count 10 ./client | tee bench.txt
//	benchstat -col /transport bench.txt
func BenchmarkCallTool(b *testing.B) {
	ctx := context.Background()
	args := map[string]any{"query": "bench"}
	b.Run("transport=gosdk-inmemory", func(b *testing.B) {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := docsServer(&counter{}).Connect(ctx, st, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer ss.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup", Arguments: args}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("transport=looprig-inprocess", func(b *testing.B) {
		c, err := client.Connect(ctx, client.Definition{Name: "docs", Transport: inprocess.New(docsServer(&counter{}))}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.CallTool(ctx, "lookup", args); err != nil {
				b.Fatal(err)
			}
		}
	})
}
