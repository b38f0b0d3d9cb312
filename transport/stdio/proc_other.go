//go:build !unix && !windows

package stdio

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// The supervision this package promises (process groups and signals, or a
// job object) needs a Unix system or Windows; elsewhere Connect fails with
// errors.ErrUnsupported.

type exitStatus struct {
	code   int
	signal string
}

type proc struct {
	pid    int
	exited chan struct{}
}

func startProc(string, []string, string, []string, [3]*os.File) (*proc, error) {
	return nil, errors.ErrUnsupported
}

func (p *proc) exitStatus() (exitStatus, bool)          { return exitStatus{}, false }
func (p *proc) stop(time.Duration, time.Duration) error { return nil }
func (p *proc) sent() []syscall.Signal                  { return nil }
func (p *proc) descendants() []int                      { return nil }
func (p *proc) requested()                              {}
func (p *proc) heard()                                  {}
func (p *proc) look()                                   {}

// GroupAlive reports whether any process of the process group pgid still
// exists. It is always false on this system.
func GroupAlive(pgid int) bool { return false }

// BecomeSubreaper needs Linux: it returns errors.ErrUnsupported.
func BecomeSubreaper() error { return errors.ErrUnsupported }
