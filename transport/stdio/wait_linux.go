//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package stdio

import (
	"os"
	"os/exec"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sigchldInfo is the head of the kernel's siginfo_t for SIGCHLD: signo,
// errno and code, then (aligned as a pointer) the union's pid, uid and
// status. MIPS swaps errno and code, so it uses wait_other.go.
type sigchldInfo struct {
	signo  int32
	errno  int32
	code   int32
	_      [unsafe.Sizeof(uintptr(0)) - 4]byte
	pid    int32
	uid    uint32
	status int32
}

// waitExit blocks until the child exits and returns its status without
// reaping it (waitid with WNOWAIT), so its process group id stays reserved
// until the caller reaps it with cmd.Wait.
//
// It waits in the runtime's poller on a pidfd of the child, which becomes
// readable when the child exits. It does not wait in a waitid that blocks
// a thread for the child's whole life. Measured, a parent thread blocked
// in waitid from the start costs the child about a millisecond of CPU, and
// its first answer as much. Without pidfds (before Linux 5.3) it blocks in
// waitid.
func waitExit(cmd *exec.Cmd) (exitStatus, bool) {
	pid := cmd.Process.Pid
	var info unix.Siginfo
	exited := func(flags int) bool {
		for {
			info = unix.Siginfo{}
			err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT|flags, nil)
			switch {
			case err == unix.EINTR:
				continue
			case err != nil:
				return false
			}
			return (*sigchldInfo)(unsafe.Pointer(&info)).pid == int32(pid)
		}
	}
	if !pollExit(pid, func() bool { return exited(unix.WNOHANG) }) && !exited(0) {
		// Cannot wait without reaping (it should not happen): reap.
		cmd.Wait()
		if cmd.ProcessState == nil {
			return exitStatus{code: -1}, true
		}
		return statusOf(cmd.ProcessState), true
	}
	si := (*sigchldInfo)(unsafe.Pointer(&info))
	const cldKilled, cldDumped = 2, 3 // si_code values for SIGCHLD
	switch si.code {
	case cldKilled, cldDumped:
		return exitStatus{code: -1, signal: unix.SignalName(unix.Signal(si.status))}, false
	default:
		return exitStatus{code: int(si.status)}, false
	}
}

// pollExit waits in the runtime's poller until exited reports true, trying
// it each time a pidfd of pid becomes readable, and reports whether it
// did; false where there are no pidfds.
func pollExit(pid int, exited func() bool) bool {
	// Non-blocking from the start where the kernel can (Linux 5.10).
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err == unix.EINVAL {
		if fd, err = unix.PidfdOpen(pid, 0); err == nil {
			if err = unix.SetNonblock(fd, true); err != nil {
				unix.Close(fd)
			}
		}
	}
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(fd), "pidfd") // non-blocking: the poller waits on it
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	done := false
	err = rc.Read(func(uintptr) bool {
		done = exited()
		return done
	})
	return err == nil && done
}
