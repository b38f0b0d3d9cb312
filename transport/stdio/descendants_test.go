package stdio_test

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/proctree"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// These tests count processes in /proc: a descendant that left the child's
// process group is found and ended by Close, or the test fails naming it.

func requireProc(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("descendants outside the group are found through /proc, on Linux only")
	}
}

// recordedPid waits until the child records "<what> PID" and returns the
// pid, which is killed at cleanup should the test fail to end it.
func recordedPid(t *testing.T, path, what string) int {
	t.Helper()
	var pid int
	testkit.Poll(t, "the child records its "+what, func() bool {
		for _, line := range readRecord(path) {
			if s, ok := strings.CutPrefix(line, what+" "); ok {
				pid, _ = strconv.Atoi(s)
				return true
			}
		}
		return false
	})
	p, err := proctree.Stat(pid)
	if err != nil {
		t.Fatalf("%s %d: %v", what, pid, err)
	}
	t.Cleanup(func() {
		if cur, err := proctree.Stat(pid); err != nil || !cur.Same(p) || !cur.Running() {
			return
		}
		if ok, _ := proctree.Signal(p, syscall.SIGKILL); ok {
			t.Logf("killed %s %d at cleanup", what, pid)
			proctree.Reap(p)
		}
	})
	return pid
}

