package leakcheck

import (
	"testing"
	"time"
)

func TestLeakedReportsARunningGoroutine(t *testing.T) {
	before := ids(stacks())
	stop := make(chan struct{})
	go func() { <-stop }()
	if got := Leaked(before, 50*time.Millisecond); len(got) != 1 {
		t.Errorf("Leaked = %d goroutines, want 1:\n%v", len(got), got)
	}
	close(stop)
	if got := Leaked(before, Timeout); len(got) != 0 {
		t.Errorf("Leaked after stop = %v, want none", got)
	}
}
