package cassette_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callEcho connects to f, calls the echo tool and closes.
func callEcho(f transport.Factory, text string) (string, error) {
	ctx := context.Background()
	tr, err := f.Transport()
	if err != nil {
		return "", err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v1"}, nil).
		Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		return "", err
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
	if cerr := cs.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return res.Content[0].(*mcp.TextContent).Text, nil
}

func Example() {
	dir, _ := os.MkdirTemp("", "cassette-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "echo.jsonl")

	// Record a session with a live in-process server.
	srv := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	live, err := callEcho(cassette.Record(inprocess.New(srv), path, nil), "hello")
	fmt.Println("live:", live, err)

	// Replay it with no server.
	p, err := cassette.Replay(path, &cassette.Options{Strict: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	replayed, err := callEcho(p, "hello")
	fmt.Println("replayed:", replayed, err)

	data, _ := os.ReadFile(path)
	header, _, _ := strings.Cut(string(data), "\n")
	fmt.Println(header)
	// Output:
	// live: hello <nil>
	// replayed: hello <nil>
	// {"format":"mcprig-cassette","version":1,"transport":"inprocess","protocol":"2025-11-25","server":"echo"}
}

func ExampleNewRecorder_invalidOptions() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "v1"}, nil)
	_, err := cassette.NewRecorder(inprocess.New(srv), "testdata/echo.jsonl", &cassette.Options{
		RedactPaths: []string{"params..token"},
	})
	fmt.Println(err)
	fmt.Println(errors.Is(err, cassette.ErrInvalidOptions), errors.Is(err, cassette.ErrEmptySegment))
	// Output:
	// cassette.NewRecorder: RedactPaths[0] "params..token": path has an empty segment
	// true true
}
