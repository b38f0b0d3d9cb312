package cassette_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const benchCalls = 1000

// benchSession connects to f and makes benchCalls distinct tool calls.
func benchSession(b *testing.B, f transport.Factory) {
	ctx := context.Background()
	tr, err := f.Transport()
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: stable})
	if err != nil {
		b.Fatal(err)
	}
	for i := range benchCalls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": strconv.Itoa(i)}})
		if err != nil || res.IsError {
			b.Fatalf("call %d: %v %+v", i, err, res)
		}
	}
	if err := cs.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSession compares a 1,000-call session run live against an
// in-process go-sdk server with the same session replayed from a cassette.
func BenchmarkSession(b *testing.B) {
	srv := newCounter().srv
	b.Run("live", func(b *testing.B) {
		for b.Loop() {
			benchSession(b, inprocess.New(srv))
		}
	})
	b.Run("replay", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "bench.jsonl")
		benchSession(b, cassette.Record(inprocess.New(srv), path, nil))
		c, err := cassette.Load(path)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			benchSession(b, c.Player(nil))
		}
	})
}

// BenchmarkRecord compares the same session run live with and without
// recording it (the cassette is written on every Close).
func BenchmarkRecord(b *testing.B) {
	srv := newCounter().srv
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			benchSession(b, inprocess.New(srv))
		}
	})
	b.Run("record", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "bench.jsonl")
		for b.Loop() {
			benchSession(b, cassette.Record(inprocess.New(srv), path, nil))
		}
	})
}
