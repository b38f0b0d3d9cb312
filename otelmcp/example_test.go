package otelmcp_test

import (
	"context"
	"fmt"
	"log"
	"slices"
	"strings"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/otelmcp"
	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A traced client calls a traced server in-process: the client's span and
// the server's span of the call are one trace, linked through _meta.
func Example() {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	opts := &otelmcp.Options{TracerProvider: tp}

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
	srv.MCP().AddReceivingMiddleware(otelmcp.ServerMiddleware(opts))

	ctx := context.Background()
	c, err := client.Connect(ctx, client.Definition{
		Name:              "docs",
		Profile:           client.Profile20251125,
		Transport:         srv.Factory(),
		SendingMiddleware: []mcp.Middleware{otelmcp.ClientMiddleware(opts)},
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	exp.Reset() // only the call's spans

	if _, err := c.CallTool(ctx, "lookup", map[string]any{"query": "traces"}); err != nil {
		log.Fatal(err)
	}
	spans := exp.GetSpans()
	for _, s := range spans {
		var attrs []string
		for _, a := range s.Attributes {
			attrs = append(attrs, string(a.Key)+"="+a.Value.String())
		}
		slices.Sort(attrs)
		fmt.Printf("%s %q %s\n", s.SpanKind, s.Name, strings.Join(attrs, " "))
	}
	server, cl := spans[0], spans[1]
	fmt.Println("one trace:", server.SpanContext.TraceID() == cl.SpanContext.TraceID())
	fmt.Println("server's parent is the client's span:", server.Parent.SpanID() == cl.SpanContext.SpanID())
	// Output:
	// server "tools/call lookup" gen_ai.operation.name=execute_tool gen_ai.tool.name=lookup mcp.method.name=tools/call mcp.protocol.version=2025-11-25
	// client "tools/call lookup" gen_ai.operation.name=execute_tool gen_ai.tool.name=lookup mcp.method.name=tools/call mcp.protocol.version=2025-11-25
	// one trace: true
	// server's parent is the client's span: true
}
