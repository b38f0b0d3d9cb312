package downstream

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type convertIn struct {
	Value float64 `json:"value" jsonschema:"the value to convert"`
	From  string  `json:"from" jsonschema:"the unit of value: c or f"`
}

type convertOut struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// NewServer returns the team's own MCP server, written with the go-sdk
// alone: the tool convert (temperatures between Celsius and Fahrenheit) and
// the resource units://list.
func NewServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "units", Version: "v1.0.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "convert",
		Description: "Convert a temperature between Celsius (c) and Fahrenheit (f).",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in convertIn) (*mcp.CallToolResult, convertOut, error) {
		switch in.From {
		case "c":
			return nil, convertOut{Value: in.Value*9/5 + 32, Unit: "f"}, nil
		case "f":
			return nil, convertOut{Value: (in.Value - 32) * 5 / 9, Unit: "c"}, nil
		}
		return nil, convertOut{}, fmt.Errorf("unknown unit %q: want c or f", in.From)
	})
	srv.AddResource(&mcp.Resource{URI: "units://list", Name: "units", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "c\nf\n"}}}, nil
		})
	return srv
}

// ServeMain is the server's program: it serves NewServer over stdin and
// stdout until stdin ends, and returns the exit code. The team's cmd/units
// calls it; the tests run it as the program "units-server" in scenarios.
func ServeMain() int {
	if err := NewServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "units-server:", err)
		return 1
	}
	return 0
}
