package client

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/looprig/mcp/internal/safetext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TaskCancelWait bounds two waits. One is CallTool's wait for the server
// to acknowledge the tasks/cancel it sends when it gives up on a task.
// The other is for a tools/call given up before its task handle arrived:
// it waits that long for the handle, to cancel the task it names.
const TaskCancelWait = 2 * time.Second

// TaskError is the error of a tool call the server ran as a task, when the
// call did not end with the task's result. The task failed or was
// cancelled, a bound was passed, or the connection was lost while it ran.
// ID names the task. While the server keeps it (its TTL), Client.Task(ID,
// tool) on this or a new connection polls it again. That is a read, safe
// to repeat.
type TaskError struct {
	ID     string
	Status TaskStatus // the last status the client saw, or ""
	Err    error
}

func (e *TaskError) Error() string {
	if e.Status == "" {
		return fmt.Sprintf("task %s: %s", safetext.Line(e.ID), safetext.Text(fmt.Sprint(e.Err)))
	}
	return fmt.Sprintf("task %s (%s): %s", safetext.Line(e.ID), safetext.Line(string(e.Status)), safetext.Text(fmt.Sprint(e.Err)))
}

func (e *TaskError) Unwrap() error { return e.Err }

// clock is time as a task's wait sees it; tests replace it.
type clock interface {
	Now() time.Time
	// Sleep waits d, or until wake receives once floor has passed (a
	// pushed status), or until ctx ends (returning its error).
	Sleep(ctx context.Context, d, floor time.Duration, wake <-chan struct{}) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d, floor time.Duration, wake <-chan struct{}) error {
	return sleepOrWake(ctx, d, floor, wake)
}

// Wait waits for the task's outcome and returns its result, polling
// tasks/get at the server's hint (pollIntervalMs, kept within
// Limits.TaskPollMin and TaskPollMax), at most Limits.MaxTaskPolls times,
// for at most Limits.TaskTimeout. A task that needs input
// (input_required) is answered through the Handlers, as an input-required
// result is. It gets one tasks/update per round, at most
// Limits.MaxInputRounds. A tasks/update whose reply is lost is never sent
// again (ErrOutcomeUnknown). A poll may lose its reply, or the transport
// may turn it down before the server answers it (an HTTP 429 or 5xx).
// Such a poll is sent again at the next interval, within the same bounds:
// it is a read. A bound passed after a failed poll wraps that poll's failure. Wait does not
// cancel the task when it gives up; Cancel does. A tool that ran and
// reported failure returns its result and a ClassTool *Error, as CallTool
// does. Waits of one Task must not overlap.
func (t *Task) Wait(ctx context.Context) (*mcp.CallToolResult, error) {
	c := t.c
	base, err := c.begin(OpCallTool, t.tool)
	if err != nil {
		return nil, err
	}
	defer c.inflight.Done()
	return t.outcome(t.await(ctx, base))
}

// outcome turns a wait's result into what CallTool returns.
func (t *Task) outcome(res *mcp.CallToolResult, err error) (*mcp.CallToolResult, error) {
	c := t.c
	if err != nil {
		return nil, t.fail(err)
	}
	if res.IsError {
		return res, &Error{Class: ClassTool, Op: OpCallTool, Server: c.def.Name, Tool: t.tool, Err: &ToolError{Text: text(res)}}
	}
	return res, nil
}

