//go:build unix

package stdio_test

import (
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport/stdio"
)

// A child that exits when its stdin ends needs no SIGTERM; the group still
// gets SIGKILL (it is empty), the child is reaped, and every concurrent Close
// returns the same result.
func TestCloseConcurrentIdempotent(t *testing.T) {
	leakcheck.Check(t)
	c := connect(t, newFactory(t, "serve", nil))
	if d := c.Diagnose(); d != nil {
		t.Errorf("Diagnose() of a running child = %v, want nil", d)
	}
	errs := make([]error, 8)
	testkit.CloseWithin(t, closerFunc(func() error {
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() { errs[i] = c.Close() })
		}
		wg.Wait()
		return nil
	}), closeLimit)
	if diff := cmp.Diff(make([]error, 8), errs, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
		t.Errorf("Close() results mismatch (-want +got):\n%s", diff)
	}
	if _, err := testkit.CloseWithin(t, c, closeLimit); err != nil {
		t.Errorf("Close() again = %v", err)
	}
	if diff := cmp.Diff([]syscall.Signal{syscall.SIGKILL}, stdio.Sent(c)); diff != "" {
		t.Errorf("signals sent mismatch (-want +got):\n%s", diff)
	}
	if d := c.Diagnose(); d == nil || !d.Exited || d.Signal != "" {
		t.Errorf("Diagnose() = %v, want exited by itself", d)
	}
	if stdio.GroupAlive(c.Pid()) {
		t.Error("GroupAlive after Close = true")
	}
	if s := procState(t, c.Pid()); s != "" {
		t.Errorf("child after Close is in state %q, want reaped", s)
	}
}

// A child blocked writing output that nobody reads still sees the end of its
// stdin at Close and exits by itself: Close drains its output, so no SIGTERM
// is needed.
func TestCloseDrainsUnreadOutput(t *testing.T) {
	leakcheck.Check(t)
	c := connect(t, newFactory(t, "chatty", &stdio.Options{
		Env:        map[string]string{sizeEnv: strconv.Itoa(512 << 10)},
		CloseGrace: 5 * time.Second, // generous: the child must not need it all
	}))
	if _, err := testkit.CloseWithin(t, c, closeLimit); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]syscall.Signal{syscall.SIGKILL}, stdio.Sent(c)); diff != "" {
		t.Errorf("signals sent mismatch (-want +got):\n%s", diff)
	}
	if d := c.Diagnose(); d == nil || !d.Exited || d.ExitCode != 0 || d.Signal != "" {
		t.Errorf("Diagnose() = %v, want exit status 0, by itself", d)
	}
}

// Close closes the child's stdin before it signals anything: the child sees
// the end of stdin first, then SIGTERM.
func TestCloseStdinBeforeSignals(t *testing.T) {
	leakcheck.Check(t)
	path, env := recordFile(t)
	// The grace is long enough for the child to record the end of stdin
	// before SIGTERM even on a loaded machine.
	c := connect(t, newFactory(t, "polite", &stdio.Options{Env: env, CloseGrace: time.Second, TermGrace: 10 * time.Second}))
	waitReady(t, path)
	if _, err := testkit.CloseWithin(t, c, closeLimit); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ready", "stdin-eof", "sigterm"}, readRecord(path)); diff != "" {
		t.Errorf("child observed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]syscall.Signal{syscall.SIGTERM, syscall.SIGKILL}, stdio.Sent(c)); diff != "" {
		t.Errorf("signals sent mismatch (-want +got):\n%s", diff)
	}
	if d := c.Diagnose(); d == nil || d.ExitCode != 0 || d.Signal != "" {
		t.Errorf("Diagnose() = %v, want exit status 0 (it exits on SIGTERM)", d)
	}
}

