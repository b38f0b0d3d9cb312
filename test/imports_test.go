package test_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
)

func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m)) }

const module = "github.com/looprig/mcp"

// A pkg is what a package imports of this module: in its code, and in its
// test files.
type pkg struct {
	code, tests []string
}

// graph returns every package of the module with its imports, as go list
// reports them.
func graph(t *testing.T) map[string]pkg {
	t.Helper()
	cmd := exec.CommandContext(testkit.Context(t), "go", "list", "-f",
		`{{.ImportPath}}|{{join .Imports " "}}|{{join .TestImports " "}} {{join .XTestImports " "}}`, module+"/...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	g := map[string]pkg{}
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimSpace(line), "|")
		if len(f) != 3 {
			t.Fatalf("go list: unexpected line %q", line)
		}
		g[rel(f[0])] = pkg{code: ours(f[1]), tests: ours(f[2])}
	}
	return g
}

// rel returns an import path relative to the module: "transport/sse",
// "." for the module's root.
func rel(path string) string {
	if path == module {
		return "."
	}
	return strings.TrimPrefix(path, module+"/")
}

// ours returns the imports of this module in a space-separated list,
// relative to it.
func ours(list string) []string {
	var paths []string
	for _, p := range strings.Fields(list) {
		if p == module || strings.HasPrefix(p, module+"/") {
			paths = append(paths, rel(p))
		}
	}
	return paths
}

func under(path, dir string) bool { return path == dir || strings.HasPrefix(path, dir+"/") }

// violations returns every import of g that breaks the layout:
//
//   - a package under internal/ imports only internal/ and protocol,
//     in its code and its tests: internal/ holds leaves;
//   - protocol imports nothing of this module, so that every package
//     may import it;
//   - nothing under cmd/ imports an example;
//   - only tests, and other harnesses, import a harness (test/).
func violations(g map[string]pkg) []string {
	var out []string
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for p := range g {
			if !yield(p) {
				return
			}
		}
	}) {
		imports := append(slices.Clone(g[p].code), g[p].tests...)
		slices.Sort(imports)
		imports = slices.Compact(imports)
		for _, imp := range imports {
			switch {
			case under(p, "internal") && !under(imp, "internal") && imp != "protocol":
				out = append(out, p+" imports "+imp+": internal/ holds leaves")
			case p == "protocol" && slices.Contains(g[p].code, imp):
				out = append(out, p+" imports "+imp+": protocol imports nothing of this module")
			case under(p, "cmd") && under(imp, "examples"):
				out = append(out, p+" imports "+imp+": the command line imports no example")
			}
		}
		for _, imp := range g[p].code {
			if under(imp, "test") && !under(p, "test") {
				out = append(out, p+" imports "+imp+": only tests import a harness")
			}
		}
	}
	return out
}

// TestLayoutRules checks each rule of violations, and the imports each
// rule allows.
func TestLayoutRules(t *testing.T) {
	leakcheck.Check(t)
	g := map[string]pkg{
		"internal/sse":                 {code: []string{"internal/wire", "protocol"}},
		"internal/up":                  {code: []string{"client"}},
		"internal/uptest":              {tests: []string{"transport/sse"}},
		"protocol":                     {code: []string{"internal/wire"}, tests: []string{"client"}},
		"client":                       {code: []string{"protocol", "transport", "internal/sse"}, tests: []string{"test/opmatrix"}},
		"cmd/mcprig":                   {code: []string{"client", "examples/adoption"}, tests: []string{"test/opmatrix"}},
		"cmd/other":                    {tests: []string{"examples/downstream"}},
		"examples/adoption":            {code: []string{"client"}},
		"fakeserver":                   {code: []string{"test/hostile"}},
		"test/opmatrix":                {code: []string{"client", "test/hostile", "internal/testkit"}},
		"transport/internal/httpguard": {code: []string{"transport", "auth"}},
	}
	want := []string{
		"cmd/mcprig imports examples/adoption: the command line imports no example",
		"cmd/other imports examples/downstream: the command line imports no example",
		"fakeserver imports test/hostile: only tests import a harness",
		"internal/up imports client: internal/ holds leaves",
		"internal/uptest imports transport/sse: internal/ holds leaves",
		"protocol imports internal/wire: protocol imports nothing of this module",
	}
	if diff := cmp.Diff(want, violations(g)); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// TestLayout checks the module's imports against the layout's rules.
func TestLayout(t *testing.T) {
	leakcheck.Check(t)
	g := graph(t)
	for _, p := range []string{"protocol", "internal/wire", "cmd/mcprig", "test/opmatrix"} {
		if _, ok := g[p]; !ok {
			t.Fatalf("go list did not list %s: %d packages", p, len(g))
		}
	}
	for _, v := range violations(g) {
		t.Error(v)
	}
}
