//go:build linux || darwin

package proctree

import (
	"os"

	"golang.org/x/sys/unix"
)

// Reap collects p, a child of the calling process that has exited (a
// zombie), and so frees its pid, without waiting. It reports whether p is
// gone: false while p runs, or is a zombie that cannot be collected yet (a
// thread group leader whose other threads are still exiting), or is not a
// child of the calling process.
func Reap(p Proc) bool {
	cur, err := Stat(p.Pid)
	if err != nil || !cur.Same(p) {
		return true
	}
	if cur.PPid != os.Getpid() || cur.Running() {
		return false
	}
	var ws unix.WaitStatus
	pid, _ := unix.Wait4(p.Pid, &ws, unix.WNOHANG, nil)
	return pid == p.Pid
}
