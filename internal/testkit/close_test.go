package testkit

import (
	"errors"
	"strings"
	"testing"
	"time"
)

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// CloseWithin returns Close's own error, after Close returned.
func TestCloseWithinReturnsCloseError(t *testing.T) {
	errClose := errors.New("close error")
	closed := false
	_, err := CloseWithin(t, closerFunc(func() error { closed = true; return errClose }), time.Minute)
	if !errors.Is(err, errClose) {
		t.Errorf("CloseWithin = %v, want Close's error", err)
	}
	if !closed {
		t.Error("CloseWithin returned before Close ran")
	}
	if _, err := CloseWithin(t, closerFunc(func() error { return nil }), time.Minute); err != nil {
		t.Errorf("CloseWithin of a clean Close = %v, want nil", err)
	}
}

// A Close that outlasts the limit fails the test, naming the limit.
func TestCloseWithinFailsAHungClose(t *testing.T) {
	release := make(chan struct{})
	ended := make(chan struct{})
	t.Cleanup(func() { close(release); <-ended }) // the hung Close ends with the test
	f := newFakeT(t, time.Minute)
	hung := closerFunc(func() error { defer close(ended); <-release; return nil })
	fatal, returned := f.run(func() { CloseWithin(f, hung, 20*time.Millisecond) })
	if returned || !strings.Contains(fatal, "Close has not returned after 20ms") {
		t.Errorf("CloseWithin of a hung Close: returned %v, Fatalf(%q); want a failure naming the limit", returned, fatal)
	}
}

// The test's deadline bounds CloseWithin too, whatever its limit.
func TestCloseWithinEndsAtTheTestsDeadline(t *testing.T) {
	release := make(chan struct{})
	ended := make(chan struct{})
	t.Cleanup(func() { close(release); <-ended })
	f := newFakeT(t, 50*time.Millisecond)
	hung := closerFunc(func() error { defer close(ended); <-release; return nil })
	fatal, returned := f.run(func() { CloseWithin(f, hung, time.Hour) })
	if returned || !strings.Contains(fatal, "the test's deadline") {
		t.Errorf("CloseWithin past the test's deadline: returned %v, Fatalf(%q); want a failure naming the deadline", returned, fatal)
	}
}
