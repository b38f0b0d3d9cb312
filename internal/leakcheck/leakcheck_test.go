package leakcheck

import (
	"strings"
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

// A goroutine parked forever on a channel is reported without waiting for
// the whole timeout (the test's own deadline bounds this one's hour); one
// that is sleeping towards its end is waited for, and not reported.
func TestLeakedReportsParkedGoroutinesEarly(t *testing.T) {
	before := ids(stacks())
	stop := make(chan struct{})
	go func() { <-stop }()
	if got := Leaked(before, time.Hour); len(got) != 1 || !strings.Contains(got[0], "[chan receive") {
		t.Errorf("Leaked = %v, want the parked goroutine", got)
	}
	close(stop)

	before = ids(stacks())
	go func() { time.Sleep(2 * Settle) }() // not synchronisation: a goroutine that ends late, by itself
	if got := Leaked(before, time.Hour); len(got) != 0 {
		t.Errorf("Leaked = %v, want none: the sleeper ends by itself", got)
	}
}

func TestAllParked(t *testing.T) {
	for header, want := range map[string]bool{
		"goroutine 7 [chan receive]:":            true,
		"goroutine 7 [chan receive, 3 minutes]:": true,
		"goroutine 7 [select]:":                  true,
		"goroutine 7 [sync.Mutex.Lock]:":         true,
		"goroutine 7 [IO wait]:":                 false,
		"goroutine 7 [syscall]:":                 false,
		"goroutine 7 [sleep]:":                   false,
		"goroutine 7 [runnable]:":                false,
		"goroutine 7 [running]:":                 false,
	} {
		if got := allParked([]string{header + "\nmain.f()"}); got != want {
			t.Errorf("allParked(%q) = %v, want %v", header, got, want)
		}
	}
}
