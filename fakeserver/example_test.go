package fakeserver_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/looprig/mcp/fakeserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An in-process fake server with a scripted fault, and the proof that each
// call ran exactly once.
func Example() {
	fs, err := fakeserver.New(&fakeserver.Options{
		Faults: []fakeserver.Fault{{Kind: fakeserver.FaultError, Tool: "lookup", Message: "backend down"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	tr, err := fs.Factory().Transport()
	if err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v0"}, nil).
		Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"query": "faults"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("isError=%v %s\n", res.IsError, res.Content[0].(*mcp.TextContent).Text)
	fmt.Println("executions:", fs.Counts().Executions["lookup"])
	// Output:
	// isError=true backend down
	// executions: 1
}

// The docs catalog answers deterministically.
func ExampleNew() {
	fs, err := fakeserver.New(nil)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	tr, _ := fs.Factory().Transport()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v0"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	for _, q := range []string{"transports", "cassettes"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"query": q}})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	}
	fmt.Println(fs.Counts().Executions)
	// Output:
	// docs: transports
	// docs: cassettes
	// map[lookup:2]
}

// The text form is KIND[@TOOL][:ARG]; KIND=TOOL, the spelling before
// 0.2.0, is read the same.
func ExampleParseFault() {
	for _, s := range []string{"delay@lookup:200ms", "crash=lookup:3", "flood-stderr:65536", "explode"} {
		f, err := fakeserver.ParseFault(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s tool=%q -> %s\n", f.Kind, f.Tool, f)
	}
	// Output:
	// delay tool="lookup" -> delay@lookup:200ms
	// crash tool="lookup" -> crash@lookup:3
	// flood-stderr tool="" -> flood-stderr:65536
	// fakeserver: fault "explode": invalid fault: unknown kind "explode" (FAULTS.md lists the kinds)
}

// A fake of your own: a tool whose replies follow a script call by call,
// and whose arguments are validated against its schema first.
func ExampleCatalog() {
	fs, err := fakeserver.New(&fakeserver.Options{Custom: &fakeserver.Catalog{
		Name: "weather",
		Tools: []fakeserver.Tool{{
			Name:        "get_weather",
			InputSchema: `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
			Reply: fakeserver.Sequence(
				func(_ context.Context, c *fakeserver.Call) (*mcp.CallToolResult, error) {
					var in struct{ City string }
					if err := c.Decode(&in); err != nil {
						return nil, err
					}
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny in " + in.City}}}, nil
				},
				fakeserver.Error("rate limited"),
			),
		}},
	}})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	tr, _ := fs.Factory().Transport()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v0"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	for _, args := range []map[string]any{{"city": "Oslo"}, {"city": "Rome"}, {"town": "Lima"}} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: args})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("isError=%v %s\n", res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
	fmt.Printf("%+v\n", fs.Counts())
	// Output:
	// isError=false sunny in Oslo
	// isError=true rate limited
	// isError=true invalid input: validating root: required: missing properties: ["city"]
	// {Executions:map[get_weather:2] Rounds:map[get_weather:2] Polls:map[]}
}

// Your own go-sdk server, wrapped with a scripted delay and the counters.
func ExampleWrap() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mine", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	fs, err := fakeserver.Wrap(srv, &fakeserver.WrapOptions{
		Faults: []fakeserver.Fault{{Kind: fakeserver.FaultDelay, Tool: "echo", Delay: time.Millisecond}},
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	tr, _ := fs.Factory().Transport()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v0"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text, "executions:", fs.Counts().Executions["echo"])
	// Output: hello executions: 1
}
