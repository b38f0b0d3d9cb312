package downstream_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"example.com/downstream"
	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// weather is a fake of the weather server the agent talks to in
// production: the one tool it calls, with a deterministic reply.
var weather = &fakeserver.Catalog{
	Name: "weather",
	Tools: []fakeserver.Tool{{
		Name:        "get_weather",
		Description: "The weather in a city, today.",
		InputSchema: `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
		Reply: func(_ context.Context, c *fakeserver.Call) (*mcp.CallToolResult, error) {
			var in struct{ City string }
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny in " + in.City}}}, nil
		},
	}},
}

// The agent against its own fake, on every transport, with the failures
// production will bring: whatever happens to one city's call, the agent
// reports it with its class, calls the tool once per city (never again to
// recover), and goes on with the next.
func TestForecastSurvivesFaults(t *testing.T) {
	mcptest.LeakCheck(t)
	const tool = "get_weather"
	starts := map[string]func(t testing.TB, f []fakeserver.Fault) *mcptest.Fake{
		"inprocess": func(t testing.TB, f []fakeserver.Fault) *mcptest.Fake {
			return mcptest.InProcess(t, &mcptest.InProcessOptions{Custom: weather, Faults: f})
		},
		"stdio": func(t testing.TB, f []fakeserver.Fault) *mcptest.Fake {
			return mcptest.Stdio(t, &mcptest.StdioOptions{Custom: weather, Faults: f})
		},
		"http": func(t testing.TB, f []fakeserver.Fault) *mcptest.Fake {
			return mcptest.HTTP(t, &mcptest.HTTPOptions{Custom: weather, Faults: f})
		},
	}
	tests := []struct {
		transport string
		fault     fakeserver.Fault
		first     string // what the agent says of the first city
		calls     int    // get_weather executions at the fake
	}{
		{"inprocess", fakeserver.Fault{}, "sunny in Oslo", 2},
		{"inprocess", fakeserver.Fault{Kind: fakeserver.FaultError, Tool: tool, Message: "rate limited"}, "unavailable (tool)", 2},
		{"inprocess", fakeserver.Fault{Kind: fakeserver.FaultDelay, Tool: tool, Delay: time.Millisecond}, "sunny in Oslo", 2},
		{"stdio", fakeserver.Fault{}, "sunny in Oslo", 2},
		{"stdio", fakeserver.Fault{Kind: fakeserver.FaultCrash, Tool: tool}, "unavailable (server)", 1}, // the server is gone
		{"http", fakeserver.Fault{}, "sunny in Oslo", 2},
		{"http", fakeserver.Fault{Kind: fakeserver.FaultDropNoID, Tool: tool}, "unavailable (transport)", 2},
		{"http", fakeserver.Fault{Kind: fakeserver.FaultUnauthorized, Tool: tool}, "unavailable (auth)", 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s", tt.transport, tt.fault), func(t *testing.T) {
			var faults []fakeserver.Fault
			if tt.fault.Kind != "" {
				faults = []fakeserver.Fault{tt.fault}
			}
			fake := starts[tt.transport](t, faults)
			c := fake.Client(nil)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			got := downstream.Forecast(ctx, c, "Oslo", "Rome")
			if diff := cmp.Diff("Oslo: "+tt.first, got[0]); diff != "" {
				t.Errorf("first city mismatch (-want +got):\n%s", diff)
			}
			if n := fake.Counts().Executions[tool]; n != tt.calls {
				t.Errorf("get_weather ran %d times, want %d", n, tt.calls)
			}
		})
	}
}

// A call of a tool the catalog does not have never leaves the client.
func TestForecastUnknownTool(t *testing.T) {
	fake := mcptest.InProcess(t, nil) // the docs profile: no get_weather
	got := downstream.Forecast(t.Context(), fake.Client(nil), "Oslo")
	if diff := cmp.Diff([]string{"Oslo: unavailable (" + client.ErrUnknownTool.Error() + ")"}, got); diff != "" {
		t.Errorf("Forecast mismatch (-want +got):\n%s", diff)
	}
}
