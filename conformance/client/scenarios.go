package main

import (
	"context"
	"fmt"

	"github.com/looprig/mcp/client"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// scenarios are the suite's client scenarios this program plays, by name.
var scenarios = map[string]scenario{
	"initialize":                          {run: connectOnly},
	"tools_call":                          {run: toolsCall},
	"elicitation-sep1034-client-defaults": {run: elicitationDefaults},
	// The suite's sse-retry server answers initialize with protocol
	// 2025-03-26 whatever the client offers, and the client pins the
	// revision it negotiates, so this scenario offers 2025-03-26.
	"sse-retry":                        {profile: client.Profile20250326, run: sseRetry},
	"json-schema-ref-no-deref":         {run: connectOnly},
	"json-schema-2020-12-preservation": {run: jsonSchemaPreservation},
}

func init() {
	for _, name := range authScenarios {
		scenarios[name] = scenario{profile: authProfiles[name], run: oauthFlow}
	}
}

// connectOnly connects, which discovers the catalog (tools/list, and
// resources and prompts when offered), and closes.
func connectOnly(ctx context.Context, r *runner) error {
	c, err := r.connect(ctx, nil)
	if err != nil {
		return err
	}
	return c.Close()
}

// toolsCall calls add_numbers once.
func toolsCall(ctx context.Context, r *runner) error {
	return callOnce(ctx, r, nil, "add_numbers", map[string]any{"a": 5, "b": 3})
}

// elicitationDefaults accepts the server's elicitation with no content, so
// that the go-sdk fills in the schema's defaults (SEP-1034).
func elicitationDefaults(ctx context.Context, r *runner) error {
	h := &client.Handlers{
		Elicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		},
	}
	return callOnce(ctx, r, h, "test_client_elicitation_defaults", map[string]any{})
}

// sseRetry calls a tool whose response stream the server closes early; the
// transport resumes it with Last-Event-ID after the server's retry delay.
func sseRetry(ctx context.Context, r *runner) error {
	return callOnce(ctx, r, nil, "test_reconnection", map[string]any{})
}

// jsonSchemaPreservation echoes the focal tool's input schema, as the
// catalog holds it, back through json_schema_echo, so the suite sees which
// JSON Schema 2020-12 keywords survived discovery.
func jsonSchemaPreservation(ctx context.Context, r *runner) error {
	c, err := r.connect(ctx, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	const focal = "json_schema_2020_12_tool"
	tool := c.Catalog().Tool(focal)
	if tool == nil {
		return fmt.Errorf("tool %q not in the catalog", focal)
	}
	if _, err := r.call(ctx, c, "json_schema_echo", map[string]any{"schema": tool.InputSchema}); err != nil {
		return err
	}
	return c.Close()
}

// callOnce connects with h, calls the named tool and closes.
func callOnce(ctx context.Context, r *runner, h *client.Handlers, tool string, args any) error {
	c, err := r.connect(ctx, h)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := r.call(ctx, c, tool, args); err != nil {
		return err
	}
	return c.Close()
}
