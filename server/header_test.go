package server

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRegisterToolParamHeaders gives each x-mcp-header rule its accepted
// and refused cases, and checks the go-sdk agrees: it lists every tool
// RegisterTool accepts, and refuses (panics) or leaves out every tool
// RegisterTool refuses.
func TestRegisterToolParamHeaders(t *testing.T) {
	for _, tt := range []struct {
		name, props string
		ok          bool
	}{
		{"string", `"a":{"type":"string","x-mcp-header":"Region"}`, true},
		{"integer", `"a":{"type":"integer","x-mcp-header":"Level"}`, true},
		{"boolean", `"a":{"type":"boolean","x-mcp-header":"Dry-Run"}`, true},
		{"token characters", `"a":{"type":"string","x-mcp-header":"A1!#$%&'*+-.^_|~"}`, true},
		{"nested", `"a":{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"B"}}}`, true},
		{"two headers", `"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":"B"}`, true},
		{"number", `"a":{"type":"number","x-mcp-header":"A"}`, false},
		{"object", `"a":{"type":"object","x-mcp-header":"A"}`, false},
		{"no type", `"a":{"x-mcp-header":"A"}`, false},
		{"empty name", `"a":{"type":"string","x-mcp-header":""}`, false},
		{"name not a string", `"a":{"type":"string","x-mcp-header":7}`, false},
		{"space in name", `"a":{"type":"string","x-mcp-header":"Re gion"}`, false},
		{"colon in name", `"a":{"type":"string","x-mcp-header":"Re:gion"}`, false},
		{"duplicate ignoring case", `"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"REGION"}`, false},
		{"nested duplicate", `"a":{"type":"string","x-mcp-header":"A"},"o":{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"a"}}}`, false},
	} {
		schema := json.RawMessage(`{"type":"object","properties":{` + tt.props + `}}`)
		s := newServer(t, "docs", "v1", nil)
		err := s.RegisterTool(&mcp.Tool{Name: "t", InputSchema: schema}, lookup)
		if tt.ok && err != nil {
			t.Errorf("%s: RegisterTool = %v, want success", tt.name, err)
		}
		if !tt.ok && !errors.Is(err, ErrInvalidDefinition) {
			t.Errorf("%s: RegisterTool = %v, want ErrInvalidDefinition", tt.name, err)
		}
		// The go-sdk's own rule: its AddTool panics (which RegisterTool now
		// spares its callers), or its tools/list leaves the tool out.
		raw := newServer(t, "docs", "v1", nil)
		if !addsTool(raw.MCP(), &mcp.Tool{Name: "t", InputSchema: schema}) {
			if tt.ok {
				t.Errorf("%s: the go-sdk refuses the tool RegisterTool accepts", tt.name)
			}
			continue
		}
		res, err := connect(t, raw).ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		listed := slices.ContainsFunc(res.Tools, func(tool *mcp.Tool) bool { return tool.Name == "t" })
		if listed != tt.ok {
			t.Errorf("%s: the go-sdk lists the tool: %v; RegisterTool accepts it: %v", tt.name, listed, tt.ok)
		}
	}
}

// addsTool reports whether the go-sdk's AddTool takes t without panicking.
func addsTool(s *mcp.Server, t *mcp.Tool) (ok bool) {
	defer func() { ok = recover() == nil }()
	s.AddTool(t, lookup)
	return true
}
