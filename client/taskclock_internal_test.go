package client

import (
	"context"
	"sync"
	"time"
)

// FakeTaskClock is time for a client's task waits that moves only when a
// wait sleeps, by exactly what it sleeps, so that the bounds on polling
// are tested at their edges without a timer.
type FakeTaskClock struct {
	mu     sync.Mutex // guards the fields below
	now    time.Time
	sleeps []time.Duration
}

// SetFakeTaskClock makes c's task waits see time as the returned clock
// says (tests only).
func SetFakeTaskClock(c *Client) *FakeTaskClock {
	f := &FakeTaskClock{now: time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)}
	c.clock = f
	return f
}

func (f *FakeTaskClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *FakeTaskClock) Sleep(ctx context.Context, d, _ time.Duration, _ <-chan struct{}) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	f.sleeps = append(f.sleeps, d)
	return nil
}

// Sleeps returns what the waits slept, in order.
func (f *FakeTaskClock) Sleeps() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.sleeps...)
}

// SetLateWait sets how long a given-up tools/call that may create a task
// waits for its reply, TaskCancelWait otherwise (tests only).
func SetLateWait(c *Client, d time.Duration) { c.lateWait = d }
