package testkit

import (
	"context"
	"sync"
	"testing"
	"time"
)

// Timeout is how long a test may take from its first call of [Context]
// before its context ends, so that a broken guard fails the test at this
// deadline rather than hanging it until go test's -timeout.
const Timeout = time.Minute

// margin is how long before go test's own deadline (-timeout) a test's
// context ends, so that the test fails with its own reason before go test
// panics.
const margin = time.Second

// contexts holds each running test's context, by its testing.TB.
var contexts sync.Map // testing.TB → context.Context

// Context returns t's context: the same one for every call during the
// test, done at the test's deadline ([Timeout] after the first call, or
// a second before go test's -timeout if that comes first) and cancelled
// at cleanup. A subtest has a context of its own.
//
// Unlike t.Context, which ends before the cleanups run, it stays live for
// the cleanups registered after its first call.
//
// In a testing/synctest bubble, whose clock moves whenever every goroutine
// in it waits, a deadline would pass whenever the test moves the clock;
// there the context has none, and synctest itself fails a test whose
// goroutines all block.
func Context(t testing.TB) context.Context {
	t.Helper()
	if ctx, ok := contexts.Load(t); ok {
		return ctx.(context.Context)
	}
	var ctx context.Context
	var cancel context.CancelFunc
	if end, ok := deadline(t); ok {
		ctx, cancel = context.WithDeadline(context.Background(), end)
	} else {
		ctx, cancel = context.WithCancel(context.Background())
	}
	if prev, loaded := contexts.LoadOrStore(t, ctx); loaded {
		cancel() // a goroutine of the test stored one first
		return prev.(context.Context)
	}
	t.Cleanup(func() {
		contexts.Delete(t)
		cancel()
	})
	return ctx
}

// deadline returns when t's context ends: Timeout from now, or margin
// before go test's deadline if that is sooner. It reports none in a
// synctest bubble, where t.Deadline panics.
func deadline(t testing.TB) (end time.Time, ok bool) {
	end = time.Now().Add(Timeout)
	dt, has := t.(interface{ Deadline() (time.Time, bool) })
	if !has {
		return end, true
	}
	defer func() {
		if recover() != nil {
			end, ok = time.Time{}, false
		}
	}()
	if goTest, set := dt.Deadline(); set && goTest.Add(-margin).Before(end) {
		end = goTest.Add(-margin)
	}
	return end, true
}
