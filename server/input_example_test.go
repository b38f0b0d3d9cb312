package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool that asks the user to confirm, written once, called by clients on
// both protocol revisions: on 2026-07-28 the client continues the call
// with the answer; on 2025-11-25 the server asks the client during the
// call. The handler runs twice either way, two rounds of one call: once to
// ask, once to finish.
func ExampleElicitResponse() {
	srv, err := server.New("files", "v1.0.0", nil)
	if err != nil {
		log.Fatal(err)
	}
	type target struct {
		Path string `json:"path"`
	}
	rounds := 0
	err = server.RegisterToolFor(srv, &mcp.Tool{Name: "remove", Description: "Remove a file, once the user confirms."},
		func(_ context.Context, req *mcp.CallToolRequest, in target) (*mcp.CallToolResult, any, error) {
			rounds++
			if r, ok := server.ElicitResponse(req.Params.InputResponses, "confirm"); ok {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s: %s", in.Path, r.Action)}}}, nil, nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{
				Message:         "Remove " + in.Path + "?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`),
			}}}, nil, nil
		})
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v0"}, &mcp.ClientOptions{
			ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				fmt.Printf("  the user is asked: %s\n", req.Params.Message)
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
			},
		})
		tr, err := srv.Factory().Transport()
		if err != nil {
			log.Fatal(err)
		}
		cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			log.Fatal(err)
		}
		rounds = 0
		fmt.Println(version)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "remove", Arguments: map[string]any{"path": "/tmp/old"}})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("  %s (%d rounds)\n", res.Content[0].(*mcp.TextContent).Text, rounds)
		cs.Close()
	}
	// Output:
	// 2026-07-28
	//   the user is asked: Remove /tmp/old?
	//   /tmp/old: accept (2 rounds)
	// 2025-11-25
	//   the user is asked: Remove /tmp/old?
	//   /tmp/old: accept (2 rounds)
}
