package quickstart_test

import (
	"errors"
	"testing"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Quick start 2: a fake with faults in a test.

var weather = &fakeserver.Catalog{Name: "weather", Tools: []fakeserver.Tool{{
	Name:        "get_weather",
	InputSchema: `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`,
	Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	Reply:       fakeserver.Sequence(fakeserver.Text("sunny"), fakeserver.Error("rate limited")),
}}}

func TestMain(m *testing.M) {
	mcptest.Main(m, &mcptest.MainOptions{Catalogs: []*fakeserver.Catalog{weather}}) // so a stdio child serves it too
}

func TestAgentRetriesNothing(t *testing.T) {
	mcptest.LeakCheck(t)                            // no goroutine, child process or session left behind
	fake := mcptest.Stdio(t, &mcptest.StdioOptions{ // or InProcess, or HTTP
		Custom: weather,
		Faults: []fakeserver.Fault{{Kind: fakeserver.FaultCrash, Tool: "get_weather"}},
	})
	c := fake.Client(nil)
	_, err := c.CallTool(t.Context(), "get_weather", map[string]any{"city": "Oslo"})
	var e *client.Error
	if !errors.As(err, &e) || e.Class != client.ClassServer {
		t.Fatalf("CallTool: %v, want a *client.Error of class server", err)
	}
	if n := fake.Counts().Executions["get_weather"]; n != 1 {
		t.Errorf("get_weather ran %d times, want 1", n)
	}
}

// The scripted replies, call by call, on a fake with no fault.
func TestSequenceReplies(t *testing.T) {
	fake := mcptest.InProcess(t, &mcptest.InProcessOptions{Custom: weather})
	c := fake.Client(nil)
	res, err := c.CallTool(t.Context(), "get_weather", map[string]any{"city": "Oslo"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "sunny" {
		t.Errorf("first reply %q, want sunny", got)
	}
	_, err = c.CallTool(t.Context(), "get_weather", map[string]any{"city": "Oslo"})
	if e, ok := errors.AsType[*client.Error](err); !ok || e.Class != client.ClassTool {
		t.Errorf("second call: %v, want a *client.Error of class tool", err)
	}
}
