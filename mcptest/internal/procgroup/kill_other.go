//go:build !unix

package procgroup

import (
	"fmt"
	"os"
	"strings"

	"github.com/looprig/mcp/internal/proctree"
	"github.com/looprig/mcp/transport/stdio"
)

// SignalChild kills the process pid: KILL is the one signal a process can
// be sent here (Windows has no POSIX signals).
func SignalChild(pid int, name string) error {
	if n := strings.TrimPrefix(strings.ToUpper(name), "SIG"); n != "KILL" {
		return fmt.Errorf("signal %q: only KILL can be sent on this system", name)
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// killLeaked ends a leaked child and its descendants by closing its
// connection c, which on Windows terminates the child's job object.
func killLeaked(_ int, c *stdio.Conn, _ []proctree.Proc) {
	if c != nil {
		c.Close()
	}
}
