package testkit

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// fakeT is a testing.TB whose Fatalf is recorded rather than failing the
// test, and whose go test deadline is set by the test. Everything else
// (Cleanup, Helper, Logf) is the real test's.
type fakeT struct {
	testing.TB
	end time.Time // go test's deadline, as Deadline reports it

	mu    sync.Mutex // guards fatal
	fatal string     // what Fatalf was given, "" if it was not called
}

// newFakeT returns a fakeT of t whose context ends after d.
func newFakeT(t *testing.T, d time.Duration) *fakeT {
	return &fakeT{TB: t, end: time.Now().Add(margin + d)}
}

func (f *fakeT) Deadline() (time.Time, bool) { return f.end, true }

func (f *fakeT) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.fatal = fmt.Sprintf(format, args...)
	f.mu.Unlock()
	runtime.Goexit()
}

func (f *fakeT) Fatal(args ...any) { f.Fatalf("%s", fmt.Sprint(args...)) }

// run calls fn on a goroutine of its own, as a test runs, and returns what
// Fatalf was given ("" if it was not called) and whether fn returned
// rather than ending in Fatalf. It fails the real test if fn has not
// ended by the real test's deadline.
func (f *fakeT) run(fn func()) (fatal string, returned bool) {
	done := make(chan bool, 1)
	go func() {
		ok := false
		defer func() { done <- ok }()
		fn()
		ok = true
	}()
	returned = Await(f.TB, done, "the helper under test to end")
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fatal, returned
}
