package client

import (
	"context"
	"slices"
	"time"

	"github.com/looprig/mcp/internal/wire"
)

// A server may push a task's status changes (notifications/tasks, on the
// subscriptions/listen stream or any stream the client reads), which the
// go-sdk v1.8.0, not knowing the method, drops. The client takes them from
// the connection before the go-sdk reads them (divert): a wait on the task
// named polls it at once, once Limits.TaskPollMin has passed since its last
// poll, instead of at the end of the interval. The notification itself is
// not taken for the task's state: the poll it causes reads that, and
// counts against Limits.MaxTaskPolls as any poll, so a server that pushes
// faster than TaskPollMin gains nothing.
//
// A push may come before the task's wait begins: on another stream, just
// after the task's handle. The client keeps it for the last
// maxEarlyPushes tasks it started, and the wait then polls at once. The
// wait's own listen is in tasklisten.go.

const methodTasksNotification = "notifications/tasks"

// maxEarlyPushes bounds the tasks whose pushed status the client keeps
// until their wait begins: the last 64 tasks it started and is not yet
// waiting on.
const maxEarlyPushes = 64

// early is a task the client started and does not wait on yet.
type early struct {
	id     string
	pushed bool // a status of it was pushed
}

// expectTask notes that the client started task id, so that a status
// pushed before its wait begins wakes that wait.
func (c *Client) expectTask(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.early) == maxEarlyPushes {
		c.early = slices.Delete(c.early, 0, 1)
	}
	c.early = append(c.early, early{id: id})
}

// watchTask returns a channel that receives when the server pushes a
// status of task id, until unwatchTask. A status pushed since the client
// started the task is already in it.
func (c *Client) watchTask(id string) chan struct{} {
	ch := make(chan struct{}, 1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if i := slices.IndexFunc(c.early, func(e early) bool { return e.id == id }); i >= 0 {
		if c.early[i].pushed {
			ch <- struct{}{}
		}
		c.early = slices.Delete(c.early, i, i+1)
	}
	if c.taskWakes == nil {
		c.taskWakes = map[string][]chan struct{}{}
	}
	c.taskWakes[id] = append(c.taskWakes[id], ch)
	return ch
}

func (c *Client) unwatchTask(id string, ch chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.taskWakes[id] = slices.DeleteFunc(c.taskWakes[id], func(x chan struct{}) bool { return x == ch })
	if len(c.taskWakes[id]) == 0 {
		delete(c.taskWakes, id)
	}
}

// taskPushed wakes the waits of the task a notifications/tasks names. For
// a task the client started and does not wait on yet, it keeps the push.
func (c *Client) taskPushed(raw []byte) {
	var p struct {
		TaskID string `json:"taskId"`
	}
	if len(raw) == 0 || wire.Unmarshal(raw, &p) != nil || p.TaskID == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if i := slices.IndexFunc(c.early, func(e early) bool { return e.id == p.TaskID }); i >= 0 {
		c.early[i].pushed = true
	}
	for _, ch := range c.taskWakes[p.TaskID] {
		select {
		case ch <- struct{}{}:
		default: // woken already
		}
	}
}

// sleepOrWake waits d, or until wake receives once floor has passed, or
// until ctx ends (returning its error).
func sleepOrWake(ctx context.Context, d, floor time.Duration, wake <-chan struct{}) error {
	t := time.NewTimer(d)
	defer t.Stop()
	if floor < d {
		f := time.NewTimer(floor)
		defer f.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-f.C:
		}
	} else {
		wake = nil // the interval is the floor: nothing to wake early from
	}
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-wake:
		return nil
	}
}
