//go:build unix

package procgroup

import (
	"fmt"
	"strings"
	"syscall"

	"github.com/looprig/mcp/internal/proctree"
	"github.com/looprig/mcp/transport/stdio"
	"golang.org/x/sys/unix"
)

// SignalChild sends the signal name ("KILL", "TERM", "SIGINT", …) to the
// process pid.
func SignalChild(pid int, name string) error {
	n := strings.ToUpper(name)
	if !strings.HasPrefix(n, "SIG") {
		n = "SIG" + n
	}
	sig := unix.SignalNum(n)
	if sig == 0 {
		return fmt.Errorf("unknown signal %q", name)
	}
	return syscall.Kill(pid, sig)
}

// killLeaked kills a leaked process group g and the descendants outside it
// that its connection c saw.
func killLeaked(g int, _ *stdio.Conn, outside []proctree.Proc) {
	syscall.Kill(-g, syscall.SIGKILL)
	for _, p := range outside {
		proctree.Signal(p, syscall.SIGKILL)
	}
}
