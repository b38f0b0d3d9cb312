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

// inFormat runs part on c as the internal parts see it, and keeps in c
// what part made of it.
func inFormat(c *Cassette, part func(*format.Cassette)) {
	fc := c.toFormat()
	part(fc)
	*c = *fromFormat(fc)
}
