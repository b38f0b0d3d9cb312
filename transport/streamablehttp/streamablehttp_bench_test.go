package streamablehttp_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/looprig/mcp/internal/benchpair"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCallTool compares a tool call over this package's transport with
// the same call over the go-sdk's bare StreamableClientTransport (with its
// own http.Transport), against the same loopback server.
func BenchmarkCallTool(b *testing.B) {
	r := newRig(b, rigConfig{eventStore: true})
	run := func(b *testing.B, tr mcp.Transport) {
		c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil)
		cs, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: stableVersion})
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		params := &mcp.CallToolParams{Name: "count"}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			if _, err := cs.CallTool(context.Background(), params); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("looprig", func(b *testing.B) {
		tr, err := newFactory(b, r.url(), nil).Transport()
		if err != nil {
			b.Fatal(err)
		}
		run(b, tr)
	})
	b.Run("gosdk", func(b *testing.B) {
		pool := &http.Transport{ForceAttemptHTTP2: true}
		defer pool.CloseIdleConnections()
		run(b, &mcp.StreamableClientTransport{Endpoint: r.url(), HTTPClient: &http.Client{Transport: pool}})
	})
}

// BenchmarkCallToolPaired is BenchmarkCallTool with the two sides taking
// turns call by call (internal/benchpair): their metrics, looprig-ns/op and
// gosdk-ns/op, are measured in the same moments, which makes their ratio
// fair on a busy machine. scripts/bench reports it.
func BenchmarkCallToolPaired(b *testing.B) {
	r := newRig(b, rigConfig{eventStore: true})
	session := func(tr mcp.Transport) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil)
		cs, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: stableVersion})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cs.Close() })
		return cs
	}
	tr, err := newFactory(b, r.url(), nil).Transport()
	if err != nil {
		b.Fatal(err)
	}
	ours := session(tr)
	pool := &http.Transport{ForceAttemptHTTP2: true}
	b.Cleanup(pool.CloseIdleConnections)
	theirs := session(&mcp.StreamableClientTransport{Endpoint: r.url(), HTTPClient: &http.Client{Transport: pool}})
	params := &mcp.CallToolParams{Name: "count"}
	call := func(cs *mcp.ClientSession) func() {
		return func() {
			if _, err := cs.CallTool(context.Background(), params); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	benchpair.Run(b, benchpair.Side{Name: "looprig", Op: call(ours)}, benchpair.Side{Name: "gosdk", Op: call(theirs)})
}
