package test_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
)

// A definition, in this module, is how to reach a server: a
// client.Definition. Outside package client, an exported name that says
// "Definition" holds, takes or returns one. A fake's tools and replies
// are its catalog (fakeserver.Catalog).

// definitionNamesAllowed lists the exported names outside package client
// that say "Definition" and mean something else, each with why.
var definitionNamesAllowed = map[string]string{
	"fakeserver.Definition":       "deprecated: v0.1.0's name for fakeserver.Catalog",
	"fakeserver.DefinitionError":  "deprecated: v0.1.0's name for fakeserver.CatalogError",
	"server.SkillDefinition":      "a skill written in code; the server package's, not a fake's catalog",
	"server.ErrInvalidDefinition": "a tool, resource or prompt the server refuses; the server package's sentinel",
}

// clientPath is the import path of package client.
const clientPath = module + "/client"

// definitionNames returns the exported names of package pkg (its import
// path relative to the module, its non-test files) that say "Definition"
// without being a client.Definition, as "pkg.Name" or "pkg.Type.Field"
// (a method or an interface's method is named as a field is).
func definitionNames(pkg string, fset *token.FileSet, files []*ast.File) ([]string, error) {
	d, err := doc.NewFromFiles(fset, files, module+"/"+pkg)
	if err != nil {
		return nil, err
	}
	prefix := pkg + "."
	var out []string
	bad := func(name string) { out = append(out, prefix+name) }
	says := func(name string) bool { return strings.Contains(name, "Definition") }
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, n := range v.Names {
				if says(n) && token.IsExported(n) {
					bad(n)
				}
			}
		}
	}
	funcs := func(recv string, fs []*doc.Func) {
		for _, f := range fs {
			if says(f.Name) && !isClientDefinition(fileOf(fset, files, f.Decl), firstResult(f.Decl.Type)) {
				bad(recv + f.Name)
			}
		}
	}
	values(d.Consts)
	values(d.Vars)
	funcs("", d.Funcs)
	for _, t := range d.Types {
		spec := typeSpec(t.Decl, t.Name)
		file := fileOf(fset, files, t.Decl)
		if says(t.Name) && !(spec.Assign.IsValid() && isClientDefinition(file, spec.Type)) {
			bad(t.Name)
		}
		for _, f := range fields(spec) {
			for _, n := range f.names {
				if says(n) && !isClientDefinition(file, f.typ) {
					bad(t.Name + "." + n)
				}
			}
		}
		values(t.Consts)
		values(t.Vars)
		funcs("", t.Funcs)
		funcs(t.Name+".", t.Methods)
	}
	slices.Sort(out)
	return out, nil
}

// A field is an exported field or interface method of a type: its names
// and its type (a method's type is its signature).
type field struct {
	names []string
	typ   ast.Expr
}

// fields returns the exported fields of a struct type, or the methods of
// an interface type.
func fields(spec *ast.TypeSpec) []field {
	var list *ast.FieldList
	switch t := spec.Type.(type) {
	case *ast.StructType:
		list = t.Fields
	case *ast.InterfaceType:
		list = t.Methods
	default:
		return nil
	}
	var out []field
	for _, f := range list.List {
		var names []string
		for _, n := range f.Names {
			if n.IsExported() {
				names = append(names, n.Name)
			}
		}
		if len(f.Names) == 0 { // embedded: named after its type
			if n := embeddedName(f.Type); token.IsExported(n) {
				names = append(names, n)
			}
		}
		typ := f.Type
		if ft, ok := typ.(*ast.FuncType); ok {
			typ = firstResult(ft)
		}
		out = append(out, field{names, typ})
	}
	return out
}

func embeddedName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return embeddedName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.Ident:
		return t.Name
	}
	return ""
}

func firstResult(ft *ast.FuncType) ast.Expr {
	if ft.Results == nil || len(ft.Results.List) == 0 {
		return nil
	}
	return ft.Results.List[0].Type
}

// isClientDefinition says whether e is client.Definition, a pointer to
// one, or a slice of them, in file (whose imports name package client).
func isClientDefinition(file *ast.File, e ast.Expr) bool {
	switch t := e.(type) {
	case *ast.StarExpr:
		return isClientDefinition(file, t.X)
	case *ast.ArrayType:
		return isClientDefinition(file, t.Elt)
	case *ast.SelectorExpr:
		x, ok := t.X.(*ast.Ident)
		return ok && t.Sel.Name == "Definition" && importName(file, clientPath) == x.Name
	}
	return false
}

