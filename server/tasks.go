package server

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/looprig/mcp/protocol"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TasksExtension is the name of the tasks extension (SEP-2663), under
// which a client declares it in its capabilities' extensions and the
// server advertises it in server/discover.
const TasksExtension = protocol.TasksExtension

// TaskOptions configures the tasks a server runs (Options.Tasks). The
// zero value gives the documented defaults.
type TaskOptions struct {
	// Store keeps the tasks. If nil, New makes one for this Server alone,
	// NewMemoryTaskStore(0): at most DefaultMaxTasks tasks per principal.
	Store TaskStore
	// TTL is how long a task is kept after it was created, whatever its
	// status, and the ttlMs it reports; a task still running then is
	// cancelled, and every tasks/* request for it reads as an unknown
	// task. If zero, defaults to [DefaultTaskTTL]; it cannot be unbounded
	// (for a negative TTL New returns an *OptionsError).
	TTL time.Duration
	// MaxResultBytes bounds the encoded result a task keeps until it
	// expires: a larger result completes the task with an isError result
	// whose text starts "result too large" (CallResultTooLarge), as a call
	// over Options.MaxResultBytes does. If zero, defaults to
	// [DefaultTaskResultBytes]; negative means no bound.
	MaxResultBytes int
	// PollInterval is the pollIntervalMs a task suggests to its client.
	// If zero, defaults to [DefaultPollInterval]; it is rounded up to a
	// whole millisecond.
	PollInterval time.Duration
}

// TaskToolOptions configures how one tool runs as a task
// ([Server.RegisterTaskTool]). The zero value (or nil) gives a tool whose
// tasks are optional and created as soon as the call arrives.
type TaskToolOptions struct {
	// Required makes the tool run only as a task: a call from a client
	// that did not declare the tasks extension in the request's
	// capabilities is refused with -32021 (missing required client
	// capability, its data naming the extension) before the handler
	// runs. If false, such a call runs in the request, as any tool's.
	Required bool
	// InputFirst lets the tool gather its input before it becomes a
	// task: a call that carries no inputResponses runs in the request,
	// so that the handler may answer it with an input-required result
	// (or a result, at once); the continuation that carries the answers
	// becomes the task. If false, every call from a client that declared
	// the extension becomes a task at once, and input the handler asks
	// for parks the task in input_required, answered by tasks/update.
	InputFirst bool
}

// taskTool is a tool registered by RegisterTaskTool.
type taskTool struct {
	opts TaskToolOptions
	h    ToolHandler
}

// tasks runs the tasks of one Server: the store, the bounds, and the
// handlers running in their own goroutines, each owned by tasks.wg.
type tasks struct {
	store     TaskStore
	ttl       time.Duration
	maxResult int // -1: no bound
	poll      time.Duration

	signals   TaskSignals // the store's, if it is shared by several processes
	watcher   TaskWatcher // the store's, if it tells of status changes
	stopWatch func()      // ends the watch of signals; nil without signals

	quit chan struct{} // closed by Close: outcomes are no longer retried

	// mu guards the fields below.
	mu     sync.Mutex
	runs   map[string]*taskRun // the tasks whose handler has not returned, by id
	closed bool
	wg     sync.WaitGroup // the runs and rechecks; Add only while !closed
}

// taskRun is a task whose handler is running or waiting for input.
type taskRun struct {
	principal string
	cancel    context.CancelFunc
	wake      chan struct{} // signalled when every pending request is answered
}

// newTasks returns the task state of o, or an *OptionsError of New.
func newTasks(o *TaskOptions) (*tasks, error) {
	if o.TTL < 0 {
		return nil, &OptionsError{Func: "New", Option: "Tasks.TTL", Value: o.TTL.String(), Err: errors.New("negative")}
	}
	t := &tasks{
		store:     o.Store,
		ttl:       o.TTL,
		maxResult: bound(o.MaxResultBytes, DefaultTaskResultBytes),
		poll:      o.PollInterval,
		runs:      make(map[string]*taskRun),
		quit:      make(chan struct{}),
	}
	if t.store == nil {
		t.store = NewMemoryTaskStore(0)
	}
	if t.ttl == 0 {
		t.ttl = DefaultTaskTTL
	}
	if t.poll <= 0 {
		t.poll = DefaultPollInterval
	}
	t.watcher, _ = t.store.(TaskWatcher)
	if sig, ok := t.store.(TaskSignals); ok {
		t.signals = sig
		t.stopWatch = sig.WatchSignals(t.signalled)
	}
	return t, nil
}

