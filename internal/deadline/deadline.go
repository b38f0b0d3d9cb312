// Package deadline bounds many operations of one duration with one timer.
//
// A Streamable HTTP connection bounds every read of every response body by
// the same idle bound, and every request's wait for its response headers by
// the same header bound. A timer per operation (time.AfterFunc, or an
// http.Transport's ResponseHeaderTimeout) puts a timer in the runtime's
// heap per operation, which often wakes the network poller to sleep again
// for a shorter time: on loopback that is a few percent of a tool call.
//
// A Watch keeps the operations in progress in the order they started,
// which is the order of their deadlines, since they share one duration,
// and keeps one timer armed at or before the earliest. When that operation
// ends early the timer is left as it is: it fires at the old deadline,
// finds nothing due, and is set again for the earliest still in progress.
// Starting and stopping an operation takes a lock and a clock read; the
// timer is set only by the first start after the watch went empty and
// each time it fires.
//
//	w := deadline.New(5 * time.Minute)
//	op := &deadline.Op{Expire: func() { body.Close() }}
//	w.Start(op)
//	n, err := body.Read(p)
//	w.Stop(op)
//	...
//	w.Close(op) // op starts no more: a late Start is ignored
package deadline

import (
	"sync"
	"time"
)

// A Watch calls Expire of each operation still in progress at its
// deadline: its start plus the watch's duration. It is safe for
// concurrent use.
type Watch struct {
	d     time.Duration
	clock clock

	mu         sync.Mutex // guards the fields below and the list fields of every Op
	head, tail *Op        // the operations in progress, by deadline
	timer      timer      // nil until first armed
	armed      bool       // the timer is pending: it fires at or before head's deadline
}

// An Op is one operation a Watch bounds. Its zero value with Expire set is
// ready; an Op may start and stop many times (a body's reads, one after
// another), and belongs to one Watch.
type Op struct {
	// Expire is called once the Op is in progress at its deadline, from
	// the watch's timer goroutine, without the watch's lock.
	Expire func()

	prev, next *Op
	at         time.Time // the deadline of the run in progress
	state      state
}

type state uint8

const (
	idle    state = iota // not started, or stopped
	running              // in the watch's list
	expired              // its deadline passed while in progress; starts no more
	closed               // Close was called; starts no more
)

// New returns a watch of operations bounded by d. A d of zero or less
// bounds nothing: Start does not start an operation.
func New(d time.Duration) *Watch { return &Watch{d: d, clock: realClock{}} }

// Start starts op: unless it is stopped first, Expire is called at its
// deadline, d from now. It reports whether op started: not if the watch
// bounds nothing, or op has expired or been closed, or is in progress.
func (w *Watch) Start(op *Op) bool {
	if w.d <= 0 {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if op.state != idle {
		return false
	}
	op.state = running
	op.at = w.clock.Now().Add(w.d)
	op.prev, op.next = w.tail, nil
	if w.tail != nil {
		w.tail.next = op
	} else {
		w.head = op
	}
	w.tail = op
	if !w.armed {
		w.armed = true
		if w.timer == nil {
			w.timer = w.clock.AfterFunc(w.d, w.fire)
		} else {
			w.timer.Reset(w.d)
		}
	}
	return true
}

// Stop stops op if it is in progress. It reports whether op has expired
// (its Expire has been or is being called).
func (w *Watch) Stop(op *Op) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if op.state == running {
		w.remove(op)
		op.state = idle
	}
	return op.state == expired
}

// Close stops op for good: a Start after it does nothing. It reports
// whether op has expired.
func (w *Watch) Close(op *Op) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch op.state {
	case expired:
		return true
	case running:
		w.remove(op)
	}
	op.state = closed
	return false
}

// remove unlinks op, which is running, from the list. w.mu is held.
func (w *Watch) remove(op *Op) {
	if op.prev != nil {
		op.prev.next = op.next
	} else {
		w.head = op.next
	}
	if op.next != nil {
		op.next.prev = op.prev
	} else {
		w.tail = op.prev
	}
	op.prev, op.next = nil, nil
}

// fire expires the operations whose deadline has come and arms the timer
// for the earliest of the others.
func (w *Watch) fire() {
	w.mu.Lock()
	now := w.clock.Now()
	var due []*Op
	for op := w.head; op != nil && !op.at.After(now); op = w.head {
		w.remove(op)
		op.state = expired
		due = append(due, op)
	}
	if w.head != nil {
		w.timer.Reset(w.head.at.Sub(now))
	} else {
		w.armed = false
	}
	w.mu.Unlock()
	for _, op := range due {
		op.Expire()
	}
}

// clock is the time a Watch reads and the timer it sets; tests give it a
// fake one.
type clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) timer
}

// timer is what a Watch does with its timer: set it again once it fired.
type timer interface{ Reset(d time.Duration) bool }

type realClock struct{}

func (realClock) Now() time.Time                            { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) timer { return time.AfterFunc(d, f) }
