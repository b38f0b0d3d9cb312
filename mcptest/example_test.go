package mcptest_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
)

// CheckServer reports every protocol problem of a server under test at once;
// the fake server has none.
func ExampleCheckServer() {
	fake, err := fakeserver.New(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(mcptest.CheckServer(context.Background(), fake.Factory()))
	// Output: <nil>
}

// The script commands, for testscript.Params.Cmds.
func ExampleCommands() {
	fmt.Println(slices.Sorted(maps.Keys(mcptest.Commands())))
	// Output: [authcounts authexpire authserver call catalog close cmpjson connect diagnose executions killchild procs requests rounds serve]
}

// A test of a client against a fake server run as a stdio child: the call
// runs once, and Close reaps the child (checked at cleanup).
func ExampleStdio() {
	_ = func(t *testing.T) {
		mcptest.LeakCheck(t)
		fake := mcptest.Stdio(t, nil)
		c := mcptest.Connect(t, fake.Definition(), nil)
		if _, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "close"}); err != nil {
			t.Fatal(err)
		}
		if n := fake.Executions("lookup"); n != 1 {
			t.Errorf("lookup ran %d times, want 1", n)
		}
	}
}

// Record once against the live server, replay in CI with no server:
// MCPRIG_RECORD=1 go test records, CI=true go test replays.
func ExampleCassette() {
	_ = func(t *testing.T) {
		live := mcptest.Stdio(t, nil).Definition() // or stdio.New of the real server
		c := mcptest.Connect(t, mcptest.Cassette(t, "testdata/docs.cassette", live, nil), nil)
		mcptest.GoldenCatalog(t, "testdata/docs.catalog.txtar", c.Catalog())
	}
}

// The project's own scenarios: testdata/script/*.txtar.
func ExampleRunScripts() {
	_ = func(t *testing.T) {
		mcptest.RunScripts(t, "testdata/script")
	}
}
