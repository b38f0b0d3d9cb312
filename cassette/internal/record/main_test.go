package record

import (
	"os"
	"testing"

	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/internal/leakcheck"
)

func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m)) }

// setLimit makes the cassette bound n for t's duration.
func setLimit(t testing.TB, n int) {
	old := format.Limit
	format.Limit = n
	t.Cleanup(func() { format.Limit = old })
}
