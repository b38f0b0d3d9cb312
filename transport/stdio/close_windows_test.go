package stdio_test

import (
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport/stdio"
	"golang.org/x/sys/windows"
)

// These tests are Windows's: a child's descendants are the processes of its
// job object, which Close terminates after closing stdin and waiting
// CloseGrace. They count processes at the system (a process handle waited
// on), not through the package.

// running reports whether process pid runs.
func running(t *testing.T, pid int) bool {
	t.Helper()
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false // no such process any more
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	if err != nil {
		t.Fatalf("waiting on process %d: %v", pid, err)
	}
	return ev == uint32(windows.WAIT_TIMEOUT)
}

// recordedGrandchild waits until the child records its grandchild's pid.
func recordedGrandchild(t *testing.T, path string) int {
	t.Helper()
	var pid int
	testkit.Poll(t, "the child records its grandchild", func() bool {
		for _, line := range readRecord(path) {
			if s, ok := strings.CutPrefix(line, "grandchild "); ok {
				pid, _ = strconv.Atoi(s)
				return true
			}
		}
		return false
	})
	return pid
}

// A grandchild the child started at once (it ran from its first
// instruction in the job: the child was created suspended and assigned
// first) is one of its descendants, and does not outlive Close, although
// the child itself exits by itself when its stdin ends.
func TestJobEndsEveryDescendantAtClose(t *testing.T) {
	leakcheck.Check(t)
	path, env := recordFile(t)
	c := connect(t, newFactory(t, "grandchild", &stdio.Options{Env: env}))
	gpid := recordedGrandchild(t, path)
	if !running(t, gpid) {
		t.Fatalf("grandchild %d is not running before Close", gpid)
	}
	if got := c.Descendants(); !slices.Contains(got, gpid) {
		t.Errorf("Descendants() = %v, want it to hold the grandchild %d", got, gpid)
	}
	if !stdio.GroupAlive(c.Pid()) {
		t.Error("GroupAlive before Close = false")
	}
	if _, err := testkit.CloseWithin(t, c, closeLimit); err != nil {
		t.Fatal(err)
	}
	if running(t, gpid) {
		t.Errorf("grandchild %d is still running after Close", gpid)
	}
	if d := c.Diagnose(); d == nil || !d.Exited || d.Signal != "" || d.ExitCode != 0 {
		t.Errorf("Diagnose() = %v, want the child to have exited by itself with status 0", d)
	}
	if diff := cmp.Diff([]syscall.Signal{syscall.SIGKILL}, stdio.Sent(c)); diff != "" {
		t.Errorf("terminations mismatch (-want +got):\n%s", diff)
	}
	if got := c.Descendants(); len(got) != 0 {
		t.Errorf("Descendants() after Close = %v, want none", got)
	}
	if stdio.GroupAlive(c.Pid()) {
		t.Error("GroupAlive after Close = true")
	}
}

// A child that ignores the end of its stdin sees it first, and is ended
// by the job's termination once CloseGrace has passed; it reads as killed
// by SIGKILL.
func TestJobTerminatesAChildThatIgnoresEOF(t *testing.T) {
	leakcheck.Check(t)
	path, env := recordFile(t)
	const grace = 100 * time.Millisecond
	c := connect(t, newFactory(t, "stubborn", &stdio.Options{Env: env, CloseGrace: grace, TermGrace: time.Hour}))
	waitReady(t, path)
	done := make(chan error, 1)
	go func() { done <- c.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * (grace + 5*time.Second)):
		t.Fatal("Close has not returned: TermGrace (an hour) must not be waited on Windows")
	}
	testkit.Poll(t, "the child's record of its stdin's end", func() bool { return slices.Contains(readRecord(path), "stdin-eof") })
	if d := c.Diagnose(); d == nil || d.Signal != "SIGKILL" || d.ExitCode != -1 {
		t.Errorf("Diagnose() = %v, want killed (SIGKILL) by the job's termination", d)
	}
	if running(t, c.Pid()) {
		t.Errorf("child %d is running after Close", c.Pid())
	}
}