// signalled reads again the task id, if this server runs it: a terminal
// status ends its handler's context, answers wake it.
func (t *tasks) signalled(id string) {
	t.mu.Lock()
	run := t.runs[id]
	if run == nil || t.closed {
		t.mu.Unlock()
		return
	}
	t.wg.Add(1)
	t.mu.Unlock()
	go func() {
		defer t.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), t.poll+5*time.Second)
		defer cancel()
		task, err := t.store.Get(ctx, run.principal, id)
		switch {
		case errors.Is(err, ErrTaskNotFound) || err == nil && task.Status.Terminal():
			run.cancel()
		case err == nil && task.Status == TaskWorking && task.Answers != nil:
			run.poke()
		}
	}()
}

// poke wakes the run's handler waiting for answers.
func (r *taskRun) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// changed tells the server running the task id, which may be another
// process, that tasks/cancel or tasks/update has changed it.
func (t *tasks) changed(ctx context.Context, id string, local func(*taskRun)) error {
	t.mu.Lock()
	run := t.runs[id]
	t.mu.Unlock()
	if run != nil {
		local(run)
		return nil
	}
	if t.signals == nil {
		return nil
	}
	return t.signals.Signal(ctx, id)
}

// RegisterTaskTool publishes t, run by h, as a tool that runs as a task
// (SEP-2663) for a client that declares the tasks extension: the
// tools/call is answered at once with the task (resultType "task"), h runs
// on after the request was answered, and the client reads its status and,
// once completed, its result with tasks/get. A nil opts means an optional
// task created as soon as the call arrives (see [TaskToolOptions]).
//
// h is a [ToolHandler] as for RegisterTool, with the same checks before it
// runs. In a task it runs once per round: an input-required result parks
// the task in input_required with the result's InputRequests, and once
// tasks/update has answered every one of them h runs again with the
// answers in req.Params.InputResponses and its own RequestState, up to
// Options.MaxInputRounds times. Its context ends when the task is
// cancelled, expires or the Server is closed; req.Session is the one of
// the request that started the task, which has ended: notifications sent
// on it are lost.
//
// What tasks/get reports: a result (an isError one for a tool failure, as
// RegisterTool's) completes the task; a *jsonrpc.Error or a panic fails
// it, with the error (-32603 for a panic) in its error field.
//
// It returns an error wrapping [ErrInvalidDefinition] when the Server has
// no Options.Tasks, and whatever RegisterTool returns.
func (s *Server) RegisterTaskTool(t *mcp.Tool, h ToolHandler, opts *TaskToolOptions) error {
	if s.tasks == nil {
		return fmt.Errorf("server: tool: the server runs no tasks (Options.Tasks is nil): %w", ErrInvalidDefinition)
	}
	if t == nil || h == nil {
		return fmt.Errorf("server: tool: nil tool or handler: %w", ErrInvalidDefinition)
	}
	var o TaskToolOptions
	if opts != nil {
		o = *opts
	}
	s.mu.Lock()
	s.taskTools[t.Name] = &taskTool{opts: o, h: h}
	s.mu.Unlock()
	if err := s.RegisterTool(t, h); err != nil {
		s.mu.Lock()
		delete(s.taskTools, t.Name)
		s.mu.Unlock()
		return err
	}
	return nil
}

// taskTool returns the task tool name, if it is one.
func (s *Server) taskTool(name string) (*taskTool, bool) {
	if s.tasks == nil {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	tt, ok := s.taskTools[name]
	return tt, ok
}

// Close cancels every task still running and waits for their handlers
// to return; later calls of task tools fail with -32603. It may be called
// more than once.
func (s *Server) Close() error {
	if s.tasks == nil {
		return nil
	}
	t := s.tasks
	t.mu.Lock()
	if !t.closed {
		close(t.quit)
	}
	t.closed = true
	for _, r := range t.runs {
		r.cancel()
	}
	stop := t.stopWatch
	t.stopWatch = nil
	t.mu.Unlock()
	t.wg.Wait()
	if stop != nil {
		stop()
	}
	return nil
}

// taskSlotKey carries, into a tools/call's handler, the slot in which it
// leaves the task it created: see HTTPHandler.serveTaskCall.
type taskSlotKey struct{}

type taskSlot struct {
	created json.RawMessage // the CreateTaskResult
	w       *taskWriter     // the call's response, held until the handler decides
}

// declaresTasks reports whether caps declare the tasks extension.
func declaresTasks(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[TasksExtension]
	return ok
}

// errTasksRequired is -32021 for a request that needs the tasks extension.
func errTasksRequired(what string) *jsonrpc.Error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}}})
	return &jsonrpc.Error{
		Code:    mcp.CodeMissingRequiredClientCapabilities,
		Message: what + " needs the client capability the client did not declare: extensions[\"" + TasksExtension + "\"]",
		Data:    data,
	}
}

