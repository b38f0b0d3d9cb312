//go:build linux

package stdio

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipe returns a pipe whose end this process keeps (its writing end when
// parentWrites, else its reading end) is non-blocking, in the runtime's
// poller, and whose child's end is a plain blocking descriptor, as the
// child gets it.
//
// os.Pipe puts both ends in the poller. So the child's end is made
// non-blocking and registered. It is made blocking again when os/exec
// takes its descriptor, and deregistered when it is closed after the
// start. That is six system calls per pipe that do nothing for the child,
// eighteen per connection. Here the child's end costs one (os.NewFile's
// look at its flags), and its close is a close.
func pipe(parentWrites bool) (r, w *os.File, err error) {
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	mine, child := fds[0], fds[1]
	if parentWrites {
		mine, child = child, mine
	}
	// F_SETFL sets the status flags, of which a fresh pipe's end has none
	// but its access mode, which F_SETFL ignores.
	if _, err := unix.FcntlInt(uintptr(mine), unix.F_SETFL, unix.O_NONBLOCK); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, nil, os.NewSyscallError("fcntl", err)
	}
	// os.NewFile sees which end is non-blocking: that one is polled.
	return os.NewFile(uintptr(fds[0]), "|0"), os.NewFile(uintptr(fds[1]), "|1"), nil
}
