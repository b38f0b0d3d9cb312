//go:build linux

package proctree_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/proctree"
	"github.com/looprig/mcp/internal/testkit"
	"golang.org/x/sys/unix"
)

// childEnv makes the test binary a child that waits for its stdin to end;
// with childEnv=fork it first starts a child of its own that blocks until
// killed, in a new session, and prints its pid; with childEnv=leader-exits
// it does the same from a thread other than its leader, whose thread then
// exits alone, leaving the process to its other threads.
const childEnv = "PROCTREE_TEST_CHILD"

func init() {
	if os.Getenv(childEnv) == "leader-exits" {
		runtime.LockOSThread() // main runs on the leader thread
	}
}

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(leakcheck.Main(m))
	case "fork":
		fmt.Println(forkBlock())
	case "leader-exits":
		// Once the leader thread is gone the runtime cannot stop the
		// world: no collection may start.
		debug.SetGCPercent(-1)
		pid := make(chan int)
		go func() {
			pid <- forkBlock() // on another thread: main holds the leader
			io.Copy(io.Discard, os.Stdin)
			os.Exit(0)
		}()
		fmt.Println(<-pid)
		syscall.RawSyscall(syscall.SYS_EXIT, 0, 0, 0) // this thread alone
	case "block":
		time.Sleep(time.Hour) // until killed
	}
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// forkBlock starts the test binary as a child that blocks until killed, in
// a new session, and returns its pid.
func forkBlock() int {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=block")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		os.Exit(1)
	}
	return cmd.Process.Pid
}

func requireLinux(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("/proc is read on Linux only")
	}
}

// start starts the test binary as a child in mode and returns it; closing
// its stdin ends it.
func start(t *testing.T, mode string) (*exec.Cmd, io.WriteCloser, io.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	return cmd, in, out
}

func TestStatSelf(t *testing.T) {
	requireLinux(t)
	p, err := proctree.Stat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	want := proctree.Proc{Pid: os.Getpid(), PPid: os.Getppid(), Pgid: syscall.Getpgrp(), State: p.State, Threads: p.Threads, Start: p.Start, Name: p.Name}
	want.Sid, _ = unix.Getsid(0)
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("Stat(self) mismatch (-want +got):\n%s", diff)
	}
	if !p.Running() || p.Start == 0 || p.Threads < 2 {
		t.Errorf("Stat(self) = %+v, want running with a start time and the runtime's threads", p)
	}
	if _, err := proctree.Stat(1 << 30); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat(no such pid) error = %v, want fs.ErrNotExist", err)
	}
}

// A command name may hold spaces and parentheses: the fields are read after
// the last one.
func TestStatOddName(t *testing.T) {
	requireLinux(t)
	cmd, in, _ := start(t, "wait")
	const odd = "a) b (c"
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/comm", cmd.Process.Pid), []byte(odd), 0); err != nil {
		t.Skipf("cannot rename the child: %v", err)
	}
	p, err := proctree.Stat(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != odd || p.PPid != os.Getpid() || !p.Running() {
		t.Errorf("Stat(child named %q) = %+v", odd, p)
	}
	in.Close()
}

func TestChildrenAndGroup(t *testing.T) {
	requireLinux(t)
	a, _, _ := start(t, "wait")
	b, _, _ := start(t, "wait")
	kids, err := proctree.Children(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*exec.Cmd{a, b} {
		if !slices.Contains(kids, c.Process.Pid) {
			t.Errorf("Children(self) = %v, want it to hold %d", kids, c.Process.Pid)
		}
	}
	members, err := proctree.Group(syscall.Getpgrp())
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, m := range members {
		pids = append(pids, m.Pid)
	}
	for _, pid := range []int{os.Getpid(), a.Process.Pid, b.Process.Pid} {
		if !slices.Contains(pids, pid) {
			t.Errorf("Group(own group) = %v, want it to hold %d", pids, pid)
		}
	}
}

// A tracker keeps a descendant it has seen after its parent exits and it is
// re-parented, out of the root's session.
func TestTrackerKeepsOrphans(t *testing.T) {
	requireLinux(t)
	cmd, in, out := start(t, "fork")
	tr, err := proctree.NewTracker(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	var gpid int
	if _, err := fmt.Fscan(out, &gpid); err != nil {
		t.Fatal(err)
	}
	g, err := proctree.Stat(gpid)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proctree.Signal(g, syscall.SIGKILL) })
	added := tr.Scan()
	if len(added) != 1 || !added[0].Same(g) {
		t.Fatalf("Scan() added %v, want the grandchild %v", added, g)
	}
	in.Close()
	cmd.Wait()
	testkit.Poll(t, "the grandchild to be re-parented, the kernel's doing", func() bool {
		cur, _ := proctree.Stat(gpid)
		return cur.PPid != cmd.Process.Pid
	})
	tr.Scan()
	live := tr.Live()
	if len(live) != 1 || !live[0].Same(g) {
		t.Fatalf("Live() after the parent exited = %v, want the grandchild %v", live, g)
	}
	if ok, err := proctree.Signal(g, syscall.SIGKILL); !ok || err != nil {
		t.Fatalf("Signal(grandchild) = %v, %v", ok, err)
	}
}

// A process whose leader thread has exited while its other threads run
// shows as a zombie in /proc, yet it runs, and its threads' children are
// still its own: it counts as running, and a scan finds its children (they
// are listed under the threads that forked them). Without that, such a
// process and everything it starts escape the tracker until its last
// thread exits, which for a process exiting under load is exactly when
// its children are re-parented out of sight.
func TestTrackerSeesChildrenOfAnExitedLeader(t *testing.T) {
	requireLinux(t)
	cmd, _, out := start(t, "leader-exits")
	tr, err := proctree.NewTracker(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	var gpid int
	if _, err := fmt.Fscan(out, &gpid); err != nil {
		t.Fatal(err)
	}
	g, err := proctree.Stat(gpid)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proctree.Signal(g, syscall.SIGKILL) })
	p, _ := proctree.Stat(cmd.Process.Pid)
	testkit.Poll(t, "the leader thread to exit, the kernel's doing", func() bool {
		p, _ = proctree.Stat(cmd.Process.Pid)
		return p.State == 'Z'
	})
	if !p.Running() {
		t.Errorf("Stat(process whose leader alone exited) = %+v: Running() false, want true (%d threads run)", p, p.Threads)
	}
	if added := tr.Scan(); len(added) != 1 || !added[0].Same(g) {
		t.Errorf("Scan() added %v, want the child %v of a thread that still runs", added, g)
	}
	members, err := proctree.Group(syscall.Getpgrp())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(members, p.Same) {
		t.Errorf("Group(own group) = %v, want it to hold %v, which runs", members, p)
	}
}

// Signal sends nothing to a pid whose start time is not the one seen: the
// pid may have been reused.
func TestSignalChecksIdentity(t *testing.T) {
	requireLinux(t)
	cmd, _, _ := start(t, "wait")
	p, err := proctree.Stat(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	other := p
	other.Start++
	if ok, err := proctree.Signal(other, syscall.SIGKILL); ok || err != nil {
		t.Errorf("Signal(same pid, other start time) = %v, %v, want false, nil", ok, err)
	}
	if cur, _ := proctree.Stat(p.Pid); !cur.Running() {
		t.Fatal("the child was signalled")
	}
	if ok, err := proctree.Signal(p, syscall.SIGKILL); !ok || err != nil {
		t.Errorf("Signal(the child) = %v, %v, want true, nil", ok, err)
	}
}
