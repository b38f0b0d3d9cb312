package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Media the suite expects in image and audio content: a 1x1 PNG and a
// silent WAV file, as in the suite's own example servers.
var (
	pngData = mustBase64("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
	wavData = mustBase64("UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=")
)

func mustBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// noArgs is the input schema of a tool without arguments.
var noArgs = json.RawMessage(`{"type":"object"}`)

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// fixed returns a handler that always returns res.
func fixed(res func() *mcp.CallToolResult) server.ToolHandler {
	return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res(), nil }
}

// registerTools publishes the tools of the suite's tools-* scenarios.
func registerTools(srv *server.Server) error {
	plain := []struct {
		name, desc string
		h          server.ToolHandler
	}{
		{"test_simple_text", "Returns a simple text content response.", fixed(func() *mcp.CallToolResult {
			return text("This is a simple text response for testing.")
		})},
		{"test_image_content", "Returns an image content response.", fixed(func() *mcp.CallToolResult {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: pngData, MIMEType: "image/png"}}}
		})},
		{"test_audio_content", "Returns an audio content response.", fixed(func() *mcp.CallToolResult {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: wavData, MIMEType: "audio/wav"}}}
		})},
		{"test_embedded_resource", "Returns an embedded resource content response.", fixed(func() *mcp.CallToolResult {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
				URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource",
			}}}}
		})},
		{"test_multiple_content_types", "Returns text, image and embedded resource content together.", fixed(func() *mcp.CallToolResult {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "This is text content"},
				&mcp.ImageContent{Data: pngData, MIMEType: "image/png"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
					URI: "test://embedded-in-multiple", MIMEType: "text/plain", Text: "This is an embedded resource",
				}},
			}}
		})},
		{"test_tool_with_logging", "Sends three log messages while it runs.", withLogging},
		{"test_tool_with_progress", "Reports progress three times while it runs.", withProgress},
		{"test_error_handling", "Always fails, to test tool error reporting.", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("this tool intentionally returns an error for testing")
		}},
		{"test_elicitation_sep1034_defaults", "Asks the user for input whose schema has defaults (SEP-1034).", elicitDefaults},
		{"test_elicitation_sep1330_enums", "Asks the user for input whose schema has enums (SEP-1330).", elicitEnums},
		{"test_reconnection", "Closes its response stream before it answers, so that the client resumes (SEP-1699).", reconnection},
	}
	for _, t := range plain {
		if err := srv.RegisterTool(&mcp.Tool{Name: t.name, Description: t.desc, InputSchema: noArgs}, t.h); err != nil {
			return err
		}
	}
	if err := srv.RegisterTool(&mcp.Tool{
		Name:        "json_schema_2020_12_tool",
		Description: "Publishes an input schema with JSON Schema 2020-12 features (SEP-1613, SEP-2106).",
		InputSchema: json.RawMessage(schema202012),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text(fmt.Sprintf("JSON Schema 2020-12 tool called with: %s", req.Params.Arguments)), nil
	}); err != nil {
		return err
	}
	if err := server.RegisterToolFor(srv, &mcp.Tool{
		Name:        "test_sampling",
		Description: "Asks the client's model to complete a prompt (sampling).",
	}, sampling); err != nil {
		return err
	}
	return server.RegisterToolFor(srv, &mcp.Tool{
		Name:        "test_elicitation",
		Description: "Asks the user for a username (elicitation).",
	}, elicitUsername)
}

