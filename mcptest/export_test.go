package mcptest

import (
	"github.com/looprig/mcp/mcptest/internal/testmain"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/leakcheck"
)

// SetGroupTimeout sets the leak checks' wait for the rest of t, as
// MainOptions.GroupTimeout does for a whole binary.
func SetGroupTimeout(t testing.TB, d time.Duration) {
	old := testmain.GroupTimeout
	testmain.GroupTimeout = d
	t.Cleanup(func() { testmain.GroupTimeout = old })
}

// SetLeakTimeout sets the goroutine leak check's wait for the rest of t.
func SetLeakTimeout(t testing.TB, d time.Duration) {
	old := leakcheck.Timeout
	leakcheck.Timeout = d
	t.Cleanup(func() { leakcheck.Timeout = old })
}
