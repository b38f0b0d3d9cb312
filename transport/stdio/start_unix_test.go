//go:build unix

package stdio_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport/stdio"
)

// The child's standard streams are blocking descriptors, as a program that
// reads its stdin expects, although this process polls its own ends.
func TestChildStreamsAreBlocking(t *testing.T) {
	leakcheck.Check(t)
	c := connect(t, newFactory(t, "streams", nil))
	var ee *stdio.ExitError
	if err := readUntilError(t, c); !errors.As(err, &ee) || ee.ExitCode != 0 {
		t.Fatalf("Read() error = %v, want the child's exit with status 0", err)
	}
	const want = "0 blocking\n1 blocking\n2 blocking\n"
	if diff := cmp.Diff(want, string(ee.Stderr)); diff != "" {
		t.Errorf("the child's streams mismatch (-want +got):\n%s", diff)
	}
	if _, err := testkit.CloseWithin(t, c, closeLimit); err != nil {
		t.Fatal(err)
	}
}
