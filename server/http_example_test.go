package server_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server published over Streamable HTTP on a loopback address, called by
// a go-sdk client. A real program mounts the handler on its own mux:
//
//	h, err := srv.HTTPHandler(nil)
//	if err != nil { … }
//	defer h.Close()
//	mux.Handle("/mcp", h)
func ExampleServer_HTTPHandler() {
	srv, err := server.New("docs", "v1.0.0", nil)
	if err != nil {
		log.Fatal(err)
	}
	err = server.RegisterToolFor(srv, &mcp.Tool{Name: "lookup"},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Query string `json:"query"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "docs: " + in.Query}}}, nil, nil
		})
	if err != nil {
		log.Fatal(err)
	}

	h, err := srv.HTTPHandler(&server.HTTPOptions{MaxBodyBytes: 64 << 10})
	if err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close() // runs first: ends the sessions, so that ts.Close does not wait for their streams

	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: ts.Client()},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close() // ends the session with the protocol DELETE

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"query": "http"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// docs: http
}

// The legacy HTTP+SSE transport of protocol revision 2024-11-05, for
// clients that still need it.
func ExampleServer_SSEHandler() {
	srv, err := server.New("docs", "v1.0.0", nil)
	if err != nil {
		log.Fatal(err)
	}
	h, err := srv.SSEHandler(nil)
	if err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()

	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v0"}, nil).Connect(ctx,
		&mcp.SSEClientTransport{Endpoint: ts.URL, HTTPClient: ts.Client()},
		&mcp.ClientSessionOptions{ProtocolVersion: "2024-11-05"})
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	fmt.Println(cs.InitializeResult().ProtocolVersion, cs.InitializeResult().ServerInfo.Name)
	// Output:
	// 2024-11-05 docs
}
