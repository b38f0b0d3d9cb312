package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/looprig/mcp/protocol"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file is the client side of the tasks extension
// (io.modelcontextprotocol/tasks, SEP-2663, protocol 2026-07-28): a
// tools/call that the server answers with a task handle instead of a
// result, tasks/get to poll it, tasks/update to answer its requests for
// input, tasks/cancel to end it. The go-sdk v1.8.0 has none of it: the
// requests are sent as the go-sdk's custom methods (mcp.CallCustomMethod)
// and the handle is read below its decoding (tasktap.go).

const (
	methodTasksGet    = "tasks/get"
	methodTasksUpdate = "tasks/update"
	methodTasksCancel = "tasks/cancel"
)

// A TaskStatus is the status of a task as its server reports it.
type TaskStatus = protocol.TaskStatus

// The statuses of SEP-2663.
const (
	TaskWorking       = protocol.TaskWorking
	TaskInputRequired = protocol.TaskInputRequired
	TaskCompleted     = protocol.TaskCompleted
	TaskFailed        = protocol.TaskFailed
	TaskCancelled     = protocol.TaskCancelled
)

// A TaskState is what the server said of a task at one point: in its
// handle, or in the answer to one tasks/get.
type TaskState struct {
	ID            string
	Status        TaskStatus
	StatusMessage string
	// CreatedAt and LastUpdatedAt are the server's ISO 8601 times, as
	// sent.
	CreatedAt, LastUpdatedAt string
	// TTL is how long the server keeps the task (ttlMs); zero if it did not
	// say.
	TTL time.Duration
	// PollInterval is the server's hint for the time between polls
	// (pollIntervalMs); zero if it did not say.
	PollInterval time.Duration
	// InputRequests are what an input_required task asks for.
	InputRequests mcp.InputRequestMap
	// Result is a completed task's result: the tool's own, IsError
	// included.
	Result *mcp.CallToolResult
	// Error is a failed task's error (a protocol-level failure).
	Error *jsonrpc.Error
}

// taskWire is a task on the wire: a CreateTaskResult or a DetailedTask.
type taskWire struct {
	ResultType     string              `json:"resultType"`
	TaskID         string              `json:"taskId"`
	Status         TaskStatus          `json:"status"`
	StatusMessage  string              `json:"statusMessage"`
	CreatedAt      string              `json:"createdAt"`
	LastUpdatedAt  string              `json:"lastUpdatedAt"`
	TTLMs          *int64              `json:"ttlMs"`
	PollIntervalMs *int64              `json:"pollIntervalMs"`
	InputRequests  mcp.InputRequestMap `json:"inputRequests"`
	Result         json.RawMessage     `json:"result"`
	Error          *jsonrpc.Error      `json:"error"`
}

// decodeTask reads a task from raw, checking what the client relies on.
func decodeTask(raw json.RawMessage) (*TaskState, error) {
	var w taskWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("%w: %w", reasonErr(ReasonInvalidTask), err)
	}
	if w.TaskID == "" {
		return nil, fmt.Errorf("%w: no taskId", reasonErr(ReasonInvalidTask))
	}
	if !w.Status.Known() {
		return nil, fmt.Errorf("%w: task %s has status %q", reasonErr(ReasonInvalidTask), w.TaskID, w.Status)
	}
	st := &TaskState{ID: w.TaskID, Status: w.Status, StatusMessage: w.StatusMessage, CreatedAt: w.CreatedAt,
		LastUpdatedAt: w.LastUpdatedAt, InputRequests: w.InputRequests, Error: w.Error}
	if w.TTLMs != nil && *w.TTLMs > 0 {
		st.TTL = time.Duration(*w.TTLMs) * time.Millisecond
	}
	if w.PollIntervalMs != nil && *w.PollIntervalMs > 0 {
		st.PollInterval = time.Duration(*w.PollIntervalMs) * time.Millisecond
	}
	if len(w.Result) > 0 && string(w.Result) != "null" {
		st.Result = new(mcp.CallToolResult)
		if err := json.Unmarshal(w.Result, st.Result); err != nil {
			return nil, fmt.Errorf("%w: task %s result: %w", reasonErr(ReasonInvalidTask), w.TaskID, err)
		}
	}
	return st, nil
}

// isTaskHandle reports whether raw is a tools/call answered with a task.
func isTaskHandle(raw json.RawMessage) bool {
	var w struct {
		ResultType string `json:"resultType"`
	}
	return raw != nil && json.Unmarshal(raw, &w) == nil && w.ResultType == "task"
}

