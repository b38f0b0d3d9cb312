package mcptest_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/looprig/mcp/mcptest"
)

// TestGoldenCatalog compares the docs profile's catalog with
// testdata/docs.catalog.txtar; -update rewrites it.
func TestGoldenCatalog(t *testing.T) {
	c := mcptest.Connect(t, mcptest.InProcess(t, nil).Definition(), nil)
	mcptest.GoldenCatalog(t, "testdata/docs.catalog.txtar", c.Catalog())
}

func TestGoldenCatalogReportsADiffAndUpdates(t *testing.T) {
	if flag.Lookup(mcptest.UpdateFlag).Value.String() == "true" {
		t.Skip("this test sets -update itself")
	}
	path := filepath.Join(t.TempDir(), "catalog.txtar")
	docs := mcptest.Connect(t, mcptest.InProcess(t, nil).Definition(), nil).Catalog()
	rich := mcptest.Connect(t, mcptest.InProcess(t, &mcptest.InProcessOptions{Catalog: "rich"}).Definition(), nil).Catalog()

	r := &recT{TB: t}
	if failures := r.run(func(tb testing.TB) { mcptest.GoldenCatalog(tb, path, docs) }); len(failures) != 1 || !strings.Contains(failures[0], "-update") {
		t.Fatalf("missing golden file: failures = %q, want one that says to run with -update", failures)
	}

	setUpdate(t, true)
	mcptest.GoldenCatalog(t, path, docs)
	setUpdate(t, false)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "The catalog a client discovered") || !strings.Contains(string(b), "\n-- catalog.json --\n") {
		t.Errorf("golden file does not open with its comment and hold catalog.json:\n%s", b)
	}
	mcptest.GoldenCatalog(t, path, docs) // now it matches

	r = &recT{TB: t}
	failures := r.run(func(tb testing.TB) { mcptest.GoldenCatalog(tb, path, rich) })
	if len(failures) != 2 || !strings.Contains(failures[0], "(-want +got)") || !strings.Contains(failures[0], `"elicit"`) {
		t.Errorf("changed catalog: failures = %q, want a go-cmp diff naming the new tool and a fingerprint mismatch", failures)
	}
}

func setUpdate(t *testing.T, on bool) {
	t.Helper()
	v := "false"
	if on {
		v = "true"
	}
	if err := flag.Set(mcptest.UpdateFlag, v); err != nil {
		t.Fatal(err)
	}
}
