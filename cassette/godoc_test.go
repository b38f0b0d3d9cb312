package cassette_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	gotoken "go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
)

// TestGoDocShowsTheModel checks what go doc shows of package cassette: the
// model and the errors users branch on as struct types with their fields,
// methods and doc comments, not as aliases of internal types.
func TestGoDocShowsTheModel(t *testing.T) {
	leakcheck.Check(t)
	fset := gotoken.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/looprig/mcp/cassette")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Cassette":      "File Header Interactions; Kind Line Marshal Messages",
		"Header":        "Format Version Transport Protocol Server Volatile Redaction; ",
		"Interaction":   "Kind From Message Text HTTP Ending; ",
		"HTTP":          "Stream Method URL Status Headers Event ID Retry; ",
		"Ending":        "End Error Class Written Exit Stderr Pending; ",
		"Exit":          "Code Signal; ",
		"Message":       "Number Line From Message; ",
		"FormatError":   "File Line Err; Error Reason Unwrap",
		"MismatchError": "Cassette Position Method Diff Reason; Error Unwrap",
		"UnusedError":   "Cassette Unused; Error",
		"Unused":        "Line Method; ",
		"RecordedError": "Cassette Line Text Class; Error Is Timeout",
		"OptionsError":  "Func Option Value Err; Error Is Unwrap",
		"Drift":         "Kind Subject Line NewLine Reason Diff Severity Detail; ",
		"DriftError":    "Cassette Drifts Live; Error",
		"Severity":      "; MarshalText String UnmarshalText",
	}
	got := map[string]string{}
	for _, typ := range p.Types {
		if _, ok := want[typ.Name]; !ok {
			continue
		}
		spec := typ.Decl.Specs[0].(*ast.TypeSpec)
		if spec.Assign.IsValid() {
			t.Errorf("type %s is an alias", typ.Name)
		}
		if typ.Doc == "" {
			t.Errorf("type %s has no doc comment", typ.Name)
		}
		var fields, methods []string
		if st, ok := spec.Type.(*ast.StructType); ok {
			for _, f := range st.Fields.List {
				for _, n := range f.Names {
					fields = append(fields, n.Name)
				}
			}
		}
		for _, m := range typ.Methods {
			methods = append(methods, m.Name)
		}
		slices.Sort(methods)
		got[typ.Name] = strings.Join(fields, " ") + "; " + strings.Join(methods, " ")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("go doc's types (-want +got):\n%s", diff)
	}
}
