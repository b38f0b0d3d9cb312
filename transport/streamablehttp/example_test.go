package streamablehttp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func Example() {
	// A server on loopback with one tool.
	s := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "lookup"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Q string `json:"q"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found " + in.Q}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)})
	srv := httptest.NewServer(h)
	defer srv.Close()

	f, err := streamablehttp.New(srv.URL, &streamablehttp.Options{
		Credentials: auth.Bearer(auth.NewToken("secret")),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	tr, _ := f.Transport()
	c := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v1"}, nil)
	cs, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"q": "go"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Kind(), res.Content[0].(*mcp.TextContent).Text)
	// Output: streamablehttp found go
}

func ExampleNew_insecure() {
	_, err := streamablehttp.New("http://mcp.example.com/mcp", nil)
	fmt.Println(errors.Is(err, &transport.PolicyError{Rule: transport.RuleInsecure}))
	_, err = streamablehttp.New("http://127.0.0.1:8080/mcp", nil)
	fmt.Println(err)
	// Output:
	// true
	// <nil>
}

// A response past a bound of Limits fails its call with transport.ErrLimit.
func ExampleLimits() {
	s := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "dump"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", 1<<20)}}}, nil, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer srv.Close()

	f, _ := streamablehttp.New(srv.URL, &streamablehttp.Options{
		Limits: streamablehttp.Limits{MaxEventBytes: 64 << 10},
	})
	tr, _ := f.Transport()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v1"}, nil).
		Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "dump"})
	fmt.Println(errors.Is(err, transport.ErrLimit))
	// Output: true
}
