//go:build unix

package fakeserver

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"golang.org/x/sys/unix"
)

// The faults and signals a POSIX system has: SIGTERM, process groups and
// sessions.

// SIGTERM ends the child with ExitSIGTERM and is recorded.
func TestStdioSIGTERM(t *testing.T) {
	leakcheck.Check(t)
	stop := filepath.Join(t.TempDir(), "stop")
	c := startChild(t, nil, "--stop-file", stop)
	c.connect(t, nil, 0) // the handler is installed before serving starts
	c.cmd.Process.Signal(syscall.SIGTERM)
	if code := c.wait(t); code != ExitSIGTERM {
		t.Errorf("exit code = %d, want %d", code, ExitSIGTERM)
	}
	if got := readFile(t, stop); got != "sigterm\n" {
		t.Errorf("stop file = %q, want %q", got, "sigterm\n")
	}
}

// With ignore-sigterm, SIGTERM is recorded and the child goes on serving
// until stdin ends.
func TestStdioIgnoreSIGTERM(t *testing.T) {
	leakcheck.Check(t)
	stop := filepath.Join(t.TempDir(), "stop")
	c := startChild(t, nil, "--fault", "ignore-sigterm", "--stop-file", stop)
	cs := c.connect(t, nil, 0)
	c.cmd.Process.Signal(syscall.SIGTERM)
	testkit.Poll(t, "sigterm in the stop file", func() bool { return readFile(t, stop) == "sigterm\n" })
	if diff := cmp.Diff(outcome{Text: "docs: still here"}, call(t, cs, "lookup", `{"query":"still here"}`)); diff != "" {
		t.Errorf("lookup after SIGTERM mismatch (-want +got):\n%s", diff)
	}
	cs.Close()
	if code := c.wait(t); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
	if got, want := readFile(t, stop), "sigterm\nstdin-eof\n"; got != want {
		t.Errorf("stop file = %q, want %q", got, want)
	}
}

// With ignore-eof, the child outlives its stdin until a signal.
func TestStdioIgnoreEOF(t *testing.T) {
	leakcheck.Check(t)
	stop := filepath.Join(t.TempDir(), "stop")
	c := startChild(t, nil, "--fault", "ignore-eof", "--stop-file", stop)
	cs := c.connect(t, nil, 0)
	cs.Close()
	testkit.Poll(t, "stdin-eof in the stop file", func() bool { return readFile(t, stop) == "stdin-eof\n" })
	select {
	case <-c.done:
		t.Fatal("child exited after stdin EOF")
	default:
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	if code := c.wait(t); code != ExitSIGTERM {
		t.Errorf("exit code = %d, want %d", code, ExitSIGTERM)
	}
	if got, want := readFile(t, stop), "stdin-eof\nsigterm\n"; got != want {
		t.Errorf("stop file = %q, want %q", got, want)
	}
}

func TestStdioGrandchild(t *testing.T) {
	leakcheck.Check(t)
	pidFile := filepath.Join(t.TempDir(), "grandchild")
	c := startChild(t, nil, "--fault", "grandchild", "--grandchild-pid-file", pidFile)
	c.connect(t, nil, 0) // serving starts after the grandchild is spawned
	pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, pidFile)))
	if err != nil {
		t.Fatalf("grandchild pid file: %v", err)
	}
	if !alive(pid) {
		t.Fatalf("grandchild %d is not running", pid)
	}
	if pgid, err := syscall.Getpgid(pid); err != nil || pgid != c.cmd.Process.Pid {
		t.Errorf("grandchild's process group = %d, %v; want the child's, %d", pgid, err, c.cmd.Process.Pid)
	}
	// It outlives its parent...
	c.cmd.Process.Kill()
	c.wait(t)
	if !alive(pid) {
		t.Errorf("grandchild %d died with its parent", pid)
	}
	// ...until its group is killed.
	syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	testkit.Poll(t, "the grandchild to die", func() bool { return !alive(pid) })
}

// grandchild:setsid starts the grandchild in a session and process group
// of its own: killing the child's group leaves it running.
func TestStdioGrandchildSetsid(t *testing.T) {
	leakcheck.Check(t)
	pidFile := filepath.Join(t.TempDir(), "grandchild")
	c := startChild(t, nil, "--fault", "grandchild:setsid", "--grandchild-pid-file", pidFile)
	c.connect(t, nil, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, pidFile)))
	if err != nil {
		t.Fatalf("grandchild pid file: %v", err)
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	if sid, err := unix.Getsid(pid); err != nil || sid != pid {
		t.Errorf("grandchild's session = %d, %v; want its own, %d", sid, err, pid)
	}
	syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	c.wait(t)
	if !alive(pid) {
		t.Errorf("grandchild %d died with its parent's group", pid)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	testkit.Poll(t, "the grandchild to die", func() bool { return !alive(pid) })
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	// The state follows the parenthesized command name.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}
