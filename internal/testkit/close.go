package testkit

import (
	"io"
	"testing"
	"time"
)

// CloseWithin calls c.Close and returns how long it took and its error,
// failing t (Fatalf) if Close has not returned within limit or by the
// test's deadline ([Context]), so that a broken bound fails the test
// rather than hanging it. Close runs on a goroutine of its own, which is
// left behind only when the test fails.
//
// The duration is for the test's log and for bounds far wider than the
// one under test; a test never asserts a tight duration.
func CloseWithin(t testing.TB, c io.Closer, limit time.Duration) (time.Duration, error) {
	t.Helper()
	ctx := Context(t)
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- c.Close() }()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case err := <-done:
		took := time.Since(start)
		t.Logf("Close took %v", took.Round(time.Millisecond))
		return took, err
	case <-timer.C:
		t.Fatalf("testkit: Close has not returned after %v", limit)
	case <-ctx.Done():
		t.Fatalf("testkit: Close has not returned by the test's deadline (%v)", time.Since(start).Round(time.Millisecond))
	}
	return 0, nil
}
