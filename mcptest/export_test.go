package mcptest

import (
	"testing"
	"time"

	"github.com/looprig/mcp/internal/leakcheck"
)

// SetGroupTimeout sets the leak checks' wait for the rest of t, as
// MainOptions.GroupTimeout does for a whole binary.
func SetGroupTimeout(t testing.TB, d time.Duration) {
	old := groupTimeout
	groupTimeout = d
	t.Cleanup(func() { groupTimeout = old })
}

// SetLeakTimeout sets the goroutine leak check's wait for the rest of t.
func SetLeakTimeout(t testing.TB, d time.Duration) {
	old := leakcheck.Timeout
	leakcheck.Timeout = d
	t.Cleanup(func() { leakcheck.Timeout = old })
}
