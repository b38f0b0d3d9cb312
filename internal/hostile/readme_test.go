package hostile_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// README's "Guarantees" names the tests that prove each guarantee: every
// test and fuzz target it names exists, so that a renamed or deleted proof
// cannot leave the list claiming it. PLATFORMS.md's, likewise.
func TestGuaranteesNameRealTests(t *testing.T) {
	root := filepath.Join("..", "..")
	defined := definedTests(t, root)
	platforms, err := os.ReadFile(filepath.Join(root, "PLATFORMS.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range testNameRE.FindAllStringSubmatch(string(platforms), -1) {
		if !defined[m[1]] {
			t.Errorf("PLATFORMS.md names %s, which no test file defines", m[1])
		}
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	start := strings.Index(s, "\n## Guarantees\n")
	if start < 0 {
		t.Fatal(`README.md has no "## Guarantees" section`)
	}
	section := s[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	named := testNameRE.FindAllStringSubmatch(section, -1)
	if len(named) < 50 {
		t.Fatalf("Guarantees names %d tests; want every guarantee's proofs named", len(named))
	}
	for _, m := range named {
		if !defined[m[1]] {
			t.Errorf("README's Guarantees names %s, which no test file defines", m[1])
		}
	}
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
