// Command shape measures the public surface of the module, package by
// package, as issue 32 asks to show it: exported identifiers, sentinel
// errors, error types, options types and lines of code. Run it at two
// commits to compare them:
//
//	go run ./scripts/shape [dir]
//
// dir is the module's root (default "."). Test files, testdata, hidden
// directories, nested modules and internal packages are left out: an
// internal package is not public surface. A package's exported
// identifiers are its exported top-level names and the exported methods
// of its types. A sentinel is an exported variable whose name begins with
// Err. An error type is an exported type whose name ends in Error. An
// options type is an exported struct type whose name ends in Options or
// Config. The largest file is named last: it is the largest unit a
// newcomer reads.
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type counts struct {
	exported, sentinels, errTypes, options, lines int
}

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	pkgs := map[string]*counts{}
	var largest string
	var largestLines int
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			base := d.Name()
			if rel != "." && (strings.HasPrefix(base, ".") || base == "testdata" || base == "internal" || base == "node_modules") {
				return filepath.SkipDir
			}
			if rel != "." {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir := filepath.Dir(rel)
		if top := strings.SplitN(dir, string(filepath.Separator), 2)[0]; top == "scripts" || top == "examples" || top == "test" || top == "conformance" || top == "bench" {
			return nil
		}
		n, err := measure(path)
		if err != nil {
			return err
		}
		if n == nil {
			return nil // package main
		}
		c := pkgs[dir]
		if c == nil {
			c = &counts{}
			pkgs[dir] = c
		}
		c.exported += n.exported
		c.sentinels += n.sentinels
		c.errTypes += n.errTypes
		c.options += n.options
		c.lines += n.lines
		if n.lines > largestLines {
			largest, largestLines = rel, n.lines
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "shape:", err)
		os.Exit(1)
	}
	names := make([]string, 0, len(pkgs))
	for k := range pkgs {
		names = append(names, k)
	}
	sort.Strings(names)
	var t counts
	fmt.Printf("| package | exported | sentinels | error types | options types | lines |\n|---|---|---|---|---|---|\n")
	for _, k := range names {
		c := pkgs[k]
		fmt.Printf("| %s | %d | %d | %d | %d | %d |\n", k, c.exported, c.sentinels, c.errTypes, c.options, c.lines)
		t.exported += c.exported
		t.sentinels += c.sentinels
		t.errTypes += c.errTypes
		t.options += c.options
		t.lines += c.lines
	}
	fmt.Printf("| total (%d packages) | %d | %d | %d | %d | %d |\n", len(names), t.exported, t.sentinels, t.errTypes, t.options, t.lines)
	fmt.Printf("\nlargest file: %s, %d lines\n", largest, largestLines)
}

// measure counts one file's share; it returns nil for a command's file.
func measure(path string) (*counts, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	if f.Name.Name == "main" {
		return nil, nil
	}
	c := &counts{lines: strings.Count(string(src), "\n")}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv == nil || exportedRecv(d.Recv) {
				c.exported++
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					c.exported++
					name := s.Name.Name
					if strings.HasSuffix(name, "Error") {
						c.errTypes++
					}
					if _, ok := s.Type.(*ast.StructType); ok && (strings.HasSuffix(name, "Options") || strings.HasSuffix(name, "Config")) {
						c.options++
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if !n.IsExported() {
							continue
						}
						c.exported++
						if d.Tok == token.VAR && strings.HasPrefix(n.Name, "Err") {
							c.sentinels++
						}
					}
				}
			}
		}
	}
	return c, nil
}

// exportedRecv reports whether a method's receiver type is exported.
func exportedRecv(r *ast.FieldList) bool {
	t := r.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.Ident:
		return x.IsExported()
	case *ast.IndexExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			return id.IsExported()
		}
	case *ast.IndexListExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			return id.IsExported()
		}
	}
	return false
}
