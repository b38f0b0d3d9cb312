package client_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// buildServer serves, over Streamable HTTP, this module's server with one
// tool, build, that runs as a task; stop ends it.
func buildServer() (f *streamablehttp.Factory, stop func()) {
	s, err := server.New("ci", "v1", &server.Options{Tasks: &server.TaskOptions{PollInterval: 10 * time.Millisecond}})
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
	f, err = streamablehttp.New(ts.URL, nil)
	if err != nil {
		log.Fatal(err)
	}
	return f, func() { ts.Close(); h.Close(); s.Close() }
}

// A long-running tool reads as one call: with Definition.Tasks set,
// CallTool waits for the task the server runs it as.
func ExampleDefinition_tasks() {
	ctx := context.Background()
	f, stop := buildServer()
	defer stop()
	def := client.Definition{Name: "ci", Transport: f, Tasks: true, Limits: client.Limits{
		TaskTimeout: 30 * time.Minute,
	}}
	c, err := client.Connect(ctx, def, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "build", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// built
}

// A caller that manages a long job itself starts it as a task and takes
// the handle: status, wait, cancel.
func ExampleClient_StartTool() {
	ctx := context.Background()
	f, stop := buildServer()
	defer stop()
	c, err := client.Connect(ctx, client.Definition{Name: "ci", Transport: f}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	task, err := c.StartTool(ctx, "build", nil)
	if err != nil {
		log.Fatal(err)
	}
	st, err := task.Status(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("a task:", st.ID == task.ID() && task.ID() != "")
	res, err := task.Wait(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	err = task.Cancel(ctx) // a finished task stays finished
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// a task: true
	// built
}
