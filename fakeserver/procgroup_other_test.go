//go:build !unix

package fakeserver

import "os/exec"

// ownGroup does nothing: there are no process groups here.
func ownGroup(*exec.Cmd) {}

// killGroup kills cmd's process (the tests that start grandchildren need
// process groups, and run only where there are).
func killGroup(cmd *exec.Cmd) { cmd.Process.Kill() }
