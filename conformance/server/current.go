package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file publishes what the suite's 2026-07-28 scenarios call for:
// the diagnostic tools of server-stateless (SEP-2575), a tool with an
// x-mcp-header argument (SEP-2243), and the tools and the prompt of the
// input-required-result scenarios (SEP-2322). The requestState integrity
// the tampered-state scenario asks for is the server package's: every
// state is sealed, and a tampered one is refused before a handler runs.

// registerCurrent publishes the tools and prompts of the 2026-07-28
// scenarios.
func registerCurrent(srv *server.Server) error {
	tools := []struct {
		name, desc string
		schema     json.RawMessage
		h          server.ToolHandler
	}{
		{"test_x_mcp_header", "Mirrors its region argument into the Mcp-Param-Region header (SEP-2243).", json.RawMessage(`{
			"type": "object",
			"properties": {
				"region": {"type": "string", "description": "mirrored into Mcp-Param-Region", "x-mcp-header": "Region"},
				"level": {"type": "integer", "description": "not mirrored"}
			}
		}`), func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Region string }
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			return text("region=" + in.Region), nil
		}},
		{"test_missing_capability", "Needs the client's sampling capability: a client that did not declare it gets -32021 (SEP-2575).", noArgs, needsSampling},
		{"test_streaming_elicitation", "Answers with a plain result: its response stream carries no request of its own (SEP-2575).", noArgs, fixed(func() *mcp.CallToolResult {
			return text("stream observed: result frames only, no top-level requests")
		})},
		{"test_logging_tool", "Logs a message, which reaches only a client that set _meta logLevel (SEP-2575).", noArgs, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerSession.Log, mcp.LoggingMessageParams
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "test_logging_tool executed"}); err != nil {
				return nil, fmt.Errorf("logging: %w", err)
			}
			return text("Log attempted; the server sends it only at the level the request set."), nil
		}},
		{"test_trigger_tool_change", "Changes the tool list, so that listen streams get tools/list_changed (SEP-2575).", noArgs, toggleTool(srv)},
		{"test_trigger_prompt_change", "Changes the prompt list, so that listen streams get prompts/list_changed (SEP-2575).", noArgs, togglePrompt(srv)},
		{"test_input_required_result_elicitation", "Asks for the caller's name (SEP-2322).", noArgs, askName},
		{"test_input_required_result_sampling", "Asks the client's model a question (SEP-2322).", noArgs, askModel},
		{"test_input_required_result_list_roots", "Asks for the client's roots (SEP-2322).", noArgs, askRoots},
		{"test_input_required_result_request_state", "Asks for a confirmation with a requestState (SEP-2322).", noArgs, confirm("request_state")},
		{"test_input_required_result_tampered_state", "Asks for a confirmation with a requestState, which the server seals (SEP-2322).", noArgs, confirm("tampered_state")},
		{"test_input_required_result_multiple_inputs", "Asks for a name, a completion and the roots in one round (SEP-2322).", noArgs, askAll},
		{"test_input_required_result_multi_round", "Asks twice, carrying the first answer in its requestState (SEP-2322).", noArgs, askTwice},
		{"test_input_required_result_capabilities", "Asks only for what the client's declared capabilities allow (SEP-2322).", noArgs, askWithinCapabilities},
	}
	for _, t := range tools {
		if err := srv.RegisterTool(&mcp.Tool{Name: t.name, Description: t.desc, InputSchema: t.schema}, t.h); err != nil {
			return err
		}
	}
	return srv.RegisterPrompt(&mcp.Prompt{
		Name:        "test_input_required_result_prompt",
		Description: "Asks for context before it renders (SEP-2322).",
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if r, ok := server.ElicitResponse(req.Params.InputResponses, "user_context"); ok && r.Action == "accept" {
			return &mcp.GetPromptResult{Description: "A prompt with elicited context", Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: fmt.Sprintf("Context: %v", r.Content["context"])}},
			}}, nil
		}
		return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{"user_context": &mcp.ElicitParams{
			Message:         "What context should the prompt use?",
			RequestedSchema: objectSchema("context", "string"),
		}}}, nil
	})
}

// objectSchema is the schema of an object with one required property.
func objectSchema(name, typ string) map[string]any {
	return map[string]any{
		"type":       "object",
		"properties": map[string]any{name: map[string]any{"type": typ}},
		"required":   []string{name},
	}
}

var nameRequest = &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: objectSchema("name", "string")}

//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageParams
func question(q string, maxTokens int64) *mcp.CreateMessageParams {
	//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageParams
	return &mcp.CreateMessageParams{
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.SamplingMessage
		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: q}}},
		MaxTokens: maxTokens,
	}
}

// acceptedString is the string property name of an accepted elicitation
// answer under key, or "".
func acceptedString(responses mcp.InputResponseMap, key, name string) string {
	r, ok := server.ElicitResponse(responses, key)
	if !ok || r.Action != "accept" {
		return ""
	}
	s, _ := r.Content[name].(string)
	return s
}

// needsSampling asks for a completion: the server refuses that, with
// -32021 naming sampling, when the client did not declare sampling.
func needsSampling(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if r, ok := server.SamplingResponse(req.Params.InputResponses, "probe"); ok {
		return text("sampled: " + firstText(r.Content)), nil
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"probe": question("Say anything.", 10)}}, nil
}

