package testkit

import (
	"context"
	"testing"
	"time"
)

// PollInterval is how often [Poll] checks its condition.
const PollInterval = 5 * time.Millisecond

// Poll calls cond until it returns true: at once, then every
// [PollInterval]. If the test's context ([Context]) ends first, it fails t
// (Fatalf) saying what it waited for: why, as in "the server to see the
// close". Poll is for what nothing signals (another process's doing, a
// count the server keeps); what a channel signals is waited for with
// [Await].
func Poll(t testing.TB, why string, cond func() bool) {
	t.Helper()
	start := time.Now()
	if !PollUntil(Context(t), cond) {
		t.Fatalf("testkit: waited %v for %s, which never held, until the test's deadline", time.Since(start).Round(time.Millisecond), why)
	}
}

// PollUntil calls cond until it returns true, at once and then every
// [PollInterval], and reports whether it did before ctx ended: Poll for a
// goroutine of a test, or a child process a test runs, that has no t to
// fail.
func PollUntil(ctx context.Context, cond func() bool) bool {
	if cond() {
		return true
	}
	tick := time.NewTicker(PollInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
			if cond() {
				return true
			}
		}
	}
}

// Await returns the next value received from ch (the zero value if ch is
// closed), failing t (Fatalf) with what, as in "the handler's start", if
// the test's context ([Context]) ends first.
func Await[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-Context(t).Done():
		t.Fatalf("testkit: %s: not within the test's deadline", what)
		var zero T
		return zero
	}
}
