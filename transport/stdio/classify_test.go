package stdio_test

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/stdio"
)

// TestFrameErrorClasses: a frame over the bound (Limit set) matches
// ErrLimit and ErrPolicy; a frame that is not JSON-RPC matches ErrProtocol;
// a frame cut short by the child's end matches none of the three.
func TestFrameErrorClasses(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		name                    string
		err                     *stdio.FrameError
		limit, policy, protocol bool
	}{
		{"over the bound", &stdio.FrameError{Limit: 1, Err: errors.New("frame too large")}, true, true, false},
		{"not JSON-RPC", &stdio.FrameError{Err: errors.New("invalid character")}, false, false, true},
		{"cut short", &stdio.FrameError{Err: io.ErrUnexpectedEOF}, false, false, false},
	} {
		err := fmt.Errorf("reading: %w", tc.err)
		for _, c := range []struct {
			target error
			want   bool
		}{{transport.ErrLimit, tc.limit}, {transport.ErrPolicy, tc.policy}, {transport.ErrProtocol, tc.protocol}} {
			if got := errors.Is(err, c.target); got != c.want {
				t.Errorf("%s: errors.Is(err, %v) = %v, want %v", tc.name, c.target, got, c.want)
			}
		}
	}
}
