package inprocess_test

import (
	"os"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
)

// Every session's goroutines end when its pipe closes.
func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m)) }
