//go:build unix && !(linux && !mips && !mipsle && !mips64 && !mips64le)

package stdio

import "os/exec"

// waitExit blocks until the child exits and reaps it. On these systems the
// final SIGKILL to the group is sent after the leader is reaped, so the
// group id is not reserved as it is on Linux.
func waitExit(cmd *exec.Cmd) (exitStatus, bool) {
	cmd.Wait()
	if cmd.ProcessState == nil {
		return exitStatus{code: -1}, true
	}
	return statusOf(cmd.ProcessState), true
}
