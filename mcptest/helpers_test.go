package mcptest_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// recT is a testing.TB that records failures and runs its cleanups when
// told, so that a test can check what a helper reports.
type recT struct {
	testing.TB // the real test: TempDir, Name
	mu         sync.Mutex
	failures   []string
	cleanups   []func()
}

func (r *recT) Helper() {}
func (r *recT) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}
func (r *recT) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *recT) Fatalf(format string, args ...any) { r.Errorf(format, args...); runtime.Goexit() }
func (r *recT) Fatal(args ...any)                 { r.Errorf("%s", fmt.Sprint(args...)); runtime.Goexit() }
func (r *recT) Logf(string, ...any)               {}

// run runs f as a test body on its own goroutine, then the cleanups, and
// returns the failures.
func (r *recT) run(f func(testing.TB)) []string {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
	return r.failures
}

// Failed reports whether the body failed, not the real test.
func (r *recT) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.failures) > 0
}
