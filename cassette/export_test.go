package cassette

import (
	"testing"

	"github.com/looprig/mcp/cassette/internal/format"
)

// SetMaxSize makes the cassette bound n for t's duration.
func SetMaxSize(t testing.TB, n int) {
	old := format.Limit
	format.Limit = n
	t.Cleanup(func() { format.Limit = old })
}
