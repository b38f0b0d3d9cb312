package stdio_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
)

// TestSentinels bounds the package's sentinel errors to those a caller
// branches on (issue 32): none. An oversize frame matches transport.ErrLimit,
// and its FrameError's Limit says the bound.
func TestSentinels(t *testing.T) {
	leakcheck.Check(t)
	var want []string // none: an oversize frame is transport.ErrLimit
	if diff := cmp.Diff(want, testkit.Sentinels(t, ".")); diff != "" {
		t.Errorf("sentinels mismatch (-want +got):\n%s", diff)
	}
}
