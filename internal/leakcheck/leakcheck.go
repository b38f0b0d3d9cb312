// Package leakcheck fails a test that leaves goroutines behind.
//
// Call Check at the start of a test (or in TestMain through [Main]); at cleanup
// it waits, polling with a deadline, for every goroutine started since to end,
// and fails the test with their stacks if some are still running.
//
// The wait ends as soon as nothing is left. It also ends early when what is
// left is parked: the same goroutines, each blocked on a channel, a select
// or a lock, for [Settle] in a row. Nothing of the code under test is
// running to wake them (a goroutine about to end is running, runnable, in a
// system call, waiting for I/O or sleeping), so waiting the full [Timeout]
// would only delay the report. A goroutine that waits on a timer through a
// channel or a select for longer than Settle after its test ended is
// reported as left behind.
package leakcheck

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// Timeout is how long Check waits at cleanup for goroutines to end. Ending
// goroutines (a reaper that saw its process exit, a reader that saw EOF) need
// a moment; a leaked one never ends.
var Timeout = 5 * time.Second

// Settle is how long the goroutines left behind must stay the same and
// parked before they are reported without waiting for Timeout.
const Settle = 500 * time.Millisecond

// Check records the goroutines running now and registers a cleanup that fails
// t if goroutines other than those are still running when the test ends.
// Tests that call t.Parallel must not use Check: their siblings' goroutines
// would be reported.
func Check(t testing.TB) {
	t.Helper()
	before := ids(stacks())
	t.Cleanup(func() {
		t.Helper()
		if leaked := Leaked(before, Timeout); len(leaked) > 0 {
			t.Errorf("leakcheck: %d goroutine(s) left behind:\n\n%s", len(leaked), strings.Join(leaked, "\n\n"))
		}
	})
}

// Main runs the tests and then fails the binary if goroutines are left behind.
// Use it as TestMain's body: os.Exit(leakcheck.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if code != 0 {
		return code
	}
	if leaked := Leaked(nil, Timeout); len(leaked) > 0 {
		os.Stderr.WriteString("leakcheck: goroutines left behind after all tests:\n\n" + strings.Join(leaked, "\n\n") + "\n")
		return 1
	}
	return 0
}

// Leaked waits up to timeout for the goroutines not in before (nil: all but
// the runtime's and the test framework's own) to end, and returns the stacks
// of those that did not.
//
// It returns early when the same goroutines have stayed parked for Settle
// (see the package documentation).
func Leaked(before map[string]bool, timeout time.Duration) []string {
	deadline := time.Now().Add(timeout)
	var parkedSince time.Time
	var parkedSet string
	for delay := time.Millisecond; ; delay = min(2*delay, 100*time.Millisecond) {
		var leaked []string
		for _, g := range stacks() {
			if before[id(g)] || ignorable(g) {
				continue
			}
			leaked = append(leaked, g)
		}
		slices.Sort(leaked)
		now := time.Now()
		if len(leaked) == 0 || now.After(deadline) {
			return leaked
		}
		switch set := headers(leaked); {
		case !allParked(leaked):
			parkedSet = ""
		case set != parkedSet:
			parkedSet, parkedSince = set, now
		case now.Sub(parkedSince) >= Settle:
			return leaked
		}
		time.Sleep(delay) // polling with a deadline: the goroutines end on their own
	}
}

// headers returns the goroutines' header lines (number and state), which
// change when any of them moves.
func headers(gs []string) string {
	var b strings.Builder
	for _, g := range gs {
		h, _, _ := strings.Cut(g, "\n")
		b.WriteString(h)
		b.WriteByte('\n')
	}
	return b.String()
}

// parkedStates are the goroutine states that only another goroutine can
// end: blocked on a channel, a select or a lock.
var parkedStates = []string{
	"chan receive", "chan send", "select", "sync.Mutex.Lock", "sync.RWMutex.Lock",
	"sync.RWMutex.RLock", "sync.Cond.Wait", "sync.WaitGroup.Wait", "semacquire",
}

// allParked reports whether every goroutine is in a parked state.
func allParked(gs []string) bool {
	for _, g := range gs {
		_, state, _ := strings.Cut(g, " [")
		state, _, _ = strings.Cut(state, "]")
		state, _, _ = strings.Cut(state, ",") // "chan receive, 3 minutes"
		if !slices.ContainsFunc(parkedStates, func(p string) bool { return strings.HasPrefix(state, p) }) {
			return false
		}
	}
	return true
}

func stacks() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	gs := strings.Split(string(buf), "\n\n")
	// The first is the caller's own goroutine.
	return gs[1:]
}

func ids(gs []string) map[string]bool {
	m := make(map[string]bool, len(gs))
	for _, g := range gs {
		m[id(g)] = true
	}
	return m
}

// id is the goroutine's header number ("goroutine 12").
func id(g string) string {
	head, _, _ := strings.Cut(g, " [")
	return head
}

// ignorable reports whether g belongs to the runtime or the test framework
// rather than to the code under test.
func ignorable(g string) bool {
	for _, s := range []string{
		"created by testing.",   // test goroutines: tRunner, parallel siblings
		"testing.(*M).",         // the test binary's main
		"testing.runFuzzing",    // the fuzzing coordinator
		"os/signal.",            // signal.Notify's loop
		"runtime.ensureSigM",    // the runtime's signal mask keeper
		"created by runtime.gc", // background GC workers
		"runtime.ReadTrace",     // the tracer
		"created by os/signal.Notify",
	} {
		if strings.Contains(g, s) {
			return true
		}
	}
	return false
}
