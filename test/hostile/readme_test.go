package hostile_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// GUARANTEES.md names the tests that prove each guarantee: every test and
// fuzz target it names exists, so that a renamed or deleted proof cannot
// leave the list claiming it. PLATFORMS.md's and README.md's, likewise.
func TestGuaranteesNameRealTests(t *testing.T) {
	root := filepath.Join("..", "..")
	defined := definedTests(t, root)
	for _, doc := range []struct {
		name     string
		minNamed int // a floor, so that a file emptied by mistake fails
	}{
		{"GUARANTEES.md", 150},
		{"PLATFORMS.md", 10},
		{"README.md", 0},
	} {
		b, err := os.ReadFile(filepath.Join(root, doc.name))
		if err != nil {
			t.Fatal(err)
		}
		named, missing := namedTests(string(b), defined)
		if named < doc.minNamed {
			t.Errorf("%s names %d tests; want every guarantee's proofs named (at least %d)", doc.name, named, doc.minNamed)
		}
		for _, name := range missing {
			t.Errorf("%s names %s, which no test file defines", doc.name, name)
		}
	}
}

// The check fails a document that names a test no file defines, and only
// that one.
func TestNamedTestsCheckFailsOnAMissingTest(t *testing.T) {
	defined := map[string]bool{"TestReal": true, "FuzzReal": true}
	doc := "proven by `TestReal`, `FuzzReal`, `TestGone` and `FuzzGone`; TestUnquoted is prose, not a name"
	named, missing := namedTests(doc, defined)
	if named != 4 {
		t.Errorf("named %d tests, want 4", named)
	}
	if diff := cmp.Diff([]string{"TestGone", "FuzzGone"}, missing); diff != "" {
		t.Errorf("missing mismatch (-want +got):\n%s", diff)
	}
}

// namedTests returns how many tests and fuzz targets doc names (in
// backquotes), and those of them that are not defined.
func namedTests(doc string, defined map[string]bool) (named int, missing []string) {
	for _, m := range testNameRE.FindAllStringSubmatch(doc, -1) {
		named++
		if !defined[m[1]] {
			missing = append(missing, m[1])
		}
	}
	return named, missing
}

// testNameRE is a test or fuzz target named in a document.
var testNameRE = regexp.MustCompile("`((?:Test|Fuzz)[A-Za-z0-9_]+)`")

// definedTests returns the tests and fuzz targets the test files under
// root define, whatever system they build on.
func definedTests(t *testing.T, root string) map[string]bool {
	t.Helper()
	defined := map[string]bool{}
	funcRE := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)[A-Za-z0-9_]+)\(`)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, "_test.go") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range funcRE.FindAllStringSubmatch(string(b), -1) {
				defined[m[1]] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return defined
}