// A grandchild that calls setsid leaves the child's process group, so the
// group's SIGKILL misses it; Close finds it in /proc (its parent, the child,
// is still there) and ends it.
func TestCloseEndsSetsidGrandchild(t *testing.T) {
	requireProc(t)
	leakcheck.Check(t)
	path, env := recordFile(t)
	c := connect(t, newFactory(t, "setsid", &stdio.Options{Env: env}))
	gpid := recordedPid(t, path, "grandchild")
	if p, err := proctree.Stat(gpid); err != nil || p.Pgid == c.Pid() || !p.Running() {
		t.Fatalf("grandchild before Close: %+v, %v; want running outside group %d", p, err, c.Pid())
	}
	if _, err := testkit.CloseWithin(t, c, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if !dead(t, gpid) {
		t.Errorf("setsid grandchild %d is still running after Close (state %s)", gpid, procState(t, gpid))
	}
	if got := c.Descendants(); len(got) != 0 {
		t.Errorf("Descendants() after Close = %v, want none", got)
	}
}

// Close sends SIGTERM to a setsid grandchild along with the group, so that
// it can end cleanly too, before SIGKILL; counted at the grandchild, which
// records each SIGTERM it gets.
func TestCloseSendsSIGTERMToSetsidGrandchild(t *testing.T) {
	requireProc(t)
	leakcheck.Check(t)
	path, env := recordFile(t)
	c := connect(t, newFactory(t, "setsidterm", &stdio.Options{Env: env, CloseGrace: 50 * time.Millisecond, TermGrace: 10 * time.Second}))
	gpid := recordedPid(t, path, "grandchild")
	testkit.Poll(t, "the grandchild handles SIGTERM", func() bool {
		return slices.Contains(readRecord(path), fmt.Sprintf("ready %d", gpid))
	})
	if _, err := testkit.CloseWithin(t, c, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(readRecord(path), fmt.Sprintf("sigterm %d", gpid)) {
		t.Errorf("setsid grandchild %d got no SIGTERM before SIGKILL; it recorded %q", gpid, readRecord(path))
	}
	if !dead(t, gpid) {
		t.Errorf("setsid grandchild %d is still running after Close (state %s)", gpid, procState(t, gpid))
	}
}

// A child whose leader thread has exited while its other threads run shows
// as a zombie in /proc; a setsid grandchild that one of those threads
// started is still the child's, and Close ends it. The scans while the
// child runs are off, so that only what Close sees counts.
func TestCloseEndsSetsidGrandchildOfAnExitedLeader(t *testing.T) {
	requireProc(t)
	leakcheck.Check(t)
	stdio.SetTrackInterval(t, 0)
	path, env := recordFile(t)
	c := connect(t, newFactory(t, "leaderexits", &stdio.Options{Env: env}))
	gpid := recordedPid(t, path, "grandchild")
	testkit.Poll(t, "the child's leader thread has exited", func() bool {
		p, err := proctree.Stat(c.Pid())
		return err == nil && p.State == 'Z'
	})
	if _, err := testkit.CloseWithin(t, c, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if !dead(t, gpid) {
		t.Errorf("setsid grandchild %d of a child whose leader exited is still running after Close (state %s)", gpid, procState(t, gpid))
	}
}

// A double fork: the intermediate starts a grandchild with setsid and exits,
// so the grandchild is re-parented to init, out of the child's group and
// ancestry. The child's parentage was tracked while it ran: Close still ends
// the grandchild.
func TestCloseEndsDoubleForkedGrandchild(t *testing.T) {
	requireProc(t)
	leakcheck.Check(t)
	path, env := recordFile(t)
	c := connect(t, newFactory(t, "doublefork", &stdio.Options{Env: env}))
	ipid := recordedPid(t, path, "intermediate")
	gpid := recordedPid(t, path, "grandchild")
	testkit.Poll(t, "the connection has seen the grandchild", func() bool { return slices.Contains(c.Descendants(), gpid) })
	// The child's first input line makes the intermediate exit.
	if err := c.Write(testkit.Context(t), &jsonrpc.Request{Method: "notifications/initialized"}); err != nil {
		t.Fatal(err)
	}
	testkit.Poll(t, "the grandchild is orphaned", func() bool {
		p, err := proctree.Stat(gpid)
		return err == nil && p.PPid != ipid && dead(t, ipid)
	})
	if p, _ := proctree.Stat(gpid); p.Pgid == c.Pid() || p.Sid == c.Pid() {
		t.Fatalf("grandchild %+v is still in the child's group or session", p)
	}
	if _, err := testkit.CloseWithin(t, c, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if !dead(t, gpid) {
		t.Errorf("double-forked grandchild %d is still running after Close (state %s)", gpid, procState(t, gpid))
	}
}

// A daemon's quick double fork (the intermediate exits at once) can escape
// between two scans; with the scans off while the child runs, it always
// does. Close is still bounded by its graces although the escaped grandchild
// holds the child's stderr open. (The grandchild survives: the package
// documentation says so; BecomeSubreaper is the remedy.)
func TestCloseBoundedWhenEscapedProcessHoldsStderr(t *testing.T) {
	requireProc(t)
	if os.Getenv(subreaperEnv) != "" {
		t.Skip("runs in a process that is not a subreaper")
	}
	leakcheck.Check(t)
	stdio.SetTrackInterval(t, 0)
	path, env := recordFile(t)
	const grace = 100 * time.Millisecond
	c := connect(t, newFactory(t, "quickfork", &stdio.Options{Env: env, CloseGrace: grace, TermGrace: grace}))
	gpid := recordedPid(t, path, "grandchild")
	testkit.Poll(t, "the grandchild is orphaned", func() bool {
		p, err := proctree.Stat(gpid)
		return err == nil && p.PPid != c.Pid() && p.PPid != os.Getpid()
	})
	// CloseGrace + TermGrace + the stderr drain bound, ten times over.
	if _, err := testkit.CloseWithin(t, c, 10*(2*grace+500*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if dead(t, gpid) {
		t.Logf("grandchild %d was ended anyway", gpid)
	}
}

// subreaperEnv runs a test's body in a child test process that is a
// subreaper (see inSubreaper).
const subreaperEnv = "STDIO_TEST_SUBREAPER"

// inSubreaper reports whether t runs in a test process that is a
// subreaper. If it does not, it runs t alone in a fresh test process that
// becomes one (a subreaper stays one until it exits), reports that run's
// result as t's, and returns false.
func inSubreaper(t *testing.T) bool {
	t.Helper()
	if os.Getenv(subreaperEnv) == "" {
		// The run ends at its own deadline: a broken guard fails it rather
		// than hanging this test until go test's timeout.
		cmd := exec.Command(testExe(t), "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v", "-test.timeout=2m")
		cmd.Env = append(os.Environ(), subreaperEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
			t.Fatalf("in a subreaper process: %v\n%s", err, out)
		}
		return false
	}
	if err := stdio.BecomeSubreaper(); err != nil {
		t.Skipf("no subreaper: %v", err)
	}
	return true
}

// With BecomeSubreaper, the quick double fork that no scan saw is adopted by
// this process instead of init, and Close ends and reaps it. The test runs
// itself in a fresh test process, since a subreaper stays one until it
// exits.
func TestCloseEndsAdoptedOrphan(t *testing.T) {
	requireProc(t)
	if !inSubreaper(t) {
		return
	}
	leakcheck.Check(t)
	stdio.SetTrackInterval(t, 0) // no scan sees the escape
	path, env := recordFile(t)
	c := connect(t, newFactory(t, "quickfork", &stdio.Options{Env: env}))
	gpid := recordedPid(t, path, "grandchild")
	testkit.Poll(t, "the grandchild is adopted by this process", func() bool {
		p, err := proctree.Stat(gpid)
		return err == nil && p.PPid == os.Getpid()
	})
	if _, err := testkit.CloseWithin(t, c, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if s := procState(t, gpid); s != "" {
		p, err := proctree.Stat(gpid)
		self, _ := proctree.Stat(os.Getpid())
		t.Errorf("adopted orphan %d after Close is in state %q, want ended and reaped (ppid %d, session %d; this process %d, session %d; %v)", gpid, s, p.PPid, p.Sid, self.Pid, self.Sid, err)
	}
}

// A line of descendants that never stands still (each starts the next in a
// session of its own and exits at once, so no scan sees one beside its
// parent) is ended by Close in a subreaper: each orphan comes back to this
// process, and Close stops every process it finds, looking again until no
// new one appears, before it kills them. Counted in /proc: no hop the line
// recorded runs after Close. (Without the subreaper the line escapes: the
// package documentation says so.)
func TestCloseEndsADescendantThatKeepsMoving(t *testing.T) {
	requireProc(t)
	if !inSubreaper(t) {
		return
	}
	leakcheck.Check(t)
	path, env := recordFile(t)
	c := connect(t, newFactory(t, "hopper", &stdio.Options{Env: env}))
	testkit.Poll(t, "the line has moved a few times", func() bool {
		n := 0
		for _, l := range readRecord(path) {
			if strings.HasPrefix(l, "hop ") {
				n++
			}
		}
		return n >= 5
	})
	if _, err := testkit.CloseWithin(t, c, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	var alive []int
	for _, l := range readRecord(path) {
		s, ok := strings.CutPrefix(l, "hop ")
		if !ok {
			continue
		}
		pid, _ := strconv.Atoi(s)
		if p, err := proctree.Stat(pid); err == nil && p.Running() && p.Name == "stdio.test" {
			alive = append(alive, pid)
			proctree.Signal(p, syscall.SIGKILL)
		}
	}
	if len(alive) > 0 {
		t.Errorf("hops %v run after Close", alive)
	}
}

// groupMembers returns the processes of group pgid in /proc, zombies
// included.
func groupMembers(t *testing.T, pgid int) []proctree.Proc {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []proctree.Proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, err := proctree.Stat(pid); err == nil && p.Pgid == pgid {
			out = append(out, p)
		}
	}
	return out
}

// A double fork that keeps the process group (no setsid): the intermediate
// exits at once, and the grandchild is orphaned (to init, or to this
// process as a subreaper) but stays in the child's group, so the group's
// SIGKILL ends it. No scan runs while the child does, so only the group and
// the subreaper can reach it. Counted in /proc after Close: no process of
// the group runs, and none is left for this process to reap (a subreaper's
// orphans are its own; init reaps the others in its own time).
func testCloseEndsGroupDoubleFork(t *testing.T, subreaper bool) {
	leakcheck.Check(t)
	stdio.SetTrackInterval(t, 0)
	path, env := recordFile(t)
	c := connect(t, newFactory(t, "groupfork", &stdio.Options{Env: env}))
	gpid := recordedPid(t, path, "grandchild")
	testkit.Poll(t, "the grandchild is orphaned", func() bool {
		p, err := proctree.Stat(gpid)
		return err == nil && p.PPid != c.Pid() && p.PPid != 0 && (p.PPid == os.Getpid()) == subreaper
	})
	if p, _ := proctree.Stat(gpid); p.Pgid != c.Pid() {
		t.Fatalf("grandchild %+v left the child's group %d", p, c.Pid())
	}
	before := groupMembers(t, c.Pid())
	if _, err := testkit.CloseWithin(t, c, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	var running, ours []string
	for _, p := range groupMembers(t, c.Pid()) {
		if p.Running() {
			running = append(running, fmt.Sprintf("%d %c", p.Pid, p.State))
		}
		if p.PPid == os.Getpid() {
			ours = append(ours, fmt.Sprintf("%d %c", p.Pid, p.State))
		}
	}
	t.Logf("group %d: %d processes in /proc before Close (grandchild %d); after: %d running, %d left to this process", c.Pid(), len(before), gpid, len(running), len(ours))
	if len(running) > 0 {
		t.Errorf("group %d runs %v after Close, want none", c.Pid(), running)
	}
	if len(ours) > 0 {
		t.Errorf("group %d has %v unreaped by this process after Close, want none", c.Pid(), ours)
	}
}

func TestCloseEndsGroupDoubleFork(t *testing.T) {
	requireProc(t)
	if os.Getenv(subreaperEnv) != "" {
		t.Skip("runs in a process that is not a subreaper")
	}
	testCloseEndsGroupDoubleFork(t, false)
}

// With BecomeSubreaper the orphan, and the intermediate its parent never
// reaped, come back to this process: Close reaps them once the group's
// SIGKILL has ended them.
func TestCloseReapsGroupDoubleForkInSubreaper(t *testing.T) {
	requireProc(t)
	if !inSubreaper(t) {
		return
	}
	testCloseEndsGroupDoubleFork(t, true)
}
