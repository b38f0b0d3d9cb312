package verify

import (
	"os"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
)

func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m)) }
