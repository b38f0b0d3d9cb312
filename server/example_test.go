package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool with a typed handler, called in-process by a go-sdk client.
func Example() {
	srv, err := server.New("docs", "v1.0.0", nil)
	if err != nil {
		log.Fatal(err)
	}
	type query struct {
		Query string `json:"query"`
	}
	err = server.RegisterToolFor(srv, &mcp.Tool{Name: "lookup", Description: "Look up the docs."},
		func(_ context.Context, _ *mcp.CallToolRequest, in query) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "docs: " + in.Query}}}, nil, nil
		})
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	tr, err := srv.Factory().Transport()
	if err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v0"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	for _, args := range []string{`{"query":"transports"}`, `{"query":42}`} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup", Arguments: json.RawMessage(args)})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("isError=%v %s\n", res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// isError=false docs: transports
	// isError=true invalid input: validating root: validating /properties/query: type: 42 has type "integer", want "string"
}

// A raw handler with a schema given as JSON; its result is bounded.
func ExampleServer_RegisterTool() {
	srv, err := server.New("docs", "v1.0.0", &server.Options{MaxResultBytes: 64})
	if err != nil {
		log.Fatal(err)
	}
	err = srv.RegisterTool(&mcp.Tool{
		Name:        "repeat",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":0}},"required":["n"]}`),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ N int }
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		b := make([]byte, in.N)
		for i := range b {
			b[i] = 'x'
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(srv.RegisterTool(&mcp.Tool{Name: "repeat", InputSchema: json.RawMessage(`{"type":"object"}`)}, nil))

	ctx := context.Background()
	tr, _ := srv.Factory().Transport()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v0"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	for _, n := range []int{3, 100} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "repeat", Arguments: map[string]any{"n": n}})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("isError=%v %s\n", res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// server: tool: nil tool or handler: invalid definition
	// isError=false xxx
	// isError=true result too large: 139 bytes exceed the 64-byte limit
}
