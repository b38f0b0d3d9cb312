package client_test

import (
	"context"
	"fmt"
	"log"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/looprig/mcp/transport/stdio"
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

// A server run as a supervised child process. (Not run: it needs a
// docs-server program on PATH.)
func Example_stdio() {
	ctx := context.Background()
	f, err := stdio.New("docs-server", []string{"--stdio"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	c, err := client.Connect(ctx, client.Definition{Name: "docs", Transport: f}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallModel(ctx, "mcp__docs__lookup", map[string]any{"query": "close"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
}

// Profiles as scripts and flags name them. The default profile pins
// nothing: it negotiates.
func ExampleParseProfile() {
	for _, name := range []string{"default", "2026-07-28", "2025-11-25", "legacy", "stable"} {
		p, err := client.ParseProfile(name)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s pins %q, accepts 2025-11-25: %v\n", p, p.ProtocolVersion(), p.Accepts("2025-11-25"))
	}
	// Output:
	// default pins "", accepts 2025-11-25: true
	// 2026-07-28 pins "2026-07-28", accepts 2025-11-25: false
	// 2025-11-25 pins "2025-11-25", accepts 2025-11-25: true
	// legacy pins "2024-11-05", accepts 2025-11-25: false
	// client: unknown profile "stable" (want one of default, legacy, 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26)
}

// The default profile against a server that speaks 2026-07-28, and a
// client that introduces itself by its own name.
func ExampleDefinition_profile() {
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "v1"}, nil)
	def := client.Definition{
		Name:           "docs",
		Implementation: &mcp.Implementation{Name: "my-agent", Version: "v2.3.0"},
		Transport:      inprocess.New(srv),
	}
	c, err := client.Connect(ctx, def, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	fmt.Println(c.ProtocolVersion())

	def.Profile = client.Profile20251125
	old, err := client.Connect(ctx, def, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer old.Close()
	fmt.Println(old.ProtocolVersion())
	// Output:
	// 2026-07-28
	// 2025-11-25
}

// A tool that asks the user to confirm, written the go-sdk way (it returns
// input requests). On 2026-07-28 the client answers through
// Handlers.Elicitation and sends the continuation; the tool completes once.
func ExampleClient_CallTool_inputRequired() {
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "delete"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if r, ok := req.Params.InputResponses["sure"].(*mcp.ElicitResult); ok && r.Action == "accept" {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted"}}}, nil, nil
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
			"sure": &mcp.ElicitParams{Message: "Delete report.txt?"},
		}}, nil, nil
	})
	h := &client.Handlers{
		Elicitation: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			fmt.Println("asked:", p.Message)
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	}
	c, err := client.Connect(ctx, client.Definition{Name: "files", Transport: inprocess.New(srv)}, h)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "delete", map[string]any{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.ProtocolVersion(), res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// asked: Delete report.txt?
	// 2026-07-28 deleted
}