// importName returns the name file gives the package at path, or "".
func importName(file *ast.File, path string) string {
	if file == nil {
		return ""
	}
	for _, imp := range file.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == path {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return filepath.Base(p)
		}
	}
	return ""
}

func typeSpec(decl *ast.GenDecl, name string) *ast.TypeSpec {
	for _, s := range decl.Specs {
		if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == name {
			return ts
		}
	}
	return &ast.TypeSpec{Name: ast.NewIdent(name)}
}

// fileOf returns the file of files that holds n.
func fileOf(fset *token.FileSet, files []*ast.File, n ast.Node) *ast.File {
	name := fset.Position(n.Pos()).Filename
	for _, f := range files {
		if fset.Position(f.Pos()).Filename == name {
			return f
		}
	}
	return nil
}

// TestDefinitionNamesFinds checks what definitionNames reports, and what
// it lets pass, on a package of its own.
func TestDefinitionNamesFinds(t *testing.T) {
	leakcheck.Check(t)
	const src = `package fake

import (
	c "github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
)

type Definition struct{ Name string }        // a fake's catalog by the wrong name
type Reach = c.Definition                     // an alias of the right one
type DefinitionAlias = c.Definition           // passes: it is one
type Options struct {
	Definition  *fakeserver.Catalog // the wrong meaning
	Definitions []*Definition       // the wrong meaning
	Server      c.Definition        // passes: another name
	Peer        *c.Definition       // passes
	Peers       []c.Definition      // passes
	Backup      c.Definition        // passes
	definition  string              // unexported: not API
	c.Definition                    // embedded: passes
}
type Source interface {
	Definition() c.Definition   // passes
	Definitions() []string      // the wrong meaning
}
type Fake struct{}

func (Fake) Definition() c.Definition       { return c.Definition{} } // passes
func (Fake) CatalogDefinition() string      { return "" }             // the wrong meaning
func NewDefinition() *Definition            { return nil }            // the wrong meaning
func Connect(d c.Definition) error          { return nil }            // passes: not named so

var ErrBadDefinition error                   // the wrong meaning
const DefinitionName = "x"                   // the wrong meaning
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "fake.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	got, err := definitionNames("fake", fset, []*ast.File{f})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"fake.Definition",
		"fake.DefinitionName",
		"fake.ErrBadDefinition",
		"fake.Fake.CatalogDefinition",
		"fake.NewDefinition",
		"fake.Options.Definition",
		"fake.Options.Definitions",
		"fake.Source.Definitions",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("definitionNames (-want +got):\n%s", diff)
	}
}

// TestOneMeaningOfDefinition checks every public package of the module
// (and of the modules nested in it) but client: an exported name that
// says "Definition" is a client.Definition, or is listed, with why, in
// definitionNamesAllowed.
func TestOneMeaningOfDefinition(t *testing.T) {
	leakcheck.Check(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	byDir := map[string][]string{} // a package's directory: its files
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (d.Name() == "testdata" || d.Name() == "internal" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") {
			byDir[filepath.Dir(path)] = append(byDir[filepath.Dir(path)], path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	seen := map[string]bool{}
	for dir, paths := range byDir {
		rel, _ := filepath.Rel(root, dir)
		rel = filepath.ToSlash(rel)
		fset := token.NewFileSet()
		var files []*ast.File
		for _, p := range paths {
			f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			if f.Name.Name != "main" {
				files = append(files, f)
			}
		}
		if len(files) == 0 || rel == "client" {
			continue
		}
		seen[rel] = true
		names, err := definitionNames(rel, fset, files)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		got = append(got, names...)
	}
	for _, p := range []string{"fakeserver", "mcptest", "mcptest/mcpscript", "server", "test/opmatrix", "otelmcp"} {
		if !seen[p] {
			t.Fatalf("the walk missed package %s (%d packages)", p, len(seen))
		}
	}
	slices.Sort(got)
	for _, n := range got {
		if _, ok := definitionNamesAllowed[n]; !ok {
			t.Errorf("%s says Definition but is no client.Definition: name it for what it is (a fake's catalog is a fakeserver.Catalog)", n)
		}
	}
	t.Logf("%d packages; %d listed names found: %v", len(seen), len(got), got)
}