// The requests of the extension, sent as the go-sdk's custom methods.

type taskParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

type taskUpdateParams struct {
	mcp.ParamsBase
	TaskID         string               `json:"taskId"`
	InputResponses mcp.InputResponseMap `json:"inputResponses"`
}

// rawResult keeps a result as it came.
type rawResult struct {
	mcp.ResultBase
	raw json.RawMessage
}

func (r *rawResult) UnmarshalJSON(data []byte) error {
	r.raw = append(json.RawMessage(nil), data...)
	return nil
}

// registerTaskMethods makes the extension's requests sendable by sdk.
func registerTaskMethods(sdk *mcp.Client) error {
	return errors.Join(
		mcp.AddSendingCustomMethod[*taskParams, *rawResult](sdk, methodTasksGet),
		mcp.AddSendingCustomMethod[*taskUpdateParams, *rawResult](sdk, methodTasksUpdate),
		mcp.AddSendingCustomMethod[*taskParams, *rawResult](sdk, methodTasksCancel),
		mcp.AddSendingCustomMethod[*taskListenParams, *rawResult](sdk, methodSendTaskListen),
	)
}

// A Task is a tool call the server runs as a task (the tasks extension,
// protocol 2026-07-28): a handle for a caller that manages a long job
// itself, from Client.StartTool or Client.Task. CallTool, for a Definition
// with Tasks set, waits for a task itself. A Task's methods are safe for
// concurrent use; each takes the caller's context and is bounded by
// Limits.CallTimeout per request.
type Task struct {
	c    *Client
	tool string
	id   string
	// done is the result of a call the server did not run as a task.
	done *mcp.CallToolResult
	// last is the last state the client saw; only the task's own wait
	// changes it, and waits of one Task must not overlap.
	last *TaskState
	// answered are the ids of the input requests already answered.
	answered map[string]bool
	updates  int // tasks/update sent
	// updateFailed is set once a tasks/update failed: it is not sent
	// again, and the task is not cancelled.
	updateFailed bool
}

// ID returns the task's id, or "" when the server answered the call at once
// instead of running it as a task.
func (t *Task) ID() string { return t.id }

// Tool returns the name of the tool the task runs.
func (t *Task) Tool() string { return t.tool }

// StartTool calls the named tool, declaring the tasks extension for this
// call, and returns at once with a handle. A server that runs the tool as
// a task answers with the task's id (Task.ID). The caller then polls
// (Task.Status), waits (Task.Wait) or cancels (Task.Cancel) as it sees fit.
// A server may answer at once: the tool does not run as a task, or the
// revision is 2025-11-25. That gives a Task whose ID is "", whose Status
// is completed and whose Wait returns the result. StartTool is refused as
// CallTool is; it fulfils the server's input-required results as CallTool
// does before the task is created; it is never retried.
func (c *Client) StartTool(ctx context.Context, name string, args any) (*Task, error) {
	base, err := c.beginCall(name)
	if err != nil {
		return nil, err
	}
	defer c.inflight.Done()
	ctx, cancel := c.bound(ctx, base)
	defer cancel()
	t := new(Task)
	if err := c.start(ctx, t, name, args, true); err != nil {
		return nil, c.fail(OpCallTool, name, err)
	}
	return t, nil
}

// Task returns a handle for a task the server already runs, known by its
// id. A lost connection may have left it running; errors.As finds its id
// in a *TaskError. Or another client may have started it on the same
// server.
func (c *Client) Task(id, tool string) *Task {
	return &Task{c: c, tool: tool, id: id, last: &TaskState{ID: id, Status: TaskWorking}, answered: map[string]bool{}}
}

// start sends the tools/call (and its input-required continuations),
// declaring tasks if tasks is set, and makes t the task the server made or
// the result it gave at once. t is the caller's, so that a call answered at
// once (most are) costs no task on the heap.
func (c *Client) start(ctx context.Context, t *Task, name string, args any, tasks bool) error {
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	if c.handlers.Progress != nil {
		params.SetProgressToken(fmt.Sprintf("looprig-%d", c.progress.Add(1)))
	}
	var slot *answerSlot
	send := func(ctx context.Context, p *mcp.CallToolParams) (res *mcp.CallToolResult, err error) {
		switch {
		case tasks && c.mayCreateTask():
			slot, res, err = c.callCreating(ctx, name, p)
			return res, err
		case tasks:
			ctx, slot = withSlot(optIn(ctx))
		}
		return c.session.CallTool(ctx, p)
	}
	res, err := rounds(ctx, c, params, send, toolInput, toolNext)
	if err != nil {
		return err
	}
	if slot == nil || !isTaskHandle(slot.get()) {
		if taskLike(res) {
			return fmt.Errorf("%w: the server answered with a task handle this transport does not show the client", reasonErr(ReasonInvalidTask))
		}
		*t = Task{c: c, tool: name, done: res}
		return nil
	}
	st, err := decodeTask(slot.get())
	if err != nil {
		return err
	}
	*t = Task{c: c, tool: name, id: st.ID, last: st, answered: map[string]bool{}}
	if !st.Status.Terminal() {
		c.expectTask(st.ID)
	}
	return nil
}

