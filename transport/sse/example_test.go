package sse_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/sse"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func Example() {
	// A legacy SSE server on loopback with one tool.
	s := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "lookup"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Q string `json:"q"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found " + in.Q}}}, nil, nil
	})
	srv := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer srv.Close()

	f, err := sse.New(srv.URL, &sse.Options{Credentials: auth.Bearer(auth.NewToken("secret"))})
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := client.Connect(context.Background(), client.Definition{
		Name: "docs", Profile: client.ProfileLegacy, Transport: f,
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	res, err := c.CallTool(context.Background(), "lookup", map[string]any{"q": "go"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Kind(), c.ProtocolVersion(), res.Content[0].(*mcp.TextContent).Text)
	// Output: sse 2024-11-05 found go
}

// Plain http is refused except on loopback, with a transport.PolicyError of Rule RuleInsecure, the
// error streamablehttp returns too: the two transports share their policy
// errors.
func ExampleNew_insecure() {
	_, err := sse.New("http://mcp.example.com/sse", nil)
	fmt.Println(err)
	fmt.Println(errors.Is(err, &transport.PolicyError{Rule: transport.RuleInsecure}))
	_, err = sse.New("http://127.0.0.1:8080/sse", nil)
	fmt.Println(err)
	// Output:
	// sse: insecure endpoint: plain http to http://mcp.example.com (set AllowInsecureHTTP to permit it)
	// true
	// <nil>
}

// A Factory pins protocol 2024-11-05: client.Connect refuses a profile
// that pins another revision over it, before anything is sent.
func ExampleFactory_PinnedProtocolVersion() {
	f, _ := sse.New("http://127.0.0.1:8080/sse", nil)
	fmt.Println(f.PinnedProtocolVersion())
	_, err := client.Connect(context.Background(), client.Definition{Name: "docs", Profile: client.Profile20260728, Transport: f}, nil)
	var ce *client.Error
	fmt.Println(errors.As(err, &ce), ce.Class)
	// Output:
	// 2024-11-05
	// true policy
}

// A server that speaks only Streamable HTTP is not fallen back to: the
// error names the transport to use instead.
func ExampleStatusError() {
	s := mcp.NewServer(&mcp.Implementation{Name: "new", Version: "v1"}, nil)
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer srv.Close()

	f, _ := sse.New(srv.URL, nil)
	_, err := client.Connect(context.Background(), client.Definition{
		Name: "new", Profile: client.ProfileLegacy, Transport: f,
	}, nil)
	var se *sse.StatusError
	if errors.As(err, &se) {
		fmt.Println(se.Status, se.Hint)
	}
	// Output: 400 the server may speak Streamable HTTP: use transport/streamablehttp
}
