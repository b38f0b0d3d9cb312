package stdio_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A go-sdk client talks to a go-sdk server in a child through the factory.
func TestMCPRoundTrip(t *testing.T) {
	leakcheck.Check(t)
	ctx := context.Background()
	tr, err := newFactory(t, "serve", nil).Transport()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if diff := cmp.Diff([]string{"echo"}, names); diff != "" {
		t.Errorf("tools mismatch (-want +got):\n%s", diff)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "hello" {
		t.Errorf("echo = %q, want %q", got, "hello")
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
}
