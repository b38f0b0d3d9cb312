package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// registerTasks publishes the fixtures of the suite's tasks-* scenarios
// (the tasks extension, SEP-2663): greet runs in the request; the others
// run as tasks for a client that declares the extension.
func registerTasks(srv *server.Server) error {
	if err := server.RegisterToolFor(srv, &mcp.Tool{Name: "greet", Description: "Greets by name, in the request."},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Name string `json:"name"`
		}) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprintf("Hello, %s!", in.Name)), nil, nil
		}); err != nil {
		return err
	}
	slow := map[string]any{"type": "object", "properties": map[string]any{
		"seconds": map[string]any{"type": "number", "minimum": 0},
		"label":   map[string]any{"type": "string"},
	}}
	filename := map[string]any{"type": "object", "properties": map[string]any{"filename": map[string]any{"type": "string"}}}
	tools := []struct {
		name, desc string
		schema     any
		h          server.ToolHandler
		opts       *server.TaskToolOptions
	}{
		{"slow_compute", "Waits the given seconds, then answers; a task when the client allows.", slow, slowCompute, nil},
		{"failing_job", "Fails as a tool after a moment; only as a task.", noArgs, failingJob, &server.TaskToolOptions{Required: true}},
		{"protocol_error_job", "Panics: its task fails.", noArgs, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			panic("protocol_error_job always panics")
		}, nil},
		{"confirm_delete", "Asks the user to confirm, then answers.", filename, confirmDelete, nil},
		{"multi_input", "Asks two questions at once, then answers.", noArgs, multiInput, nil},
		{"test_tool_with_task", "Asks for a name in the request, then runs as a task.", noArgs, askNameThenTask, &server.TaskToolOptions{Required: true, InputFirst: true}},
	}
	for _, t := range tools {
		if err := srv.RegisterTaskTool(&mcp.Tool{Name: t.name, Description: t.desc, InputSchema: t.schema}, t.h, t.opts); err != nil {
			return err
		}
	}
	return nil
}

// wait waits d, or until ctx ends.
func wait(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

func slowCompute(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Seconds float64 `json:"seconds"`
		Label   string  `json:"label"`
	}
	if len(req.Params.Arguments) > 0 {
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
	}
	if err := wait(ctx, time.Duration(in.Seconds*float64(time.Second))); err != nil {
		return nil, err
	}
	return text(fmt.Sprintf("computed %s after %vs", in.Label, in.Seconds)), nil
}

func failingJob(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := wait(ctx, 500*time.Millisecond); err != nil {
		return nil, err
	}
	return nil, errors.New("failing_job always fails")
}

var confirmRequest = &mcp.ElicitParams{Message: "Delete the file?", RequestedSchema: objectSchema("confirm", "boolean")}

func confirmDelete(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if r, ok := server.ElicitResponse(req.Params.InputResponses, "confirm"); ok {
		return text("delete: " + r.Action), nil
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"confirm": confirmRequest}}, nil
}

func multiInput(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, okA := server.ElicitResponse(req.Params.InputResponses, "first")
	b, okB := server.ElicitResponse(req.Params.InputResponses, "second")
	if okA && okB {
		return text(fmt.Sprintf("first: %s, second: %s", a.Action, b.Action)), nil
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
		"first":  &mcp.ElicitParams{Message: "First question?", RequestedSchema: objectSchema("name", "string")},
		"second": &mcp.ElicitParams{Message: "Second question?", RequestedSchema: objectSchema("name", "string")},
	}}, nil
}

// askNameThenTask asks for a name in the request (an input-required
// result); the call that answers it is the task, whose result names it.
func askNameThenTask(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if name := acceptedString(req.Params.InputResponses, "user_name", "name"); name != "" {
		return text(fmt.Sprintf("Hello, %s, from a task!", name)), nil
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"user_name": nameRequest}}, nil
}
