//go:build !unix

package hostile_test

import "os/exec"

// ownSession does nothing: there are no sessions here (on Windows the
// process stays in the child's job object, which is what ends it).
func ownSession(*exec.Cmd) {}
