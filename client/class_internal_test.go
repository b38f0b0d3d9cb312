package client

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/looprig/mcp/transport"
)

// TestClassifyBySentinel: an error wrapping a class's transport sentinel
// is classified as that class, connecting or not.
func TestClassifyBySentinel(t *testing.T) {
	for c := transport.ClassStart; c <= transport.ClassMismatch; c++ {
		if c.Err() == nil {
			continue
		}
		for _, connecting := range []bool{false, true} {
			if got := classify(fmt.Errorf("x: %w", c.Err()), nil, connecting, nil); got != c {
				t.Errorf("classify(%v, connecting %v) = %v, want %v", c.Err(), connecting, got, c)
			}
		}
	}
}

// TestClassesAliasTransport: client names each of transport's classes,
// under the same name and as an alias of it, and nothing else: one
// vocabulary, which a caller of client reads without importing transport.
func TestClassesAliasTransport(t *testing.T) {
	declared := func(glob string, keep func(name string, v ast.Expr) bool) []string {
		t.Helper()
		files, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
					for _, s := range g.Specs {
						vs := s.(*ast.ValueSpec)
						for i, id := range vs.Names {
							var v ast.Expr
							if i < len(vs.Values) {
								v = vs.Values[i]
							}
							if strings.HasPrefix(id.Name, "Class") && keep(id.Name, v) {
								names = append(names, id.Name)
							}
						}
					}
				}
			}
		}
		sort.Strings(names)
		return names
	}
	want := declared("../transport/*.go", func(string, ast.Expr) bool { return true })
	var notAlias []string
	got := declared("*.go", func(name string, v ast.Expr) bool {
		sel, ok := v.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != name || fmt.Sprint(sel.X) != "transport" {
			notAlias = append(notAlias, name)
		}
		return true
	})
	if len(want) == 0 {
		t.Fatal("no Class constants found in transport")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("client's classes mismatch transport's (-want +got):\n%s", diff)
	}
	if len(notAlias) != 0 {
		t.Errorf("client classes not written as transport.<same name>: %v", notAlias)
	}
}
