//go:build unix

package hostile_test

import (
	"os/exec"
	"syscall"
)

// ownSession makes cmd start in a session of its own, out of the child's
// process group.
func ownSession(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
