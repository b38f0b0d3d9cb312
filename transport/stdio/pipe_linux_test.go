//go:build linux

package stdio

import (
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// pipe's end this process keeps is in the runtime's poller (so that a
// read or write on it parks a goroutine, not a thread, and a deadline or a
// Close ends it); the child's end is blocking, as a child reading its
// stdin expects; neither outlives an exec.
func TestPipeEnds(t *testing.T) {
	for _, parentWrites := range []bool{true, false} {
		r, w, err := pipe(parentWrites)
		if err != nil {
			t.Fatal(err)
		}
		mine, child := r, w
		if parentWrites {
			mine, child = w, r
		}
		if err := mine.SetDeadline(time.Now().Add(time.Hour)); err != nil {
			t.Errorf("pipe(%v): this process's end %s: SetDeadline: %v, want it polled", parentWrites, mine.Name(), err)
		}
		if nonblocking(t, child) {
			t.Errorf("pipe(%v): the child's end %s is non-blocking", parentWrites, child.Name())
		}
		if !nonblocking(t, mine) {
			t.Errorf("pipe(%v): this process's end %s is blocking", parentWrites, mine.Name())
		}
		for _, f := range []*os.File{r, w} {
			if fd, err := unix.FcntlInt(fdOf(t, f), unix.F_GETFD, 0); err != nil || fd&unix.FD_CLOEXEC == 0 {
				t.Errorf("pipe(%v): %s: F_GETFD = %#x, %v: want FD_CLOEXEC", parentWrites, f.Name(), fd, err)
			}
		}
		r.Close()
		w.Close()
	}
}

// nonblocking reports whether f's descriptor has O_NONBLOCK set.
func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	fl, err := unix.FcntlInt(fdOf(t, f), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	return fl&unix.O_NONBLOCK != 0
}

// fdOf returns f's descriptor without changing its mode (f.Fd makes a
// descriptor the runtime set non-blocking blocking again).
func fdOf(t *testing.T, f *os.File) uintptr {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var fd uintptr
	if err := rc.Control(func(d uintptr) { fd = d }); err != nil {
		t.Fatal(err)
	}
	return fd
}