// askName asks for a name until an answer carries one.
func askName(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if name := acceptedString(req.Params.InputResponses, "user_name", "name"); name != "" {
		return text(fmt.Sprintf("Hello, %s!", name)), nil
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"user_name": nameRequest}}, nil
}

func askModel(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if r, ok := server.SamplingResponse(req.Params.InputResponses, "capital_question"); ok {
		return text("Sampling response: " + firstText(r.Content)), nil
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"capital_question": question("What is the capital of France?", 100)}}, nil
}

func askRoots(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if r, ok := server.RootsResponse(req.Params.InputResponses, "client_roots"); ok {
		uris := make([]string, len(r.Roots))
		for i, root := range r.Roots {
			uris[i] = root.URI
		}
		return text(fmt.Sprintf("Client exposed %d root(s): %s", len(r.Roots), strings.Join(uris, ", "))), nil
	}
	//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ListRootsParams
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"client_roots": &mcp.ListRootsParams{}}}, nil
}

// confirm asks for a confirmation with the requestState state, and
// finishes when the call continues with both.
func confirm(state string) server.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if r, ok := server.ElicitResponse(req.Params.InputResponses, "confirm"); ok && r.Action == "accept" && req.Params.RequestState == state {
			return text("state-ok: requestState received and confirmation accepted"), nil
		}
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Message: "Please confirm", RequestedSchema: objectSchema("ok", "boolean")}},
			RequestState:  state,
		}, nil
	}
}

func askAll(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	in := req.Params.InputResponses
	name := acceptedString(in, "user_name", "name")
	greeting, sampled := server.SamplingResponse(in, "greeting")
	roots, listed := server.RootsResponse(in, "client_roots")
	if name != "" && sampled && listed {
		return text(fmt.Sprintf("%s %s — %d root(s) visible", firstText(greeting.Content), name, len(roots.Roots))), nil
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{
			"user_name": nameRequest,
			"greeting":  question("Generate a greeting", 50),
			//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ListRootsParams
			"client_roots": &mcp.ListRootsParams{},
		},
		RequestState: "multiple_inputs",
	}, nil
}

// askTwice asks for a name, then a colour, keeping the name in its
// requestState: a stateless server remembers nothing between rounds.
func askTwice(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	state := req.Params.RequestState
	switch {
	case state == "":
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{"step1": &mcp.ElicitParams{Message: "Step 1: What is your name?", RequestedSchema: objectSchema("name", "string")}},
			RequestState:  "round=1",
		}, nil
	case state == "round=1":
		name := cmpOr(acceptedString(req.Params.InputResponses, "step1", "name"), "unknown")
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{"step2": &mcp.ElicitParams{Message: "Step 2: What is your favorite color?", RequestedSchema: objectSchema("color", "string")}},
			RequestState:  "round=2;name=" + name,
		}, nil
	default:
		color := cmpOr(acceptedString(req.Params.InputResponses, "step2", "color"), "unknown")
		return text(fmt.Sprintf("Multi-round complete: %s likes %s", strings.TrimPrefix(state, "round=2;name="), color)), nil
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// askWithinCapabilities asks for each kind of input the client declared a
// capability for, and for nothing else.
func askWithinCapabilities(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if len(req.Params.InputResponses) > 0 {
		return text("Capability-aware input requests fulfilled"), nil
	}
	caps := req.ClientCapabilities()
	if caps == nil {
		caps = &mcp.ClientCapabilities{}
	}
	reqs := mcp.InputRequestMap{}
	if caps.Elicitation != nil {
		reqs["user_name"] = nameRequest
	}
	//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.ClientCapabilities.Sampling
	if caps.Sampling != nil {
		reqs["greeting"] = question("Generate a short greeting", 50)
	}
	//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ClientCapabilities.RootsV2
	if caps.RootsV2 != nil {
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ListRootsParams
		reqs["client_roots"] = &mcp.ListRootsParams{}
	}
	if len(reqs) == 0 {
		return text("No declared client capability supports an in-band input request"), nil
	}
	return &mcp.CallToolResult{InputRequests: reqs}, nil
}

// toggleTool returns a handler that withdraws and publishes again a
// transient tool, so that the tool list changes on every call.
func toggleTool(srv *server.Server) server.ToolHandler {
	const name = "__transient_tool_for_list_changed"
	var mu sync.Mutex // calls toggle one at a time
	return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		mu.Lock()
		defer mu.Unlock()
		srv.RemoveTools(name)
		err := srv.RegisterTool(&mcp.Tool{Name: name, Description: "A tool that comes and goes.", InputSchema: noArgs}, fixed(func() *mcp.CallToolResult { return text("") }))
		if err != nil {
			return nil, err
		}
		return text("tools_list_changed published"), nil
	}
}

// togglePrompt is toggleTool for a prompt.
func togglePrompt(srv *server.Server) server.ToolHandler {
	const name = "__transient_prompt_for_list_changed"
	var mu sync.Mutex // calls toggle one at a time
	return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		mu.Lock()
		defer mu.Unlock()
		srv.RemovePrompts(name)
		err := srv.RegisterPrompt(&mcp.Prompt{Name: name, Description: "A prompt that comes and goes."}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
		if err != nil {
			return nil, err
		}
		return text("prompts_list_changed published"), nil
	}
}
