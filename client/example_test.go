package client_test

import (
	"context"
	"fmt"
	"log"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func Example() {
	ctx := context.Background()
	// A server in the same process; in production the Transport would be
	// stdio.New or streamablehttp.New.
	srv := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "lookup", Description: "Look up a topic."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct {
			Query string `json:"query"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "docs: " + in.Query}}}, nil, nil
		})

	c, err := client.Connect(ctx, client.Definition{Name: "docs", Transport: inprocess.New(srv)}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	for _, b := range c.Bindings() {
		fmt.Println(b.ModelName, "enabled:", b.Enabled)
	}
	res, err := c.CallModel(ctx, "mcp__docs__lookup", map[string]any{"query": "close"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// mcp__docs__lookup enabled: true
	// docs: close
}

func ExampleClient_SetEnabled() {
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "lookup"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	c, err := client.Connect(ctx, client.Definition{Name: "docs", Transport: inprocess.New(srv)}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	c.SetEnabled("mcp__docs__lookup", false)
	_, err = c.CallModel(ctx, "mcp__docs__lookup", map[string]any{})
	fmt.Println(err)
	// Output:
	// mcp docs: call lookup: policy: binding disabled: mcp__docs__lookup
}

func ExampleModelNames() {
	names := client.ModelNames("my.server", []string{"search", "files/read"})
	fmt.Println(names["search"])
	fmt.Println(names["files/read"])
	// Output:
	// mcp__my_server__search
	// mcp__my_server__files_read
}
