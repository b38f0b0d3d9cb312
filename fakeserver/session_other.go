//go:build !unix

package fakeserver

import (
	"errors"
	"os/exec"
)

// ownSession fails: sessions are POSIX (a fault that needs one is refused
// before it gets here: see Fault's check).
func ownSession(*exec.Cmd) error { return errors.ErrUnsupported }
