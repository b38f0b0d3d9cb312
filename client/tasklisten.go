package client

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/looprig/mcp/internal/wire"
	"github.com/looprig/mcp/protocol"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Listening for a task's status. On 2026-07-28 over Streamable HTTP, a
// wait of a Definition with Tasks opens a subscriptions/listen naming its
// task (taskIds). Once the server acknowledges the id, the wait polls at
// Limits.TaskPollMax, and the server's push of a status wakes it to poll
// at once (taskpush.go). The listen ends with the wait.
//
// The go-sdk v1.8.0 knows no taskIds, and will not send a listen it did
// not make. So the listen is sent as a custom method of the client's
// (methodSendTaskListen), renamed subscriptions/listen by the client's
// outermost sending middleware. The go-sdk then sends it as its own
// listens: in the background, its answer awaited by nobody. The client
// reads the acknowledgement's taskIds before the go-sdk decodes it
// (divert), and learns the listen ended from the transport's tap of its
// answer.

const (
	methodListen = "subscriptions/listen"
	// methodSendTaskListen is the name the client gives its task listen
	// until its sending middleware renames it.
	methodSendTaskListen = "looprig/tasks-listen"
	methodAcknowledged   = "notifications/subscriptions/acknowledged"
)

// maxTaskListens bounds the task listens a client holds open at once: 8.
// Each holds one of the transport's concurrent streams. A wait past it
// polls without a listen.
const maxTaskListens = 8

// taskListenWait bounds a wait's wait for the server to answer its listen,
// before its first poll: ListAckWait.
const taskListenWait = ListAckWait

// taskListenParams are the params of a subscriptions/listen for tasks.
type taskListenParams struct {
	mcp.ParamsBase
	Notifications struct {
		TaskIDs []string `json:"taskIds"`
	} `json:"notifications"`
}

// A taskListen is one wait's subscriptions/listen for its task.
type taskListen struct {
	id      string
	settled chan struct{} // closed once the server acknowledged the id or the listen ended
	wake    chan struct{} // the wait's: the end of an agreed listen wakes it
	stop    context.CancelFunc
	sent    sync.WaitGroup // the goroutine sending the listen
	awaited bool           // the wait has waited for the server's answer

	once   sync.Once
	mu     sync.Mutex // guards the fields below
	agreed bool       // acknowledged, and not ended
	over   bool       // ended
}

// agree records that the server acknowledged the task, unless the listen
// ended.
func (l *taskListen) agree() {
	l.mu.Lock()
	l.agreed = !l.over
	l.mu.Unlock()
	l.once.Do(func() { close(l.settled) })
}

// ended records that the listen ended: its answer came, or it failed.
// The server ends an agreed listen once the task has ended, so its end
// wakes the wait.
func (l *taskListen) ended() {
	l.mu.Lock()
	agreed := l.agreed
	l.agreed, l.over = false, true
	l.mu.Unlock()
	l.once.Do(func() { close(l.settled) })
	if agreed {
		select {
		case l.wake <- struct{}{}:
		default: // woken already
		}
	}
}

// acked reports whether the server agreed to push the task's status on a
// listen still open.
func (l *taskListen) acked() bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.agreed
}

// listenTask opens a subscriptions/listen for task id, when the client
// may: on 2026-07-28, over a transport that shows it the listen's
// acknowledgement (Streamable HTTP), for a Definition with Tasks and
// TaskListen, within
// maxTaskListens. It returns nil when it does not. The caller ends the
// listen with unlisten. wake is the wait's (watchTask).
func (c *Client) listenTask(ctx context.Context, id string, wake chan struct{}) *taskListen {
	if !c.def.Tasks || !c.def.TaskListen || !c.taskListenable || c.ProtocolVersion() != protocol.Revision20260728 {
		return nil
	}
	c.mu.Lock()
	n := 0
	for _, ls := range c.taskListens {
		n += len(ls)
	}
	if c.closing || n == maxTaskListens {
		c.mu.Unlock()
		return nil
	}
	l := &taskListen{id: id, settled: make(chan struct{}), wake: wake}
	if c.taskListens == nil {
		c.taskListens = map[string][]*taskListen{}
	}
	c.taskListens[id] = append(c.taskListens[id], l)
	c.mu.Unlock()

	ctx, l.stop = context.WithCancel(ctx)
	ctx = context.WithValue(optIn(ctx), listenEndKey{}, l.ended)
	p := &taskListenParams{}
	p.Notifications.TaskIDs = []string{id}
	l.sent.Add(1)
	go func() { // the go-sdk sends a listen in the background; its POST may wait for headers
		defer l.sent.Done()
		if _, err := mcp.CallCustomMethod[*taskListenParams, *rawResult](ctx, c.session, methodSendTaskListen, p); err != nil {
			l.ended()
		}
	}()
	return l
}

// unlisten ends the listen l (nil: none).
func (c *Client) unlisten(l *taskListen) {
	if l == nil {
		return
	}
	l.stop()
	l.sent.Wait()
	l.ended()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.taskListens[l.id] = slices.DeleteFunc(c.taskListens[l.id], func(x *taskListen) bool { return x == l })
	if len(c.taskListens[l.id]) == 0 {
		delete(c.taskListens, l.id)
	}
}

// await waits for the server's answer to l, the first time within
// taskListenWait, later not at all. It reports whether the server agreed
// to push the task's status on a listen still open. Only l's wait calls
// it.
func (l *taskListen) await(ctx context.Context) (bool, error) {
	if !l.awaited {
		l.awaited = true
		if err := sleepOrWake(ctx, taskListenWait, 0, l.settled); err != nil {
			return false, err
		}
	}
	return l.acked(), nil
}

// tasksAcked marks the listens of the task ids a
// notifications/subscriptions/acknowledged names as agreed.
func (c *Client) tasksAcked(raw []byte) {
	var p struct {
		Notifications struct {
			TaskIDs []string `json:"taskIds"`
		} `json:"notifications"`
	}
	if len(raw) == 0 || wire.Unmarshal(raw, &p) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range p.Notifications.TaskIDs {
		for _, l := range c.taskListens[id] {
			l.agree()
		}
	}
}

type listenEndKey struct{}

// listenEnd calls the end of the task listen ctx was given for, if any,
// and reports whether it did.
func listenEnd(ctx context.Context) bool {
	end, ok := ctx.Value(listenEndKey{}).(func())
	if ok {
		end()
	}
	return ok
}

// sendTaskListen is the client's outermost sending middleware: it sends
// its task listen as subscriptions/listen (see above).
func sendTaskListen(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != methodSendTaskListen {
			return next(ctx, method, req)
		}
		if _, err := next(ctx, methodListen, req); err != nil {
			return nil, err
		}
		return &rawResult{}, nil
	}
}

// backedOff is the time a wait whose server pushes the task's status
// sleeps: Limits.TaskPollMax, or wait if longer, and no later than the
// wait's TaskTimeout from start.
func (c *Client) backedOff(wait time.Duration, start time.Time) time.Duration {
	d := max(wait, c.limits.TaskPollMax)
	if lim := c.limits.TaskTimeout; lim > 0 {
		d = min(d, max(wait, lim-c.clock.Now().Sub(start)))
	}
	return d
}
