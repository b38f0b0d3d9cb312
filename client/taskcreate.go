package client

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/looprig/mcp/protocol"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A caller may give up on a tools/call after it went out and before the
// reply that creates its task comes back. Cancelling the request then, as
// the go-sdk does, would lose that reply: over Streamable HTTP the POST is
// aborted, elsewhere the go-sdk drops an answer it no longer waits for,
// and the task the server made would run on unnamed and uncancelled. So a
// tools/call that may create a task (the caller declared the extension and
// the server lists it) is sent on a context of its own, which outlives the
// caller's by TaskCancelWait: the caller returns at once, and the call, on
// a goroutine the Client owns (counted with the calls Close drains), waits
// for its reply. A reply that names a task is answered with tasks/cancel,
// within TaskCancelWait; a reply that does not come in time is cancelled
// as the go-sdk cancels any request (notifications/cancelled). The
// tools/call itself is never sent again.

// mayCreateTask reports whether a tools/call that declares the tasks
// extension may be answered with a task: the revision has per-request
// capabilities, and the server lists the extension.
func (c *Client) mayCreateTask() bool {
	res := c.session.InitializeResult()
	if res == nil || res.ProtocolVersion < protocol.Revision20260728 || res.Capabilities == nil {
		return false
	}
	_, ok := res.Capabilities.Extensions[TasksExtension]
	return ok
}

// callCreating sends one tools/call that declares the tasks extension, on
// a context that outlives ctx by c.lateWait (see above), and returns the
// slot that holds its raw answer. A caller whose ctx ends first gets
// ctx's error at once.
func (c *Client) callCreating(ctx context.Context, tool string, p *mcp.CallToolParams) (*answerSlot, *mcp.CallToolResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err // given up before anything was sent
	}
	sctx, stop := outliving(ctx, c.base, c.lateWait)
	sctx, slot := withSlot(optIn(sctx))
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	ch := make(chan answer, 1)
	// claimed is set by whichever comes first: the caller giving up, or
	// the answer; the one that comes second knows the other is there.
	var claimed atomic.Bool
	c.inflight.Add(1) // the caller holds one: Close cannot be past its wait
	go func() {
		defer c.inflight.Done()
		res, err := c.session.CallTool(sctx, p)
		stop()
		ch <- answer{res, err}
		if !claimed.CompareAndSwap(false, true) {
			c.cancelLate(tool, slot) // the caller gave up first
		}
	}()
	select {
	case a := <-ch:
		return slot, a.res, a.err
	case <-ctx.Done():
		if claimed.CompareAndSwap(false, true) {
			return slot, nil, ctx.Err()
		}
		a := <-ch // answered as the caller gave up: the caller's, after all
		return slot, a.res, a.err
	}
}

// cancelLate cancels the task a given-up tools/call's answer names, if it
// names one still running, within TaskCancelWait and Close.
func (c *Client) cancelLate(tool string, slot *answerSlot) {
	raw := slot.get()
	if !isTaskHandle(raw) {
		return
	}
	st, err := decodeTask(raw)
	if err != nil || st.Status.Terminal() {
		return
	}
	ctx, cancel := context.WithTimeout(c.base, TaskCancelWait)
	defer cancel()
	t := &Task{c: c, tool: tool, id: st.ID, last: st}
	_ = t.cancel(ctx)
}

// outliving returns a context with ctx's values that ends grace after ctx
// ends, or when base ends, or when stop is called.
func outliving(ctx, base context.Context, grace time.Duration) (out context.Context, stop func()) {
	out, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var mu sync.Mutex // guards timer, and orders stop after the timer's start
	var timer *time.Timer
	stopCtx := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if out.Err() == nil {
			timer = time.AfterFunc(grace, cancel)
		}
	})
	stopBase := context.AfterFunc(base, cancel)
	return out, func() {
		mu.Lock()
		cancel()
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
		stopCtx()
		stopBase()
	}
}