// A child that ignores both the end of stdin and SIGTERM is killed with
// SIGKILL to its group once both graces have passed.
func TestCloseStubborn(t *testing.T) {
	leakcheck.Check(t)
	path, env := recordFile(t)
	const grace = 100 * time.Millisecond
	c := connect(t, newFactory(t, "stubborn", &stdio.Options{Env: env, CloseGrace: grace, TermGrace: grace}))
	waitReady(t, path)
	elapsed, err := testkit.CloseWithin(t, c, closeLimit)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]syscall.Signal{syscall.SIGTERM, syscall.SIGKILL}, stdio.Sent(c)); diff != "" {
		t.Errorf("signals sent mismatch (-want +got):\n%s", diff)
	}
	if d := c.Diagnose(); d == nil || d.Signal != "SIGKILL" || d.ExitCode != -1 {
		t.Errorf("Diagnose() = %v, want killed by SIGKILL", d)
	}
	if limit := 10 * (2*grace + 500*time.Millisecond); elapsed > limit {
		t.Errorf("Close took %v, want well under %v", elapsed, limit)
	}
	if stdio.GroupAlive(c.Pid()) {
		t.Error("GroupAlive after Close = true")
	}
	t.Logf("recorded %q; Close took %v", readRecord(path), elapsed)
}

// A grandchild that outlives the child (which exits when its stdin ends)
// still dies at Close: the group gets SIGKILL after the leader exited.
func TestCloseKillsGrandchild(t *testing.T) {
	leakcheck.Check(t)
	path, env := recordFile(t)
	c := connect(t, newFactory(t, "grandchild", &stdio.Options{Env: env}))
	var gpid int
	testkit.Poll(t, "the child records its grandchild", func() bool {
		for _, line := range readRecord(path) {
			if s, ok := strings.CutPrefix(line, "grandchild "); ok {
				gpid, _ = strconv.Atoi(s)
				return true
			}
		}
		return false
	})
	if dead(t, gpid) {
		t.Fatalf("grandchild %d is not running before Close", gpid)
	}
	if _, err := testkit.CloseWithin(t, c, closeLimit); err != nil {
		t.Fatal(err)
	}
	if d := c.Diagnose(); d == nil || d.Signal != "" {
		t.Errorf("Diagnose() = %v, want the child to have exited by itself", d)
	}
	if !dead(t, gpid) {
		t.Errorf("grandchild %d is still running after Close (state %s)", gpid, procState(t, gpid))
	}
	if stdio.GroupAlive(c.Pid()) {
		t.Errorf("GroupAlive(%d) after Close = true", c.Pid())
	}
}

// A child that exited on its own stays an unreaped zombie until Close has
// signalled its group, so its group id cannot be reused meanwhile; Close
// reaps it.
func TestExitedChildReapedAtClose(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the group id is reserved this way on Linux only")
	}
	leakcheck.Check(t)
	c := connect(t, newFactory(t, "crash", nil))
	if err := readUntilError(t, c); err == nil {
		t.Fatal("Read succeeded")
	}
	if s := procState(t, c.Pid()); s != "Z" {
		t.Errorf("exited child before Close is in state %q, want Z (unreaped)", s)
	}
	if _, err := testkit.CloseWithin(t, c, closeLimit); err != nil {
		t.Fatal(err)
	}
	if s := procState(t, c.Pid()); s != "" {
		t.Errorf("child after Close is in state %q, want reaped", s)
	}
}

// Close unblocks a Read waiting on a child that says nothing.
func TestCloseUnblocksRead(t *testing.T) {
	leakcheck.Check(t)
	c := connect(t, newFactory(t, "hang", &stdio.Options{CloseGrace: 10 * time.Millisecond, TermGrace: 10 * time.Millisecond}))
	errc := make(chan error, 1)
	ctx := testkit.Context(t)
	go func() {
		_, err := c.Read(ctx)
		errc <- err
	}()
	if _, err := testkit.CloseWithin(t, c, closeLimit); err != nil {
		t.Fatal(err)
	}
	// Read ends with the connection, not at the test's deadline.
	if err := testkit.Await(t, errc, "Read to end with the connection"); err == nil || ctx.Err() != nil {
		t.Errorf("Read after Close = %v (test context: %v), want the connection's end", err, ctx.Err())
	}
}
