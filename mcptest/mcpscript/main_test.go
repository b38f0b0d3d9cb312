package mcpscript_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest/mcpscript"
	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// weather is a user-defined fake, registered through Main so that the
// test binary re-run as a stdio child serves it too.
var weather = &fakeserver.Catalog{
	Name: "weather",
	Tools: []fakeserver.Tool{
		{
			Name:        "get_weather",
			InputSchema: `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`,
			Reply: func(_ context.Context, c *fakeserver.Call) (*mcp.CallToolResult, error) {
				var in struct{ City string }
				if err := c.Decode(&in); err != nil {
					return nil, err
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny in " + in.City}}}, nil
			},
		},
		{
			Name: "confirm",
			// Asks the user first: two rounds, one execution.
			Reply: func(_ context.Context, c *fakeserver.Call) (*mcp.CallToolResult, error) {
				res, ok := c.InputResponses["ok"].(*mcp.ElicitResult)
				if !ok {
					return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"ok": &mcp.ElicitParams{
						Message: "go ahead?", RequestedSchema: map[string]any{"type": "object"},
					}}}, nil
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "confirmed: " + res.Action}}}, nil
			},
		},
	},
	Resources: []fakeserver.Resource{{URI: "weather://today", Text: "rain"}},
	Prompts:   []fakeserver.Prompt{{Name: "forecast", Text: "Forecast {{city}}."}},
}

// weatherServer is a user's own MCP server program, run by scripts as
// `connect w stdio weather-server`.
func weatherServer() int {
	srv, err := server.New("weather-server", "v0", nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	err = server.RegisterToolFor(srv, &mcp.Tool{Name: "get_weather"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		City string `json:"city"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "cloudy in " + in.City}}}, nil, nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if len(os.Args) > 1 && os.Args[1] == "--fail" {
		fmt.Fprintln(os.Stderr, "weather-server: refusing to start (--fail)")
		return 3
	}
	if err := srv.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func TestMain(m *testing.M) {
	mcpscript.Main(m, &mcpscript.MainOptions{
		Catalogs: []*fakeserver.Catalog{weather},
		Programs: map[string]func() int{"weather-server": weatherServer},
	})
}
