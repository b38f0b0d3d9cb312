package mcptest

import (
	"testing"
	"time"
)

// SetGroupTimeout sets the leak checks' wait for the rest of t, as
// MainOptions.GroupTimeout does for a whole binary.
func SetGroupTimeout(t testing.TB, d time.Duration) {
	old := groupTimeout
	groupTimeout = d
	t.Cleanup(func() { groupTimeout = old })
}
