//go:build unix

package fakeserver

import (
	"os/exec"
	"syscall"
)

// ownSession makes cmd start in a session (and process group) of its own,
// as a daemon leaves its parent's.
func ownSession(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return nil
}
