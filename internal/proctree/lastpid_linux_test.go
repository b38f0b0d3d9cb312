//go:build linux

package proctree

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// The kernel's last pid moves when a process starts, so that ScanIfNew
// does not skip the scan that would find it.
func TestLastPidMovesWhenAProcessStarts(t *testing.T) {
	before, ok := lastPid()
	if !ok {
		t.Skip("no /proc/loadavg")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	after, ok := lastPid()
	cmd.Wait()
	if !ok || after == before {
		t.Errorf("lastPid() after starting process %d = %d, %v; before %d: want it moved", cmd.Process.Pid, after, ok, before)
	}
}

// threads lists a process's threads, the calling one and its own pid
// among them, and no thread of another process.
func TestThreadsListsTheProcesssThreads(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tids, err := threads(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(tids, os.Getpid()) || !slices.Contains(tids, unix.Gettid()) {
		t.Errorf("threads(%d) = %v: want the pid and the calling thread %d", os.Getpid(), tids, unix.Gettid())
	}
	if slices.Contains(tids, os.Getppid()) {
		t.Errorf("threads(%d) = %v: lists the parent %d", os.Getpid(), tids, os.Getppid())
	}
	if _, err := threads(1 << 30); err == nil {
		t.Error("threads of a pid no process has: no error")
	}
}
