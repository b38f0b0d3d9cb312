package mcptest_test

import (
	"testing"

	"github.com/looprig/mcp/mcptest"
)

// TestScripts runs the project's scenarios, testdata/script/*.txtar: one
// per lifecycle guarantee, each opening with what it proves.
func TestScripts(t *testing.T) {
	mcptest.RunScripts(t, "../testdata/script")
}
