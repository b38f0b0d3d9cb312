package cassette_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	gotoken "go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
)

const self = "github.com/looprig/mcp/cassette"

// flow lists package cassette's internal packages in the order data flows
// through them: bytes → lines → model → plan → players. format reads and
// writes the model (and a fault's text form); errs holds the fields of
// the errors users branch on, which the later parts build with the
// constructors package cassette passes them; redact takes secrets, origins
// and made-up ids out of the model; hook runs go-vcr's hooks (adapted by
// package cassette/vcr) on a cassette's exchanges, for recording and
// replay; record records a session and builds its cassette; replay plays
// one back: the plan, matching, the scheduler, the decider, the players;
// verify compares sessions and drives a live server with a cassette.
var flow = []string{"format", "errs", "redact", "hook", "record", "replay", "verify"}

// deps returns the packages that package cassette links, each with the
// packages it imports, as go list reports them.
func deps(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.CommandContext(testkit.Context(t), "go", "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", self)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	graph := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) > 0 {
			graph[f[0]] = f[1:]
		}
	}
	return graph
}

// TestImportsNoVCR checks that package cassette does not link go-vcr:
// only users of package cassette/vcr do.
func TestImportsNoVCR(t *testing.T) {
	leakcheck.Check(t)
	for p := range deps(t) {
		if strings.Contains(p, "go-vcr") {
			t.Errorf("package cassette links %s", p)
		}
	}
}

// TestImportsFlow checks that no internal package of cassette imports one
// that comes later in the flow, and that each one has its place in it.
func TestImportsFlow(t *testing.T) {
	leakcheck.Check(t)
	for p, imps := range deps(t) {
		name, ok := strings.CutPrefix(p, self+"/internal/")
		if !ok {
			continue
		}
		at := slices.Index(flow, name)
		if at < 0 {
			t.Errorf("%s has no place in the flow", p)
			continue
		}
		for _, imp := range imps {
			dep, ok := strings.CutPrefix(imp, self+"/internal/")
			if ok && slices.Index(flow, dep) >= at {
				t.Errorf("%s imports %s, which comes after it in the flow", name, dep)
			}
		}
	}
}

// maxPart bounds the lines of an internal package's source, tests left out.
const maxPart = 3000

// TestImportsPartSize checks that no internal package of cassette is
// larger than maxPart lines.
func TestImportsPartSize(t *testing.T) {
	leakcheck.Check(t)
	dirs, err := filepath.Glob("internal/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			n += strings.Count(string(src), "\n")
		}
		if n > maxPart {
			t.Errorf("%s has %d lines, more than %d", dir, n, maxPart)
		}
	}
}

// TestImportsNoInit checks that package cassette and its internal packages
// declare no init function: no part is installed behind the user's back.
func TestImportsNoInit(t *testing.T) {
	leakcheck.Check(t)
	dirs, err := filepath.Glob("internal/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range append(dirs, ".", "vcr") {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(gotoken.NewFileSet(), name, src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
					t.Errorf("%s declares func init", name)
				}
			}
		}
	}
}

// aliasesAllowed are the aliases of internal types still to be made real
// types of their package: none. The list only shrinks:
// TestNoAliasOfInternalTypes fails for an entry no longer an alias.
var aliasesAllowed = []string{}

// TestNoAliasOfInternalTypes checks that no exported type of a public
// package of the module is an alias of a type declared in an internal
// package: go doc and pkg.go.dev show such a type without its fields and
// methods (DESIGN.md: public types live in public packages).
func TestNoAliasOfInternalTypes(t *testing.T) {
	leakcheck.Check(t)
	exports, public := exportData(t)
	imp := importer.ForCompiler(gotoken.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) { return os.Open(exports[path]) })
	var got []string
	for _, path := range public {
		p, err := imp.Import(path)
		if err != nil {
			t.Fatalf("importing %s: %v", path, err)
		}
		for _, name := range p.Scope().Names() {
			tn, ok := p.Scope().Lookup(name).(*types.TypeName)
			if !ok || !tn.Exported() || !tn.IsAlias() {
				continue
			}
			named, ok := types.Unalias(tn.Type()).(*types.Named)
			if !ok || named.Obj().Pkg() == nil || !isInternal(named.Obj().Pkg().Path()) {
				continue
			}
			got = append(got, path+"."+name)
			if !slices.Contains(aliasesAllowed, path+"."+name) {
				t.Errorf("%s.%s is an alias of %s.%s, declared in an internal package", path, name, named.Obj().Pkg().Path(), named.Obj().Name())
			}
		}
	}
	if len(public) < 10 {
		t.Errorf("checked %d public packages; want the module's", len(public))
	}
	for _, a := range aliasesAllowed {
		if !slices.Contains(got, a) {
			t.Errorf("%s is allowed to be an alias but is none: take it out of aliasesAllowed", a)
		}
	}
}

// exportData builds the module's packages and returns where each package
// they link has its export data, and the module's public packages.
func exportData(t *testing.T) (exports map[string]string, public []string) {
	t.Helper()
	cmd := exec.CommandContext(testkit.Context(t), "go", "list", "-export", "-deps", "-f", "{{.ImportPath}} {{.Export}} {{.Module}}", "github.com/looprig/mcp/...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports = map[string]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		exports[f[0]] = f[1]
		if len(f) == 3 && f[2] == "github.com/looprig/mcp" && !isInternal(f[0]) {
			public = append(public, f[0])
		}
	}
	return exports, public
}

// isInternal reports whether the package at path is internal to another.
func isInternal(path string) bool {
	return strings.HasSuffix(path, "/internal") || strings.Contains(path, "/internal/")
}
