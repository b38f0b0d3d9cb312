package inprocess_test

import (
	"context"
	"fmt"
	"log"

	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func ExampleNew() {
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	f := inprocess.New(srv)
	fmt.Println("kind:", f.Kind())

	tr, err := f.Transport()
	if err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// kind: inprocess
	// hello
}
