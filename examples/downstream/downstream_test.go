package downstream_test

import (
	"testing"

	"example.com/downstream"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/mcptest/mcpscript"
)

// TestMain makes the test binary the stdio children the tests need: the
// fake weather server (registered by name) and the team's own server
// program, for scenarios.
func TestMain(m *testing.M) {
	mcpscript.Main(m, &mcpscript.MainOptions{
		Catalogs: []*fakeserver.Catalog{weather},
		Programs: map[string]func() int{"units-server": downstream.ServeMain},
	})
}

// TestLookup runs against the recorded session in testdata/docs.cassette:
// in CI (CI set) it replays with no server; MCPRIG_RECORD=1 re-records it
// against the live server, here the fake server run as a stdio child.
func TestLookup(t *testing.T) {
	mcptest.LeakCheck(t)
	live := mcptest.Stdio(t, nil).Definition()
	c := mcptest.Connect(t, mcptest.Cassette(t, "testdata/docs.cassette", live, nil), nil)
	mcptest.GoldenCatalog(t, "testdata/docs.catalog.txtar", c.Catalog())
	got, err := downstream.Lookup(t.Context(), c, "close")
	if err != nil {
		t.Fatal(err)
	}
	if want := "docs: close"; got != want {
		t.Errorf("Lookup = %q, want %q", got, want)
	}
}

// TestScripts runs the scenarios in testdata/script.
func TestScripts(t *testing.T) {
	mcpscript.RunScripts(t, "testdata/script")
}
