package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/looprig/mcp/internal/wire"
	"github.com/looprig/mcp/protocol"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk v1.8.0 knows no tasks: it refuses a method it does not know
// (tasks/get) before any middleware sees it, and its tools/call result
// cannot carry a task. HTTPHandler therefore answers the tasks/* methods
// of a 2026-07-28 request itself, from the body it has read, and lets the
// go-sdk serve a task tool's tools/call as any other, into a buffer: when
// the tool's handler wrapper started a task (taskSlot), the reply is the
// task; otherwise it is the go-sdk's, copied as written.

// isTaskMethod reports whether method is one of the tasks extension's.
func isTaskMethod(method string) bool {
	return method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel"
}

// taskRequest returns the single request of in when HTTPHandler serves it
// for the tasks extension: a 2026-07-28 tasks/* request, or a tools/call
// of a task tool.
func (h *HTTPHandler) taskRequest(req *http.Request, in *inbound) (*jsonrpc.Request, []byte, bool) {
	if h.s.tasks == nil || in == nil || req.Header.Get("Mcp-Protocol-Version") != protocol.Revision20260728 {
		return nil, nil, false
	}
	r, id, ok := in.single()
	if !ok || !r.IsCall() {
		return nil, nil, false
	}
	if isTaskMethod(r.Method) {
		return r, id, true
	}
	if r.Method != "tools/call" {
		return nil, nil, false
	}
	var p struct {
		Name string `json:"name"`
	}
	if wire.Unmarshal(r.Params, &p) != nil {
		return nil, nil, false
	}
	if _, ok := h.s.taskTool(p.Name); !ok {
		return nil, nil, false // any tool's call: served as any
	}
	return r, id, true
}

// serveTaskCall serves a tools/call of a task tool through the go-sdk,
// answering with the task its handler started, if it started one. What the
// go-sdk writes is held until the handler has decided (startTask): a call
// that runs in the request as any tool's then streams as any does (its
// progress and server requests go out as they come, so that the client can
// act on them, cancel it among others).
func (h *HTTPHandler) serveTaskCall(w http.ResponseWriter, req *http.Request, r *jsonrpc.Request) {
	buf := &taskWriter{w: w, header: make(http.Header)}
	slot := &taskSlot{w: buf}
	h.serveStateless(buf, req.WithContext(context.WithValue(req.Context(), taskSlotKey{}, slot)))
	if slot.created != nil {
		writeResponse(w, &jsonrpc.Response{ID: r.ID, Result: slot.created})
		return
	}
	buf.end()
}

// taskParams are the params of a tasks/* request.
type taskParams struct {
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	Meta           struct {
		Caps *taskCaps `json:"io.modelcontextprotocol/clientCapabilities"`
	} `json:"_meta"`
}