// startTask decides whether a call of the task tool tt becomes a task, and
// if it does, starts it; handled is false when the call is to run in the
// request as any tool's.
func (s *Server) startTask(ctx context.Context, name string, c *turn, tt *taskTool, req *mcp.CallToolRequest) (res *mcp.CallToolResult, handled bool, err error) {
	slot, http := ctx.Value(taskSlotKey{}).(*taskSlot)
	if http {
		defer func() {
			if slot.created == nil {
				slot.w.passThrough() // the call runs in the request: its response streams
			}
		}()
	}
	caps := req.ClientCapabilities()
	declared := declaresTasks(caps) && newProtocol(req.Session)
	switch {
	case !declared && tt.opts.Required:
		return nil, true, errTasksRequired(fmt.Sprintf("tool %q runs only as a task, and", name))
	case !declared:
		return nil, false, nil
	case tt.opts.InputFirst && len(req.Params.InputResponses) == 0:
		return nil, false, nil
	}
	_, conn := ctx.Value(connTasksKey{}).(bool)
	if !http && !conn {
		// A session of Server.MCP's, which no connection of this
		// package serves.
		if tt.opts.Required {
			return nil, true, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("tool %q runs only as a task, and tasks are served over Server.HTTPHandler, Serve, ServeStdio and Factory only", name)}
		}
		return nil, false, nil
	}
	task, err := s.tasks.start(ctx, s, name, c, tt, req, caps)
	if err != nil {
		return nil, true, err
	}
	created, _ := json.Marshal(s.tasks.wire(task, "task"))
	if !http {
		return markedTask(created), true, nil
	}
	slot.created = created
	return &mcp.CallToolResult{Content: []mcp.Content{}}, true, nil
}

// newTaskID returns 128 random bits, base64url.
func newTaskID() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// start records a new task and starts its handler.
func (t *tasks) start(ctx context.Context, s *Server, name string, c *turn, tt *taskTool, req *mcp.CallToolRequest, caps *mcp.ClientCapabilities) (*Task, error) {
	now := time.Now().UTC()
	task := &Task{ID: newTaskID(), Principal: c.b.principal, Tool: name, Status: TaskWorking, Created: now, Updated: now, Expires: now.Add(t.ttl)}
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server is closed"}
	}
	if err := t.store.Create(ctx, task); err != nil {
		s.logger.Warn("task refused", "tool", name, "error", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server is busy, retry later: starting the task: " + err.Error()}
	}
	rctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), task.Expires)
	run := &taskRun{principal: task.Principal, cancel: cancel, wake: make(chan struct{}, 1)}
	r := *req
	p := *req.Params
	r.Params = &p
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		cancel()
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server is closed"}
	}
	t.runs[task.ID] = run
	t.wg.Add(1)
	t.mu.Unlock()
	go func() {
		defer t.wg.Done()
		defer cancel()
		t.execute(rctx, s, task, run, c.round, tt.h, &r, caps)
		t.mu.Lock()
		delete(t.runs, task.ID)
		t.mu.Unlock()
	}()
	return task, nil
}

