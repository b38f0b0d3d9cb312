package downstream_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A session with a real server, @modelcontextprotocol/server-everything,
// recorded once (MCPRIG_RECORD=1 go test -run TestEverythingReplayed, with
// npx on PATH) and replayed here with no server and no Node.js: CI=true
// go test replays it, and fails if the cassette is missing.
func TestEverythingReplayed(t *testing.T) {
	mcptest.LeakCheck(t)
	f, err := stdio.New("npx", []string{"-y", "@modelcontextprotocol/server-everything", "stdio"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	live := client.Definition{Name: "everything", Transport: f}
	c := mcptest.Connect(t, mcptest.Cassette(t, "testdata/everything.cassette", live, nil), nil)
	if c.ProtocolVersion() != "2025-11-25" {
		t.Errorf("recorded protocol %q", c.ProtocolVersion())
	}
	res, err := c.CallTool(t.Context(), "echo", map[string]any{"message": "hello from mcprig"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("Echo: hello from mcprig", res.Content[0].(*mcp.TextContent).Text); diff != "" {
		t.Errorf("echo mismatch (-want +got):\n%s", diff)
	}
	if _, err := c.CallTool(t.Context(), "get-sum", map[string]any{"a": 2, "b": 3}); err != nil {
		t.Fatal(err)
	}
}
