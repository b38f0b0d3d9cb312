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
// at cleanup. A subtest has a context of its own. In a testing/synctest
// bubble the deadline is on the bubble's clock.
//
// Unlike t.Context, which ends before the cleanups run, it stays live for
// the cleanups registered after its first call.
func Context(t testing.TB) context.Context {
	t.Helper()
	if ctx, ok := contexts.Load(t); ok {
		return ctx.(context.Context)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline(t))
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
// before go test's deadline if that is sooner.
func deadline(t testing.TB) time.Time {
	d := time.Now().Add(Timeout)
	if end, ok := goTestDeadline(t); ok && end.Add(-margin).Before(d) {
		d = end.Add(-margin)
	}
	return d
}

// goTestDeadline returns t.Deadline, if t has one. In a testing/synctest
// bubble, where t.Deadline panics and time is the bubble's own, it reports
// none.
func goTestDeadline(t testing.TB) (end time.Time, ok bool) {
	dt, ok := t.(interface{ Deadline() (time.Time, bool) })
	if !ok {
		return time.Time{}, false
	}
	defer func() {
		if recover() != nil {
			end, ok = time.Time{}, false
		}
	}()
	return dt.Deadline()
}