// taskLike reports whether the go-sdk decoded a task handle into res.
// Only res's JSON shows its result type, since the go-sdk keeps it
// unexported. So taskLike marshals a copy of res without what it carries
// (content, structured content, _meta, input requests). That gives
// {"content":null,"resultType":"…"}. Its cost is the same whatever the
// size of the result. (Marshaling res itself cost every call as much as
// encoding its answer again.) Its one string is the result type, so its
// bytes say it and no decoding is needed.
func taskLike(res *mcp.CallToolResult) bool {
	if res == nil {
		return false
	}
	probe := *res
	probe.Meta, probe.Content, probe.StructuredContent, probe.IsError = nil, nil, nil, false
	probe.InputRequests, probe.RequestState = nil, ""
	data, err := probe.MarshalJSON() // not json.Marshal: its copy and check of the output would be three allocations more
	return err == nil && bytes.Contains(data, []byte(`"resultType":"task"`))
}

// Status asks the server for the task's state (one tasks/get), a read that
// is safe to repeat.
func (t *Task) Status(ctx context.Context) (*TaskState, error) {
	if t.id == "" {
		return &TaskState{Status: TaskCompleted, Result: t.done}, nil
	}
	c := t.c
	base, err := c.begin(OpCallTool, t.tool)
	if err != nil {
		return nil, err
	}
	defer c.inflight.Done()
	ctx, cancel := c.bound(ctx, base)
	defer cancel()
	st, err := t.get(ctx)
	if err != nil {
		return nil, t.fail(err)
	}
	return st, nil
}

// get sends one tasks/get.
func (t *Task) get(ctx context.Context) (*TaskState, error) {
	res, err := mcp.CallCustomMethod[*taskParams, *rawResult](ctx, t.c.session, methodTasksGet, &taskParams{TaskID: t.id})
	if err != nil {
		return nil, err
	}
	st, err := decodeTask(res.raw)
	if err != nil {
		return nil, err
	}
	if st.ID != t.id {
		return nil, fmt.Errorf("%w: tasks/get for %s answered for %s", reasonErr(ReasonInvalidTask), t.id, st.ID)
	}
	return st, nil
}

// Cancel asks the server to cancel the task (tasks/cancel). The server
// acknowledges; the task's next Status says whether it was cancelled (a
// task that finished first stays finished). Cancelling a task the server
// answered at once does nothing.
func (t *Task) Cancel(ctx context.Context) error {
	if t.id == "" {
		return nil
	}
	c := t.c
	base, err := c.begin(OpCallTool, t.tool)
	if err != nil {
		return err
	}
	defer c.inflight.Done()
	ctx, cancel := c.bound(ctx, base)
	defer cancel()
	if err := t.cancel(ctx); err != nil {
		return t.fail(err)
	}
	return nil
}

func (t *Task) cancel(ctx context.Context) error {
	_, err := mcp.CallCustomMethod[*taskParams, *rawResult](ctx, t.c.session, methodTasksCancel, &taskParams{TaskID: t.id})
	return err
}

// update sends one tasks/update with answers. It is never sent again:
// one whose reply is lost fails (ErrOutcomeUnknown).
func (t *Task) update(ctx context.Context, answers mcp.InputResponseMap) error {
	_, err := mcp.CallCustomMethod[*taskUpdateParams, *rawResult](ctx, t.c.session, methodTasksUpdate,
		&taskUpdateParams{TaskID: t.id, InputResponses: answers})
	return err
}

// fail wraps err of the task into a *Error holding a *TaskError.
func (t *Task) fail(err error) error {
	var te *TaskError
	if !errors.As(err, &te) {
		status := TaskStatus("")
		if t.last != nil {
			status = t.last.Status
		}
		err = &TaskError{ID: t.id, Status: status, Err: err}
	}
	return t.c.fail(OpCallTool, t.tool, err)
}
