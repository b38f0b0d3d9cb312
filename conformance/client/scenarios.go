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
	// request-metadata: every request's _meta and Mcp-Protocol-Version, and
	// the retry with a supported version after -32022: the go-sdk's
	// negotiation, which Connect drives.
	"request-metadata":              {run: connectOnly},
	"sep-2322-client-request-state": {run: requestState},
	"http-standard-headers":         {run: standardHeaders},
	"http-custom-headers":           {run: customHeaders},
	"http-invalid-tool-headers":     {run: invalidToolHeaders},
}

func init() {
	for _, name := range authScenarios {
		scenarios[name] = scenario{profile: authProfiles[name], run: oauthFlow}
	}
	scenarios["auth/client-credentials-basic"] = scenario{run: clientCredentials}
	scenarios["auth/client-credentials-jwt"] = scenario{run: clientCredentials}
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

// requestState calls the suite's multi round-trip tools with an
// elicitation handler that confirms. A tool the suite expects the client to
// refuse is logged, not fatal: the suite judges what reached it.
func requestState(ctx context.Context, r *runner) error {
	h := &client.Handlers{
		Elicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirmed": true}}, nil
		},
	}
	c, err := r.connect(ctx, h)
	if err != nil {
		return err
	}
	defer c.Close()
	for _, tool := range []string{"test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"} {
		if _, err := r.call(ctx, c, tool, map[string]any{}); err != nil {
			r.log.Printf("%s: %v", tool, err)
		}
	}
	return c.Close()
}

// standardHeaders calls the first tool, reads the first resource and gets
// the first prompt, so that the suite sees Mcp-Method and Mcp-Name on each.
func standardHeaders(ctx context.Context, r *runner) error {
	c, err := r.connect(ctx, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	cat := c.Catalog()
	if len(cat.Tools) > 0 {
		if _, err := r.call(ctx, c, cat.Tools[0].Name, map[string]any{}); err != nil {
			r.log.Printf("%s: %v", cat.Tools[0].Name, err)
		}
	}
	if len(cat.Resources) > 0 {
		if _, err := c.ReadResource(ctx, cat.Resources[0].URI); err != nil {
			r.log.Printf("%s: %v", cat.Resources[0].URI, err)
		}
	}
	if len(cat.Prompts) > 0 {
		if _, err := c.GetPrompt(ctx, cat.Prompts[0].Name, map[string]string{}); err != nil {
			r.log.Printf("%s: %v", cat.Prompts[0].Name, err)
		}
	}
	return c.Close()
}

// customHeaders makes the tool calls the suite names in its context
// ({"toolCalls": [{"name": ..., "arguments": {...}}]}), whose Mcp-Param-*
// headers it checks.
func customHeaders(ctx context.Context, r *runner) error {
	c, err := r.connect(ctx, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	calls, _ := r.context["toolCalls"].([]any)
	for _, raw := range calls {
		call, _ := raw.(map[string]any)
		name, _ := call["name"].(string)
		args, _ := call["arguments"].(map[string]any)
		if args == nil {
			args = map[string]any{}
		}
		if _, err := r.call(ctx, c, name, args); err != nil {
			r.log.Printf("%s: %v", name, err)
		}
	}
	return c.Close()
}

// invalidToolHeaders calls every tool the catalog kept: discovery leaves
// out the tools whose x-mcp-header annotations are invalid, and the suite
// checks that none of those was called.
func invalidToolHeaders(ctx context.Context, r *runner) error {
	c, err := r.connect(ctx, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	for _, tool := range c.Catalog().Tools {
		if _, err := r.call(ctx, c, tool.Name, map[string]any{"region": "us-west1"}); err != nil {
			r.log.Printf("%s: %v", tool.Name, err)
		}
	}
	return c.Close()
}
