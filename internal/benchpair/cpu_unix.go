//go:build unix

package benchpair

import (
	"syscall"
	"time"
)

// CPU returns the CPU time (user and system) the process has used so far,
// every goroutine's: a benchmark that serves itself (a loopback server in
// the same test binary) counts the server's work too. ok is false where the
// platform does not say.
func CPU() (used time.Duration, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
