package hostile_test

import (
	"context"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// counts is what a peer counts: executions of each tool, by name.
type counts struct {
	mu sync.Mutex // guards n
	n  map[string]int
}

func (c *counts) inc(tool string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[tool]++
}

func (c *counts) get(tool string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[tool]
}

// floodData makes each notifications/message of the flood about 110 bytes
// on the wire.
var floodData = strings.Repeat("f", 32)

type floodIn struct {
	N int `json:"n"`
}

type echoIn struct {
	Text string `json:"text"`
}

// newServer is the go-sdk server the well-behaved side of each peer runs:
// "echo" returns its text; "flood" sends N notifications/message before its
// answer.
func newServer(n *counts) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "v1"}, &mcp.ServerOptions{
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerCapabilities.Logging, mcp.LoggingCapabilities
		Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}},
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		n.inc("echo")
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "flood"}, func(ctx context.Context, req *mcp.CallToolRequest, in floodIn) (*mcp.CallToolResult, any, error) {
		n.inc("flood")
		for range in.N {
			//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerSession.Log, mcp.LoggingMessageParams
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: floodData}); err != nil {
				return nil, nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "flooded"}}}, nil, nil
	})
	return srv
}
