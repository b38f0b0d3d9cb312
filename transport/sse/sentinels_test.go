package sse_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
)

// TestSentinels bounds the package's sentinel errors to those a caller
// branches on (issue 32): none. Its errors match package transport's class
// sentinels; StatusError and EndpointError say more.
func TestSentinels(t *testing.T) {
	leakcheck.Check(t)
	var want []string // none: each error matches its class sentinel
	if diff := cmp.Diff(want, testkit.Sentinels(t, ".")); diff != "" {
		t.Errorf("sentinels mismatch (-want +got):\n%s", diff)
	}
}