// serveTaskMethod answers a tasks/* request: its Mcp-Method and Mcp-Name
// headers must be its method and task id (else 400, -32020), and its
// capabilities must declare the extension (else -32021).
func (h *HTTPHandler) serveTaskMethod(w http.ResponseWriter, req *http.Request, r *jsonrpc.Request, id []byte) {
	var p taskParams
	if err := wire.Unmarshal(r.Params, &p); err != nil {
		writeResponse(w, &jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: params: %v", r.Method, err)}})
		return
	}
	mismatch := func(format string, args ...any) {
		(&refusal{status: http.StatusBadRequest, code: mcp.CodeHeaderMismatch, id: id, msg: "mcp: header mismatch: " + fmt.Sprintf(format, args...)}).write(w)
	}
	if m := strings.TrimSpace(req.Header.Get("Mcp-Method")); m != r.Method {
		mismatch("Mcp-Method %q is not the body's method %q", m, r.Method)
		return
	}
	if n := strings.TrimSpace(req.Header.Get("Mcp-Name")); n != p.TaskID {
		mismatch("Mcp-Name %q is not the body's taskId %q (a %s request names its task in Mcp-Name)", n, p.TaskID, r.Method)
		return
	}
	writeResponse(w, h.s.answerTask(req.Context(), r, &p, taskPrincipal(req)))
}

// answerTask answers the tasks/* request r, whose params are p, for
// principal: -32021 unless its capabilities declare the extension.
func (s *Server) answerTask(ctx context.Context, r *jsonrpc.Request, p *taskParams, principal string) *jsonrpc.Response {
	var res any
	var err error
	switch _, declared := p.Meta.Caps.extensions()[TasksExtension]; {
	case !declared:
		err = errTasksRequired(r.Method)
	case p.TaskID == "":
		err = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: r.Method + ": taskId is missing"}
	default:
		res, err = s.tasks.serve(ctx, r.Method, principal, p.TaskID, p.InputResponses)
	}
	if err != nil {
		werr, ok := errors.AsType[*jsonrpc.Error](err)
		if !ok {
			werr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		return &jsonrpc.Response{ID: r.ID, Error: werr}
	}
	b, _ := json.Marshal(res)
	return &jsonrpc.Response{ID: r.ID, Result: b}
}

// taskCaps is what serveTaskMethod reads of a request's capabilities.
type taskCaps struct {
	Extensions map[string]json.RawMessage `json:"extensions"`
}

func (c *taskCaps) extensions() map[string]json.RawMessage {
	if c == nil {
		return nil
	}
	return c.Extensions
}

// taskPrincipal is the authenticated user of req, as the go-sdk's auth
// middleware left it (auth.TokenInfo.UserID), or "".
func taskPrincipal(req *http.Request) string {
	if ti := auth.TokenInfoFromContext(req.Context()); ti != nil {
		return ti.UserID
	}
	return ""
}

// ack is the empty result of tasks/update and tasks/cancel.
var ack = map[string]string{"resultType": "complete"}

// serve answers one tasks/* request for the task id of principal.
func (t *tasks) serve(ctx context.Context, method, principal, id string, answers map[string]json.RawMessage) (any, error) {
	notFound := func() error {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: %v: %q", method, ErrTaskNotFound, id)}
	}
	switch method {
	case "tasks/get":
		task, err := t.store.Get(ctx, principal, id)
		if errors.Is(err, ErrTaskNotFound) {
			return nil, notFound()
		} else if err != nil {
			return nil, err
		}
		return t.wire(task, "complete"), nil
	case "tasks/cancel":
		cancelled := false
		_, err := t.store.Update(ctx, principal, id, func(tk *Task) error {
			cancelled = !tk.Status.Terminal()
			if cancelled {
				tk.Status, tk.Updated, tk.InputRequests, tk.Answers = TaskCancelled, time.Now().UTC(), nil, nil
			}
			return nil
		})
		if errors.Is(err, ErrTaskNotFound) {
			return nil, notFound()
		} else if err != nil {
			return nil, err
		}
		if !cancelled {
			return ack, nil // it had ended: nothing runs it
		}
		if err := t.changed(ctx, id, func(r *taskRun) { r.cancel() }); err != nil {
			return nil, fmt.Errorf("tasks/cancel: the task is cancelled, but the server running it was not told: %w", err)
		}
		return ack, nil
	}
	return t.update(ctx, principal, id, answers, notFound)
}

// update answers the pending input requests of an input_required task:
// the answered keys leave its inputRequests, keys it is not waiting for
// are ignored, and once none is pending the handler runs again. A task
// that is not input_required refuses it with -32602.
func (t *tasks) update(ctx context.Context, principal, id string, answers map[string]json.RawMessage, notFound func() error) (any, error) {
	if answers == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "tasks/update: inputResponses is missing"}
	}
	resume := false
	_, err := t.store.Update(ctx, principal, id, func(tk *Task) error {
		resume = false // a shared store may apply a change more than once
		if tk.Status != TaskInputRequired {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("tasks/update: task %q is %s, not input_required", id, tk.Status)}
		}
		for k, v := range answers {
			if _, ok := tk.InputRequests[k]; ok {
				if tk.Answers == nil {
					tk.Answers = make(map[string]json.RawMessage)
				}
				tk.Answers[k] = bytes.Clone(v)
				delete(tk.InputRequests, k)
			}
		}
		if len(tk.InputRequests) == 0 {
			tk.Status, tk.InputRequests, resume = TaskWorking, nil, true
		}
		tk.Updated = time.Now().UTC()
		return nil
	})
	if errors.Is(err, ErrTaskNotFound) {
		return nil, notFound()
	} else if err != nil {
		return nil, err
	}
	if resume {
		// Should the signal be lost, the server running the task reads
		// the answers within its poll interval.
		t.changed(ctx, id, (*taskRun).poke)
	}
	return ack, nil
}

// writeResponse writes msg as the JSON body of a response whose status is
// the one SEP-2575 gives its error, as the go-sdk sends it: 404 for
// -32601; 400 for -32602, -32021 and -32022; 200 otherwise.
func writeResponse(w http.ResponseWriter, msg *jsonrpc.Response) {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		http.Error(w, "mcp: encoding the response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	status := http.StatusOK
	if werr, ok := errors.AsType[*jsonrpc.Error](msg.Error); ok {
		switch werr.Code {
		case jsonrpc.CodeMethodNotFound:
			status = http.StatusNotFound
		case jsonrpc.CodeInvalidParams, mcp.CodeUnsupportedProtocolVersion, mcp.CodeMissingRequiredClientCapabilities:
			status = http.StatusBadRequest
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// taskWriter is the response writer of a task tool's call: it keeps what
// the go-sdk writes until the call's handler has decided whether the call
// is a task (whose reply replaces it all) or runs in the request
// (passThrough: what was kept goes out, and what follows as it is written).
// A call whose handler never decides (the go-sdk refused it first) goes out
// whole at its end.
type taskWriter struct {
	w       http.ResponseWriter
	mu      sync.Mutex // guards the fields below: the handler decides on a goroutine of its own
	header  http.Header
	status  int
	body    bytes.Buffer
	through bool
}

func (b *taskWriter) Header() http.Header {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.through {
		return b.w.Header()
	}
	return b.header
}

func (b *taskWriter) WriteHeader(status int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.through:
		b.w.WriteHeader(status)
	case b.status == 0:
		b.status = status
	}
}

func (b *taskWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.through {
		return b.w.Write(p)
	}
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

func (b *taskWriter) Flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.through {
		http.NewResponseController(b.w).Flush()
	}
}

// passThrough sends what was kept and passes what follows through.
func (b *taskWriter) passThrough() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.through {
		return
	}
	b.through = true
	for k, v := range b.header {
		b.w.Header()[k] = v
	}
	if b.status == 0 {
		return // nothing written yet: the go-sdk writes the header itself
	}
	b.w.WriteHeader(b.status)
	b.w.Write(b.body.Bytes())
	http.NewResponseController(b.w).Flush()
	b.body = bytes.Buffer{}
}

// end sends what was kept, if the handler never decided.
func (b *taskWriter) end() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.through {
		return
	}
	for k, v := range b.header {
		b.w.Header()[k] = v
	}
	if b.status == 0 {
		b.status = http.StatusOK
	}
	b.w.WriteHeader(b.status)
	b.w.Write(b.body.Bytes())
}
