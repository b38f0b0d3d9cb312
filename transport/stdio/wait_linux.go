//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package stdio

import (
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
func waitExit(cmd *exec.Cmd) (exitStatus, bool) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			// Cannot wait without reaping (it should not happen): reap.
			cmd.Wait()
			if cmd.ProcessState == nil {
				return exitStatus{code: -1}, true
			}
			return statusOf(cmd.ProcessState), true
		}
		break
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