// schema202012 uses the JSON Schema 2020-12 features the suite looks for,
// which tools/list must publish verbatim: $schema, $defs and $ref,
// additionalProperties (SEP-1613), $anchor, allOf/anyOf and if/then/else
// (SEP-2106).
const schema202012 = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"$defs": {
		"address": {
			"$anchor": "addressDef",
			"type": "object",
			"properties": {"street": {"type": "string"}, "city": {"type": "string"}}
		}
	},
	"properties": {
		"name": {"type": "string"},
		"address": {"$ref": "#/$defs/address"},
		"contactMethod": {"type": "string", "enum": ["phone", "email"]},
		"phone": {"type": "string"},
		"email": {"type": "string"}
	},
	"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
	"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
	"then": {"required": ["phone"]},
	"else": {"required": ["email"]},
	"additionalProperties": false
}`

func withLogging(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	for _, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerSession.Log, mcp.LoggingMessageParams
		if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: msg}); err != nil {
			return nil, fmt.Errorf("logging: %w", err)
		}
	}
	return text("Tool with logging executed successfully"), nil
}

func withProgress(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	token := req.Params.GetProgressToken()
	if token != nil {
		for _, p := range []float64{0, 50, 100} {
			err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: p, Total: 100, Message: fmt.Sprintf("Completed step %.0f of 100", p),
			})
			if err != nil {
				return nil, fmt.Errorf("progress: %w", err)
			}
		}
	}
	return text(fmt.Sprint(token)), nil
}

// reconnection closes the call's response stream, asking the client to
// come back after 10 ms; the result, written after, is kept in the event
// store and replayed when the client resumes with Last-Event-ID.
func reconnection(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if req.Extra != nil && req.Extra.CloseSSEStream != nil {
		req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: 10 * time.Millisecond})
	}
	return text("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."), nil
}

// The tools below need the user. Each is written once, as this module's
// server package asks: it returns an input-required result and finishes
// when the call continues with the answer. On 2025-11-25 the server asks
// the client with a server-to-client request during the call; on
// 2026-07-28 the client continues the call.

type samplingIn struct {
	Prompt string `json:"prompt" jsonschema:"The prompt to send to the LLM"`
}

func sampling(_ context.Context, req *mcp.CallToolRequest, in samplingIn) (*mcp.CallToolResult, any, error) {
	if res, ok := server.SamplingResponse(req.Params.InputResponses, "completion"); ok {
		return text("LLM response: " + firstText(res.Content)), nil, nil
	}
	//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageParams
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"completion": &mcp.CreateMessageParams{
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.SamplingMessage
		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Prompt}}},
		MaxTokens: 100,
	}}}, nil, nil
}

// firstText is the text of the first text content, or "(non-text
// response)".
func firstText(cs []mcp.Content) string {
	for _, c := range cs {
		if tc, ok := c.(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	return "(non-text response)"
}

type elicitIn struct {
	Message string `json:"message" jsonschema:"The message to show the user"`
}

func elicitUsername(_ context.Context, req *mcp.CallToolRequest, in elicitIn) (*mcp.CallToolResult, any, error) {
	return elicit(req, in.Message, map[string]any{
		"type": "object",
		"properties": map[string]any{
			"username": map[string]any{"type": "string", "description": "Your preferred username"},
		},
		"required": []string{"username"},
	}), nil, nil
}

func elicitDefaults(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return elicit(req, "Test defaults for primitives", map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
			"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
			"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
			"status":   map[string]any{"type": "string", "description": "User status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
			"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
		},
	}), nil
}

func elicitEnums(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	titled := []map[string]any{
		{"const": "value1", "title": "First Option"},
		{"const": "value2", "title": "Second Option"},
		{"const": "value3", "title": "Third Option"},
	}
	options := []string{"option1", "option2", "option3"}
	return elicit(req, "Test enum schemas", map[string]any{
		"type": "object",
		"properties": map[string]any{
			"untitledSingle": map[string]any{"type": "string", "enum": options},
			"titledSingle":   map[string]any{"type": "string", "oneOf": titled},
			"legacyEnum": map[string]any{"type": "string", "enum": []string{"opt1", "opt2", "opt3"},
				"enumNames": []string{"Option One", "Option Two", "Option Three"}},
			"untitledMulti": map[string]any{"type": "array", "minItems": 1, "maxItems": 3,
				"items": map[string]any{"type": "string", "enum": options}},
			"titledMulti": map[string]any{"type": "array", "minItems": 1, "maxItems": 3,
				"items": map[string]any{"type": "string", "anyOf": titled}},
		},
	}), nil
}

// elicit asks the user for input of the given schema, and reports the
// answer as text once the call continues with it.
func elicit(req *mcp.CallToolRequest, message string, schema map[string]any) *mcp.CallToolResult {
	if res, ok := server.ElicitResponse(req.Params.InputResponses, "input"); ok {
		return text(fmt.Sprintf("Elicitation result: action=%s, content=%v", res.Action, res.Content))
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"input": &mcp.ElicitParams{Message: message, RequestedSchema: schema}}}
}
