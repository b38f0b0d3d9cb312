package client

import (
	"fmt"
	"testing"

	"github.com/looprig/mcp/transport"
)

// TestClassifyBySentinel: an error wrapping a class's transport sentinel
// is classified as that class, connecting or not.
func TestClassifyBySentinel(t *testing.T) {
	for c := transport.ClassStart; c <= transport.ClassMismatch; c++ {
		if c.Err() == nil {
			continue
		}
		for _, connecting := range []bool{false, true} {
			if got := classify(fmt.Errorf("x: %w", c.Err()), nil, connecting, nil); got != c {
				t.Errorf("classify(%v, connecting %v) = %v, want %v", c.Err(), connecting, got, c)
			}
		}
	}
}
