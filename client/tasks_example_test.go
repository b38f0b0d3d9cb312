package client_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A long-running tool is started as a task and waited for through its
// handle. (With Definition.Tasks set, CallTool does both in one call.)
func ExampleClient_StartTool() {
	ctx := context.Background()
	s, err := server.New("ci", "v1", &server.Options{Tasks: &server.TaskOptions{}})
	if err != nil {
		log.Fatal(err)
	}
	err = s.RegisterTaskTool(&mcp.Tool{Name: "build", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "built"}}}, nil
		}, nil)
	if err != nil {
		log.Fatal(err)
	}
	h, err := s.HTTPHandler(nil)
	if err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer func() { ts.Close(); h.Close(); s.Close() }()

	f, err := streamablehttp.New(ts.URL, nil)
	if err != nil {
		log.Fatal(err)
	}
	c, err := client.Connect(ctx, client.Definition{Name: "ci", Transport: f}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	task, err := c.StartTool(ctx, "build", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("a task:", task.ID() != "")
	res, err := task.Wait(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// a task: true
	// built
}
