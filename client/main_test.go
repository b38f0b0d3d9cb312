package client_test

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(taskPeerChildEnv); dir != "" {
		runTaskPeerChild(dir) // this test binary is also the task peer's stdio child
		os.Exit(0)
	}
	fakeserver.MainIfChild() // this test binary is also the fake server's stdio child
	os.Exit(leakcheck.Main(m))
}

// counter counts tool executions on the server side.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) inc(tool string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[tool]++
}

func (c *counter) get(tool string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[tool]
}

type lookupIn struct {
	Query string `json:"query"`
}

// docsServer is a small go-sdk server with the tool lookup, a resource and a
// prompt; every execution is counted.
func docsServer(n *counter) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "lookup", Description: "Look up a topic."}, func(ctx context.Context, req *mcp.CallToolRequest, in lookupIn) (*mcp.CallToolResult, any, error) {
		n.inc("lookup")
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "docs: " + in.Query}}}, nil, nil
	})
	srv.AddResource(&mcp.Resource{URI: "docs://readme", Name: "readme", MIMEType: "text/plain"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "hello"}}}, nil
	})
	srv.AddPrompt(&mcp.Prompt{Name: "summarize"}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "summarize"}}}}, nil
	})
	return srv
}

func connect(t *testing.T, srv *mcp.Server, def client.Definition, h *client.Handlers) *client.Client {
	t.Helper()
	if def.Name == "" {
		def.Name = "docs"
	}
	def.Transport = inprocess.New(srv)
	c, err := client.Connect(testkit.Context(t), def, h)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return c
}
