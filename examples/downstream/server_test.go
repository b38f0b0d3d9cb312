package downstream_test

import (
	"context"
	"testing"
	"time"

	"example.com/downstream"
	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The team's own go-sdk server, in-process: it keeps the protocol's rules
// (CheckServer), publishes what the golden file says (go test -update
// rewrites it), and converts.
func TestServer(t *testing.T) {
	mcptest.LeakCheck(t)
	fake := mcptest.Wrap(t, downstream.NewServer(), nil)
	if err := mcptest.CheckServer(t.Context(), fake.Factory()); err != nil {
		t.Errorf("CheckServer:\n%v", err)
	}
	c := fake.Client(nil)
	mcptest.GoldenCatalog(t, "testdata/units.catalog.txtar", c.Catalog())
	res, err := c.CallTool(t.Context(), "convert", map[string]any{"value": 100, "from": "c"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"value": 212.0, "unit": "f"}, structured(t, res)); diff != "" {
		t.Errorf("convert mismatch (-want +got):\n%s", diff)
	}
}

// Under a fault the server's callers will meet (a slow tool), a client
// with a deadline gives up and the call ran once.
func TestServerUnderFaults(t *testing.T) {
	mcptest.LeakCheck(t)
	fake := mcptest.Wrap(t, downstream.NewServer(), &mcptest.WrapOptions{
		Faults: []fakeserver.Fault{{Kind: fakeserver.FaultHang, Tool: "convert"}},
	})
	c := fake.Client(nil)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.CallTool(ctx, "convert", map[string]any{"value": 1, "from": "c"}); err == nil {
		t.Fatal("a hung call returned")
	}
	if n := fake.Counts().Executions["convert"]; n != 1 {
		t.Errorf("convert ran %d times, want 1", n)
	}
}

func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	m, ok := res.StructuredContent.(map[string]any)
	if !ok {
		t.Fatalf("structured content %T, want an object", res.StructuredContent)
	}
	return m
}
