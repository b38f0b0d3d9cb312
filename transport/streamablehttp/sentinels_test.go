package streamablehttp_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
)

// TestSentinels bounds the package's sentinel errors to those a caller
// branches on (issue 32): ErrReauthorized. Its other errors are told apart
// by their JSON-RPC code (CodeStreamDropped, …) or match a class sentinel.
func TestSentinels(t *testing.T) {
	leakcheck.Check(t)
	want := []string{"ErrReauthorized"}
	if diff := cmp.Diff(want, testkit.Sentinels(t, ".")); diff != "" {
		t.Errorf("sentinels mismatch (-want +got):\n%s", diff)
	}
}
