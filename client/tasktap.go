package client

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"sync"

	"github.com/looprig/mcp/internal/clientseam"
	"github.com/looprig/mcp/protocol"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file is how the client sees a tools/call answered with a task
// handle. The go-sdk v1.8.0 has no tasks support: it decodes the answer
// into a CallToolResult and drops the task's fields (taskId, status,
// pollIntervalMs, ttlMs). The client keeps the raw answer of each
// tools/call that opted into tasks, read below the go-sdk: through the
// transport's tap (clientseam.Tapper, Streamable HTTP) or by wrapping the
// connection (every other transport), keyed by the call's context. Nothing
// of JSON-RPC is re-implemented: the go-sdk still sends, reads and
// correlates every message.

// TasksExtension is the name of the tasks extension (SEP-2663), as
// declared in a request's client capabilities.
const TasksExtension = protocol.TasksExtension

// answerSlot receives the raw result of the one request sent with its
// context.
type answerSlot struct {
	mu  sync.Mutex // guards raw
	raw json.RawMessage
}

func (s *answerSlot) set(raw json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.raw == nil {
		s.raw = append(json.RawMessage(nil), raw...)
	}
}

func (s *answerSlot) get() json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.raw
}

type slotKey struct{}

// withSlot returns ctx carrying a new slot for the answer of the request
// sent with it, and the slot.
func withSlot(ctx context.Context) (context.Context, *answerSlot) {
	s := &answerSlot{}
	return context.WithValue(ctx, slotKey{}, s), s
}

func slotOf(ctx context.Context) *answerSlot {
	s, _ := ctx.Value(slotKey{}).(*answerSlot)
	return s
}

// tapMessage is the tap a clientseam.Tapper calls with a response.
func tapMessage(ctx context.Context, msg []byte) {
	if listenEnd(ctx) {
		return // a task listen's answer: it ended (tasklisten.go)
	}
	s := slotOf(ctx)
	if s == nil {
		return
	}
	var m struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(msg, &m) == nil && m.Result != nil {
		s.set(m.Result)
	}
}

// tapper returns the wrapper of the connection that fills answer slots. It
// returns nil when the transport taps its own connections
// (clientseam.Tapper). It also returns nil for the go-sdk's own Streamable
// HTTP transport: a wrapper would hide that connection's private hooks
// (see sdkConnection).
func (c *Client) tapper(tr mcp.Transport) func(mcp.Connection) mcp.Connection {
	if t, ok := transport.As[clientseam.Tapper](tr); ok {
		t.SetTap(tapMessage)
		_, diverts := transport.As[clientseam.Diverter](tr)
		r, recorder := transport.As[clientseam.Recorder](c.def.Transport)
		c.taskListenable = diverts && !(recorder && r.RecordsExchanges())
		return nil
	}
	if sdkConnection(tr) {
		return nil
	}
	return func(conn mcp.Connection) mcp.Connection {
		return &tappedConn{Connection: conn, slots: map[jsonrpc.ID]*answerSlot{}}
	}
}

// tappedConn fills the answer slot of each call written with one, from the
// response read for the call's id.
type tappedConn struct {
	mcp.Connection
	mu    sync.Mutex // guards slots
	slots map[jsonrpc.ID]*answerSlot
}

func (t *tappedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Request); ok && r.IsCall() {
		if s := slotOf(ctx); s != nil {
			t.mu.Lock()
			t.slots[r.ID] = s
			t.mu.Unlock()
		}
	}
	return t.Connection.Write(ctx, msg)
}

func (t *tappedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := t.Connection.Read(ctx)
	if r, ok := msg.(*jsonrpc.Response); ok && err == nil {
		t.mu.Lock()
		s := t.slots[r.ID]
		delete(t.slots, r.ID)
		t.mu.Unlock()
		if s != nil && r.Result != nil {
			s.set(r.Result)
		}
	}
	return msg, err
}

type taskOptKey struct{}

// optIn returns ctx whose requests declare the tasks extension.
func optIn(ctx context.Context) context.Context { return context.WithValue(ctx, taskOptKey{}, true) }

// declareTasks is sending middleware that adds the tasks extension to the
// per-request client capabilities (protocol 2026-07-28) of a tools/call
// that opted in and of every request of the extension's own.
func declareTasks(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if ctx.Value(taskOptKey{}) != nil || taskMethod[method] {
			if p := req.GetParams(); p != nil && !reflect.ValueOf(p).IsNil() {
				if caps, ok := withTasks(p.GetMeta()[mcp.MetaKeyClientCapabilities]); ok {
					meta := maps.Clone(p.GetMeta())
					meta[mcp.MetaKeyClientCapabilities] = caps
					p.SetMeta(meta)
				}
			}
		}
		return next(ctx, method, req)
	}
}

// taskMethod are the requests of the tasks extension.
var taskMethod = map[string]bool{methodTasksGet: true, methodTasksUpdate: true, methodTasksCancel: true}

// withTasks returns the client capabilities the go-sdk put in a request's
// _meta, as JSON, with the tasks extension added. It reports false when
// there are none (a revision without per-request capabilities).
func withTasks(caps any) (map[string]any, bool) {
	if caps == nil {
		return nil, false
	}
	data, err := json.Marshal(caps)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil || m == nil {
		return nil, false
	}
	ext, _ := m["extensions"].(map[string]any)
	if ext == nil {
		ext = map[string]any{}
	}
	ext[TasksExtension] = map[string]any{}
	m["extensions"] = ext
	return m, true
}

// chain returns the composition of the connection wrappers given (outer
// first), or nil if there are none.
func chain(wraps ...func(mcp.Connection) mcp.Connection) func(mcp.Connection) mcp.Connection {
	wraps = slices.DeleteFunc(wraps, func(w func(mcp.Connection) mcp.Connection) bool { return w == nil })
	if len(wraps) == 0 {
		return nil
	}
	return func(conn mcp.Connection) mcp.Connection {
		for _, w := range slices.Backward(wraps) {
			conn = w(conn)
		}
		return conn
	}
}
