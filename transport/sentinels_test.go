package transport_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
)

// TestSentinels bounds the package's sentinel errors to those a caller
// branches on (issue 32): the failure classes' and ErrLimit, ErrClosed and
// ErrBadFault. The HTTP policy refusals are a PolicyError's Rule.
func TestSentinels(t *testing.T) {
	leakcheck.Check(t)
	want := []string{
		"ErrAuth", "ErrBadFault", "ErrBroken", "ErrClosed", "ErrLimit", "ErrMismatch",
		"ErrPolicy", "ErrProtocol", "ErrServer", "ErrStart", "ErrTimeout",
	}
	if diff := cmp.Diff(want, testkit.Sentinels(t, ".")); diff != "" {
		t.Errorf("sentinels mismatch (-want +got):\n%s", diff)
	}
}
