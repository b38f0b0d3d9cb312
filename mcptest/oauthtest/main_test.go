package oauthtest_test

import (
	"testing"

	"github.com/looprig/mcp/mcptest"
)

func TestMain(m *testing.M) { mcptest.Main(m, nil) }