// waitCtx bounds a task's wait: the caller's ctx, Close (base) and
// Limits.TaskTimeout.
func (c *Client) waitCtx(ctx, base context.Context) (context.Context, context.CancelFunc) {
	var cancel context.CancelFunc
	if c.limits.TaskTimeout > 0 {
		// A backstop: the wait checks the bound itself before each
		// interval, so as to fail with ErrTaskTimeout rather than sleep
		// into it.
		ctx, cancel = context.WithTimeout(ctx, c.limits.TaskTimeout+time.Second)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	stop := context.AfterFunc(base, cancel)
	return ctx, func() { stop(); cancel() }
}

// await polls the task until it ends, answering its input, within the
// bounds. It returns the completed task's result.
func (t *Task) await(ctx context.Context, base context.Context) (*mcp.CallToolResult, error) {
	if t.id == "" {
		return t.done, nil
	}
	c := t.c
	ctx, cancel := c.waitCtx(ctx, base)
	defer cancel()
	wake := c.watchTask(t.id)
	defer c.unwatchTask(t.id, wake)
	var listen *taskListen
	if !t.last.Status.Terminal() {
		listen = c.listenTask(ctx, t.id, wake)
		defer c.unlisten(listen)
	}
	start := c.clock.Now()
	st, polled := t.last, false
	var failed error // the last poll's failure, if the last poll failed
	for polls := 0; ; {
		switch {
		case st.Status == TaskCompleted && st.Result != nil:
			return st.Result, nil
		case st.Status == TaskCompleted && polled:
			return nil, fmt.Errorf("%w: task %s completed without a result", reasonErr(ReasonInvalidTask), t.id)
		case st.Status == TaskFailed && polled:
			return nil, t.failed(st)
		case st.Status == TaskCancelled && polled:
			return nil, fmt.Errorf("%w: %s", reasonErr(ReasonTaskCancelled), st.StatusMessage)
		case st.Status == TaskInputRequired && polled:
			if err := t.answer(ctx, st); err != nil {
				return nil, err
			}
		}
		wait := time.Duration(0)
		if st.Status == TaskWorking || polled {
			wait = c.limits.taskInterval(st.PollInterval)
		}
		if polls == c.limits.MaxTaskPolls {
			return nil, lastPoll(fmt.Errorf("%w: still %s after %d polls", reasonErr(ReasonTaskPolls), st.Status, polls), failed)
		}
		if wait > 0 && listen != nil {
			agreed, err := listen.await(ctx) // at once, after the first time
			if err != nil {
				return nil, err
			}
			if agreed {
				wait = c.backedOff(wait, start) // a push wakes the wait
			}
		}
		if lim := c.limits.TaskTimeout; lim > 0 && c.clock.Now().Add(wait).Sub(start) > lim {
			return nil, lastPoll(fmt.Errorf("%w: still %s after %v, bound %v", ErrTaskTimeout, st.Status, c.clock.Now().Sub(start), lim), failed)
		}
		if err := c.clock.Sleep(ctx, wait, c.limits.TaskPollMin, wake); err != nil {
			return nil, err
		}
		polls++
		next, err := t.poll(ctx)
		switch {
		case err == nil:
			st, polled, failed = next, true, nil
			t.last = st
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case !c.pollAgain(err):
			return nil, err
		default:
			failed = err // polled again, within the bounds
		}
	}
}

// pollAgain reports whether a poll that failed with err may be sent again.
// It may when its reply was lost, or when the transport turned it down
// before the server answered it. Over HTTP that is a 429 or 5xx status,
// or a request that could not be sent. A poll is a read. A poll the server
// answered with an error (an unknown task, say) is not sent again.
func (c *Client) pollAgain(err error) bool {
	return errors.Is(c.fail(OpCallTool, "", err), ErrOutcomeUnknown) || rejectedByTransport(err)
}

// codeRejected is the code of the go-sdk's "rejected by transport" error:
// a request its transport turned down, which the server did not answer.
const codeRejected = -32005

// rejectedByTransport reports whether err is the go-sdk's rejection of a
// request by its transport, holding no error of the server's.
func rejectedByTransport(err error) bool {
	rejected, answered := false, false
	walkErrors(err, func(e error) {
		if r, ok := e.(*jsonrpc.Error); ok {
			if r.Code == codeRejected {
				rejected = true
			} else {
				answered = true
			}
		}
	})
	return rejected && !answered
}

// walkErrors calls f with err and every error it wraps.
func walkErrors(err error, f func(error)) {
	if err == nil {
		return
	}
	f(err)
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		walkErrors(u.Unwrap(), f)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			walkErrors(e, f)
		}
	}
}

// lastPoll adds to err, a bound's, the failure of the last poll, if the
// last poll failed.
func lastPoll(err, failed error) error {
	if failed == nil {
		return err
	}
	return fmt.Errorf("%w; the last poll failed: %w", err, failed)
}

// poll sends one tasks/get bounded by Limits.CallTimeout.
func (t *Task) poll(ctx context.Context) (*TaskState, error) {
	ctx, cancel := context.WithTimeout(ctx, t.c.limits.requestTimeout())
	defer cancel()
	return t.get(ctx)
}

// failed is the error of a failed task.
func (t *Task) failed(st *TaskState) error {
	if st.Error != nil {
		return fmt.Errorf("%w: %w", reasonErr(ReasonTaskFailed), st.Error)
	}
	return fmt.Errorf("%w: %s", reasonErr(ReasonTaskFailed), st.StatusMessage)
}

// answer fulfils the input requests of st not answered yet and sends them
// in one tasks/update.
func (t *Task) answer(ctx context.Context, st *TaskState) error {
	reqs := mcp.InputRequestMap{}
	for id, r := range st.InputRequests {
		if !t.answered[id] {
			reqs[id] = r
		}
	}
	if len(reqs) == 0 {
		return nil // answered; the server has not moved on yet
	}
	if t.updates == t.c.limits.MaxInputRounds {
		return fmt.Errorf("%w: the task asked for input again after %d rounds", reasonErr(ReasonInputRounds), t.updates)
	}
	answers, err := t.c.fulfil(ctx, reqs)
	if err != nil {
		return err
	}
	for _, id := range slices.Collect(maps.Keys(reqs)) {
		t.answered[id] = true
	}
	t.updates++
	ctx, cancel := context.WithTimeout(ctx, t.c.limits.requestTimeout())
	defer cancel()
	if err := t.update(ctx, answers); err != nil {
		t.updateFailed = true
		return fmt.Errorf("tasks/update: %w", err)
	}
	return nil
}

// giveUp cancels the task for a caller that stopped waiting for it, within
// TaskCancelWait. It does not when the task is over or the connection
// lost. Nor does it when a tasks/update failed, since the server may have
// taken its answer: the caller decides, with the task's id.
func (t *Task) giveUp(ctx context.Context, err error) {
	if t.id == "" || t.last.Status.Terminal() || t.updateFailed || errors.Is(err, mcp.ErrConnectionClosed) {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), TaskCancelWait)
	defer cancel()
	_ = t.cancel(ctx)
}
