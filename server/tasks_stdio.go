package server

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/looprig/mcp/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Over ServeStdio the screen answers the tasks/* requests of 2026-07-28
// itself (the go-sdk would refuse them as unknown methods), and a task
// tool's handler wrapper marks the result of a call that started a task
// with the task (taskMarker in its _meta); the frame writer sends the task
// in the result's place. A stdio session has no principal: its tasks are
// the session's process's.

// stdioKey marks the context of a session served by ServeStdio.
type stdioKey struct{}

// taskMarker is the _meta key under which a stdio call's result carries
// the task it started, for the frame writer to send instead.
const taskMarker = "looprig.mcp/created-task"

// stdioTask answers the frame raw if it is a 2026-07-28 tasks/* request,
// returning the frame of the answer; nil leaves raw to the go-sdk.
func (s *Server) stdioTask(ctx context.Context, raw []byte) []byte {
	if s == nil || s.tasks == nil {
		return nil
	}
	msgs, batch, err := wire.ReadBatch(raw)
	if err != nil || batch || len(msgs) != 1 {
		return nil
	}
	r, ok := msgs[0].(*jsonrpc.Request)
	if !ok || !r.IsCall() || !isTaskMethod(r.Method) || wire.ProtocolVersion(r.Params) != "2026-07-28" {
		return nil
	}
	var resp *jsonrpc.Response
	var p taskParams
	if err := wire.Unmarshal(r.Params, &p); err != nil {
		resp = &jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: r.Method + ": params: " + err.Error()}}
	} else {
		resp = s.answerTask(ctx, r, &p, "")
	}
	b, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return nil
	}
	return append(b, '\n')
}

// markedTask returns the result that carries created for the frame writer
// to send in its place.
func markedTask(created json.RawMessage) *mcp.CallToolResult {
	return &mcp.CallToolResult{Meta: mcp.Meta{taskMarker: created}, Content: []mcp.Content{}}
}

// replaceMarkedTask returns frame with the result of a response that
// carries a started task replaced by that task, or frame itself.
func replaceMarkedTask(frame []byte) []byte {
	if !bytes.Contains(frame, []byte(taskMarker)) {
		return frame
	}
	msg, err := wire.DecodeMessage(bytes.TrimSpace(frame))
	if err != nil {
		return frame
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil {
		return frame
	}
	var res struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(resp.Result, &res) != nil || res.Meta[taskMarker] == nil {
		return frame
	}
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: resp.ID, Result: res.Meta[taskMarker]})
	if err != nil {
		return frame
	}
	return append(b, '\n')
}
