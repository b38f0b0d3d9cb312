package testkit

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// A test has one context, the same for every call, with a deadline at
// most Timeout away; a subtest has its own, cancelled when the subtest
// ends.
func TestContextIsTheTestsOwn(t *testing.T) {
	before := time.Now()
	ctx := Context(t)
	if again := Context(t); again != ctx {
		t.Error("a second Context(t) returned another context")
	}
	d, ok := ctx.Deadline()
	if !ok || d.After(time.Now().Add(Timeout)) || d.Before(before) {
		t.Errorf("Deadline() = %v, %v; want one within Timeout (%v) of the first call", d, ok, Timeout)
	}
	var sub context.Context
	t.Run("sub", func(t *testing.T) {
		sub = Context(t)
		if sub == ctx {
			t.Error("the subtest has its parent's context")
		}
		if err := sub.Err(); err != nil {
			t.Errorf("the subtest's context during the subtest: %v, want live", err)
		}
	})
	if err := sub.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("the subtest's context after it ended: %v, want context.Canceled", err)
	}
	if err := ctx.Err(); err != nil {
		t.Errorf("the test's context after a subtest ended: %v, want live", err)
	}
}

// The context ends margin before go test's own deadline when that is
// sooner than Timeout, so that the test fails with its reason first.
func TestContextEndsBeforeGoTestsDeadline(t *testing.T) {
	f := newFakeT(t, 200*time.Millisecond)
	d, ok := Context(f).Deadline()
	if want := f.end.Add(-margin); !ok || !d.Equal(want) {
		t.Errorf("Deadline() = %v, %v; want %v, margin (%v) before go test's", d, ok, want, margin)
	}
	<-Context(f).Done()
	if err := Context(f).Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Err() = %v, want context.DeadlineExceeded", err)
	}
}

// Cleanups registered after the first call of Context run while the
// context is live (it is cancelled after them), unlike t.Context's.
func TestContextLiveInLaterCleanups(t *testing.T) {
	var inCleanup error = errors.New("the cleanup did not run")
	var ctx context.Context
	t.Run("sub", func(t *testing.T) {
		ctx = Context(t)
		t.Cleanup(func() { inCleanup = ctx.Err() })
	})
	if inCleanup != nil {
		t.Errorf("the context in a later cleanup: %v, want live", inCleanup)
	}
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("the context after the cleanups: %v, want context.Canceled", ctx.Err())
	}
}

// In a synctest bubble, where t.Deadline panics and the test moves the
// clock at will, the test's context has no deadline, and is cancelled at
// cleanup.
func TestContextInASynctestBubble(t *testing.T) {
	var ctx context.Context
	synctest.Test(t, func(t *testing.T) {
		ctx = Context(t)
		if d, ok := ctx.Deadline(); ok {
			t.Errorf("Deadline() = %v, want none in a bubble", d)
		}
		time.Sleep(24 * time.Hour) // the bubble's clock moves; nothing is waited for
		if err := ctx.Err(); err != nil {
			t.Errorf("a day later on the bubble's clock: %v, want live", err)
		}
	})
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("after the bubble's test: %v, want context.Canceled", ctx.Err())
	}
}
