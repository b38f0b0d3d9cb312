package server

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/looprig/mcp/internal/wire"
	"github.com/looprig/mcp/protocol"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Over Server.Serve (ServeStdio, a transport of the caller's) and
// Server.Factory, the session's connection answers the tasks/* requests of
// 2026-07-28 itself (the go-sdk would refuse them as unknown methods), and
// a task tool's handler wrapper marks the result of a call that started a
// task with the task (taskMarker in its _meta): the connection sends the
// task in the result's place. Such a session has no principal: its tasks
// are the server's process's. (HTTPHandler answers tasks/* from the bodies
// it reads instead, with the principal of each request.)

// connTasksKey marks the context of a session whose connection serves
// tasks.
type connTasksKey struct{}

// taskMarker is the _meta key under which a call's result carries the
// task it started, for the connection to send instead.
const taskMarker = "looprig.mcp/created-task"

// withTasks returns t, whose connections serve the tasks of s, and ctx
// marked for them; t itself when s offers no tasks.
func (s *Server) withTasks(ctx context.Context, t mcp.Transport) (context.Context, mcp.Transport) {
	if s.tasks == nil {
		return ctx, t
	}
	ctx = context.WithValue(ctx, connTasksKey{}, true)
	return ctx, &taskTransport{t: t, s: s, ctx: ctx}
}

type taskTransport struct {
	t   mcp.Transport
	s   *Server
	ctx context.Context // the session's
}

func (t *taskTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &taskConn{Connection: c, s: t.s, ctx: t.ctx}, nil
}

// A taskConn is a session's connection that serves its tasks.
type taskConn struct {
	mcp.Connection
	s   *Server
	ctx context.Context // the session's
}

// Read hands the go-sdk every message but a 2026-07-28 tasks/* request,
// which it answers.
func (c *taskConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		m, err := c.Connection.Read(ctx)
		if err != nil {
			return m, err
		}
		r, ok := m.(*jsonrpc.Request)
		if !ok || !r.IsCall() || !isTaskMethod(r.Method) || wire.ProtocolVersion(r.Params) != protocol.Revision20260728 {
			return m, nil
		}
		var resp *jsonrpc.Response
		var p taskParams
		if err := wire.Unmarshal(r.Params, &p); err != nil {
			resp = &jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: r.Method + ": params: " + err.Error()}}
		} else {
			resp = c.s.answerTask(c.ctx, r, &p, "")
		}
		if err := c.Connection.Write(ctx, resp); err != nil {
			return nil, err
		}
	}
}

// Write sends a started task in its call's result's place.
func (c *taskConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if resp, ok := m.(*jsonrpc.Response); ok {
		m = startedTask(resp)
	}
	return c.Connection.Write(ctx, m)
}

// Unwrap returns the connection c wraps (transport.As).
func (c *taskConn) Unwrap() mcp.Connection { return c.Connection }

// markedTask returns the result that carries created for the connection
// to send in its place.
func markedTask(created json.RawMessage) *mcp.CallToolResult {
	return &mcp.CallToolResult{Meta: mcp.Meta{taskMarker: created}, Content: []mcp.Content{}}
}

// startedTask returns resp with a result that carries a started task
// replaced by that task, or resp itself.
func startedTask(resp *jsonrpc.Response) *jsonrpc.Response {
	if resp.Error != nil || !bytes.Contains(resp.Result, []byte(taskMarker)) {
		return resp
	}
	var res struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(resp.Result, &res) != nil || res.Meta[taskMarker] == nil {
		return resp
	}
	return &jsonrpc.Response{ID: resp.ID, Result: res.Meta[taskMarker]}
}

// A taskFactory is Server.Factory for a server with tasks: each
// connection is a new session whose connection serves them.
type taskFactory struct{ s *Server }

func (taskFactory) Kind() transport.Kind { return transport.KindInProcess }

func (f taskFactory) Transport() (mcp.Transport, error) { return taskPipe(f), nil }

type taskPipe struct{ s *Server }

func (p taskPipe) Connect(ctx context.Context) (mcp.Connection, error) {
	client, srv := inprocess.Pipe()
	// The session outlives the connecting context, as inprocess.New's.
	sctx, st := p.s.withTasks(context.WithoutCancel(ctx), srv)
	if _, err := p.s.mcp.Connect(sctx, st, nil); err != nil {
		return nil, err
	}
	return client.Connect(ctx)
}
