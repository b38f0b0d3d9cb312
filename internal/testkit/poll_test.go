package testkit

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Poll checks at once and then until the condition holds, and returns
// then, the test going on.
func TestPollReturnsOnceTheConditionHolds(t *testing.T) {
	calls := 0
	Poll(t, "the third check", func() bool { calls++; return calls == 3 })
	if calls != 3 {
		t.Errorf("cond called %d times, want 3 (returning at the first true)", calls)
	}
	calls = 0
	Poll(t, "the first check", func() bool { calls++; return true })
	if calls != 1 {
		t.Errorf("cond true at once called %d times, want 1", calls)
	}
}

// A poll whose condition never holds fails the test at its deadline,
// saying what it waited for, and goes no further.
func TestPollThatTimesOutReportsItsReason(t *testing.T) {
	f := newFakeT(t, 50*time.Millisecond)
	fatal, returned := f.run(func() {
		Poll(f, "the server to see the close", func() bool { return false })
	})
	if returned {
		t.Error("Poll returned though its condition never held")
	}
	if !strings.Contains(fatal, "the server to see the close") || !strings.Contains(fatal, "deadline") {
		t.Errorf("Fatalf(%q), want the reason and the deadline named", fatal)
	}
}

// Await returns what the channel delivers, and the zero value of a closed
// channel.
func TestAwaitReturnsTheValue(t *testing.T) {
	ch := make(chan int, 1)
	ch <- 7
	if got := Await(t, ch, "seven"); got != 7 {
		t.Errorf("Await = %d, want 7", got)
	}
	close(ch)
	if got := Await(t, ch, "the close"); got != 0 {
		t.Errorf("Await of a closed channel = %d, want 0", got)
	}
}

// An Await that nothing answers fails the test at its deadline with what
// it waited for.
func TestAwaitThatTimesOutReportsWhat(t *testing.T) {
	f := newFakeT(t, 50*time.Millisecond)
	fatal, returned := f.run(func() { Await(f, make(chan struct{}), "the handler's start") })
	if returned || !strings.Contains(fatal, "the handler's start") {
		t.Errorf("Await of a silent channel: returned %v, Fatalf(%q); want a failure naming what", returned, fatal)
	}
}

// TestPollUntil: true once the condition holds (on the third check), false
// when the context ends first.
func TestPollUntil(t *testing.T) {
	n := 0
	if !PollUntil(Context(t), func() bool { n++; return n == 3 }) || n != 3 {
		t.Errorf("PollUntil returned before the condition held (%d checks)", n)
	}
	ctx, cancel := context.WithTimeout(Context(t), 20*time.Millisecond)
	defer cancel()
	if PollUntil(ctx, func() bool { return false }) {
		t.Error("PollUntil = true for a condition that never holds")
	}
}