// execute runs the rounds of one task and records its outcome.
func (t *tasks) execute(ctx context.Context, s *Server, task *Task, run *taskRun, round int, h ToolHandler, req *mcp.CallToolRequest, caps *mcp.ClientCapabilities) {
	for {
		if ctx.Err() != nil { // cancelled before its handler ran: it never runs
			t.finish(s, task, TaskCancelled, nil, nil)
			return
		}
		res, err := s.run(ctx, task.Tool, req, h)
		if ctx.Err() != nil {
			t.finish(s, task, TaskCancelled, nil, nil) // cancelled, expired or closed: the outcome is not kept
			return
		}
		if err != nil {
			werr, ok := errors.AsType[*jsonrpc.Error](err)
			switch {
			case ok && werr.Code != 0:
				t.fail(s, task, werr)
			case isCall(err, CallPanic):
				t.fail(s, task, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()})
			default:
				t.complete(s, task, s.toolError(task.Tool, err))
			}
			return
		}
		if res == nil || res.InputRequests == nil {
			t.complete(s, task, res)
			return
		}
		if round++; s.maxRounds >= 0 && round > s.maxRounds {
			t.complete(s, task, s.toolError(task.Tool, callError(CallTooManyRounds, "%s asked for input %d times in one call; the limit is %d (Options.MaxInputRounds)", task.Tool, round, s.maxRounds)))
			return
		}
		answers, ok := t.ask(ctx, s, task, run, caps, res.InputRequests)
		if !ok {
			return
		}
		p := *req.Params
		p.InputResponses, p.RequestState = answers, res.RequestState
		req.Params = &p
	}
}

// ask parks the task in input_required until tasks/update has answered
// every request, and returns the answers; false when the task ended
// instead (its outcome recorded).
func (t *tasks) ask(ctx context.Context, s *Server, task *Task, run *taskRun, caps *mcp.ClientCapabilities, reqs mcp.InputRequestMap) (mcp.InputResponseMap, bool) {
	if len(reqs) == 0 {
		t.fail(s, task, errBusy)
		return nil, false
	}
	if missing := missingCapabilities(caps, reqs, true); len(missing) > 0 {
		t.fail(s, task, missingCapabilityError(task.Tool, missing))
		return nil, false
	}
	pending := make(map[string]json.RawMessage, len(reqs))
	for k, r := range reqs {
		b, err := json.Marshal(mcp.InputRequestMap{k: r})
		if err != nil {
			t.complete(s, task, s.toolError(task.Tool, fmt.Errorf("encoding input request %q: %w", k, err)))
			return nil, false
		}
		var one map[string]json.RawMessage
		json.Unmarshal(b, &one)
		pending[k] = one[k]
	}
	if _, err := t.store.Update(context.WithoutCancel(ctx), task.Principal, task.ID, func(tk *Task) error {
		if tk.Status.Terminal() {
			return errTaskEnded
		}
		tk.Status, tk.InputRequests, tk.Answers, tk.Updated = TaskInputRequired, pending, nil, time.Now().UTC()
		return nil
	}); err != nil {
		if !errors.Is(err, errTaskEnded) && !errors.Is(err, ErrTaskNotFound) {
			t.fail(s, task, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "recording the input requests: " + err.Error()})
		}
		return nil, false
	}
	raw, ok := t.await(ctx, s, task, run)
	if !ok {
		return nil, false
	}
	b, _ := json.Marshal(raw)
	var answers mcp.InputResponseMap
	if err := json.Unmarshal(b, &answers); err != nil {
		t.complete(s, task, s.toolError(task.Tool, callError(CallInvalidInput, "the answers: %v", err)))
		return nil, false
	}
	return answers, true
}

// errNoAnswers is await's: the task is still waiting for answers.
var errNoAnswers = errors.New("the task awaits answers")

// await waits until tasks/update has answered every pending request, and
// takes the answers from the store; false when the task ended instead.
// With a store shared by several processes it also reads the task every
// poll interval, in case a signal was lost.
func (t *tasks) await(ctx context.Context, s *Server, task *Task, run *taskRun) (map[string]json.RawMessage, bool) {
	var tick <-chan time.Time
	if t.signals != nil {
		tk := time.NewTicker(t.poll)
		defer tk.Stop()
		tick = tk.C
	}
	for {
		select {
		case <-ctx.Done():
			t.finish(s, task, TaskCancelled, nil, nil)
			return nil, false
		case <-run.wake:
		case <-tick:
		}
		var answers map[string]json.RawMessage
		_, err := t.store.Update(context.WithoutCancel(ctx), task.Principal, task.ID, func(tk *Task) error {
			switch {
			case tk.Status.Terminal():
				return errTaskEnded
			case tk.Status != TaskWorking || tk.Answers == nil:
				return errNoAnswers
			}
			answers, tk.Answers = tk.Answers, nil
			return nil
		})
		switch {
		case err == nil:
			return answers, true
		case errors.Is(err, errTaskEnded) || errors.Is(err, ErrTaskNotFound):
			return nil, false
		case !errors.Is(err, errNoAnswers):
			s.logger.Warn("task answers not read", "tool", task.Tool, "error", err)
		}
	}
}

