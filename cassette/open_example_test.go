package cassette_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Open records the live session once, then replays it as CI does
// (ModeReplay): the same answer, and the server does not run again. In a
// test, ModeFromEnv chooses the mode.
func ExampleOpen() {
	var runs atomic.Int32
	srv := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "lookup"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Query string `json:"query"`
	}) (*mcp.CallToolResult, any, error) {
		runs.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "docs: " + in.Query}}}, nil, nil
	})
	dir, _ := os.MkdirTemp("", "cassette")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "docs.jsonl")
	live := inprocess.New(srv) // stdio.New, streamablehttp.New: any transport

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a broken replay fails, not hangs
	defer cancel()
	for _, mode := range []cassette.Mode{cassette.ModeRecord, cassette.ModeReplay} {
		f, err := cassette.Open(path, live, &cassette.Options{Mode: mode})
		if err != nil {
			fmt.Println(err)
			return
		}
		c, err := client.Connect(ctx, client.Definition{Name: "docs", Transport: f}, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := c.CallTool(ctx, "lookup", map[string]any{"query": "close"})
		c.Close()
		if err := f.Close(); err != nil { // recording: the file written; replaying: the first mismatch, or what was never asked
			fmt.Println(err)
			return
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %s (executions at the server: %d)\n", mode, res.Content[0].(*mcp.TextContent).Text, runs.Load())
	}
	// Output:
	// record: docs: close (executions at the server: 1)
	// replay: docs: close (executions at the server: 1)
}
