package mcptest

import (
	"context"
	"testing"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/transport/stdio"
)

// Connect connects a client to def (within def.Limits.ConnectTimeout) and
// closes it at cleanup. A failure to connect fails the test with the
// error. For a child process it also reports how the child ended and the
// tail of its stderr. An error from Close, or a child's process group
// still running after it, fails the test at cleanup. h may be nil.
func Connect(t testing.TB, def client.Definition, h *client.Handlers) *client.Client {
	t.Helper()
	c, err := client.Connect(context.Background(), def, h)
	if err != nil {
		t.Fatalf("mcptest.Connect: %v", err) // the error carries the child's exit status and stderr tail
	}
	if sc, ok := c.Conn().(*stdio.Conn); ok {
		trackerOf(t).Add(sc)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("mcptest: closing client %s: %v", def.Name, err)
		}
	})
	return c
}
