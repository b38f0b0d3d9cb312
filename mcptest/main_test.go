package mcptest_test

import (
	"context"
	"testing"

	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
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

func TestMain(m *testing.M) {
	mcptest.Main(m, &mcptest.MainOptions{Catalogs: []*fakeserver.Catalog{weather}})
}