var errTaskEnded = errors.New("the task has ended")

// complete records res as the task's result, within the result bounds.
func (t *tasks) complete(s *Server, task *Task, res *mcp.CallToolResult) {
	if res == nil {
		res = &mcp.CallToolResult{}
	}
	if res.Content == nil {
		res.Content = []mcp.Content{}
	}
	b, err := json.Marshal(res)
	if err != nil {
		b, _ = json.Marshal(s.toolError(task.Tool, fmt.Errorf("encoding result: %w", err)))
	}
	limit := t.maxResult
	if s.maxResultBytes >= 0 && (limit < 0 || s.maxResultBytes < limit) {
		limit = s.maxResultBytes
	}
	if exceeds(len(b), limit) {
		b, _ = json.Marshal(s.toolError(task.Tool, callError(CallResultTooLarge, "%d bytes exceed the %d-byte limit of a task's result", len(b), limit)))
	}
	t.finish(s, task, TaskCompleted, b, nil)
}

// fail records e as the task's error.
func (t *tasks) fail(s *Server, task *Task, e *jsonrpc.Error) {
	s.logger.Warn("task failed", "tool", task.Tool, "error", e)
	b, _ := json.Marshal(e)
	t.finish(s, task, TaskFailed, nil, b)
}

// finish records the task's terminal status, unless it has one already
// (a cancelled task stays cancelled). While the store fails (shared
// storage unreachable) it tries again every poll interval, until the task
// expires or the Server is closed.
func (t *tasks) finish(s *Server, task *Task, status TaskStatus, result, rpcErr json.RawMessage) {
	expired := time.NewTimer(time.Until(task.Expires))
	defer expired.Stop()
	for {
		_, err := t.store.Update(context.Background(), task.Principal, task.ID, func(tk *Task) error {
			if tk.Status.Terminal() {
				return errTaskEnded
			}
			tk.Status, tk.Updated, tk.InputRequests, tk.Answers, tk.Result, tk.Error = status, time.Now().UTC(), nil, nil, result, rpcErr
			return nil
		})
		if err == nil || errors.Is(err, errTaskEnded) || errors.Is(err, ErrTaskNotFound) {
			return
		}
		s.logger.Warn("task outcome not recorded yet", "tool", task.Tool, "error", err)
		retry := time.NewTimer(t.poll)
		select {
		case <-retry.C:
		case <-expired.C:
			retry.Stop()
			return
		case <-t.quit:
			retry.Stop()
			return
		}
	}
}

// taskWire is a task as the wire carries it: a CreateTaskResult
// (resultType "task") or the DetailedTask of tasks/get ("complete").
type taskWire struct {
	ResultType     string                     `json:"resultType"`
	TaskID         string                     `json:"taskId"`
	Status         TaskStatus                 `json:"status"`
	CreatedAt      string                     `json:"createdAt"`
	LastUpdatedAt  string                     `json:"lastUpdatedAt"`
	TTLMs          int64                      `json:"ttlMs"`
	PollIntervalMs int64                      `json:"pollIntervalMs"`
	InputRequests  map[string]json.RawMessage `json:"inputRequests,omitempty"`
	Result         json.RawMessage            `json:"result,omitempty"`
	Error          json.RawMessage            `json:"error,omitempty"`
}

func (t *tasks) wire(task *Task, resultType string) *taskWire {
	ms := func(d time.Duration) int64 { return int64((d + time.Millisecond - 1) / time.Millisecond) }
	w := &taskWire{
		ResultType:     resultType,
		TaskID:         task.ID,
		Status:         task.Status,
		CreatedAt:      task.Created.UTC().Format(time.RFC3339Nano),
		LastUpdatedAt:  task.Updated.UTC().Format(time.RFC3339Nano),
		TTLMs:          ms(task.Expires.Sub(task.Created)),
		PollIntervalMs: ms(t.poll),
	}
	if resultType != "task" {
		w.InputRequests, w.Result, w.Error = task.InputRequests, task.Result, task.Error
	}
	return w
}
