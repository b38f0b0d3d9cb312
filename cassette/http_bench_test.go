package cassette_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const benchHTTPCalls = 100

// benchHTTPSession connects to f and makes benchHTTPCalls distinct calls.
func benchHTTPSession(b *testing.B, f transport.Factory) {
	ctx := context.Background()
	tr, err := f.Transport()
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: stable})
	if err != nil {
		b.Fatal(err)
	}
	for i := range benchHTTPCalls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": strconv.Itoa(i)}})
		if err != nil || res.IsError {
			b.Fatalf("call %d: %v %+v", i, err, res)
		}
	}
	if err := cs.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkHTTPSession compares a 100-call session against the go-sdk's
// Streamable HTTP server on loopback with the same session replayed from a
// cassette (no network).
func BenchmarkHTTPSession(b *testing.B) {
	rig := newHTTPRig(b, nil)
	pool := base(b)
	live := func() transport.Factory {
		f, err := streamablehttp.New(rig.url(), &streamablehttp.Options{Base: pool})
		if err != nil {
			b.Fatal(err)
		}
		return f
	}
	b.Run("live", func(b *testing.B) {
		for b.Loop() {
			benchHTTPSession(b, live())
		}
	})
	b.Run("replay", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "bench.jsonl")
		rec := cassette.RecordHTTP(rig.url(), pool, path, nil)
		f, err := streamablehttp.New(rig.url(), &streamablehttp.Options{Base: rec})
		if err != nil {
			b.Fatal(err)
		}
		benchHTTPSession(b, f)
		if err := rec.Close(); err != nil {
			b.Fatal(err)
		}
		c, err := cassette.Load(path)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			benchHTTPSession(b, c.Player(nil))
		}
	})
}
