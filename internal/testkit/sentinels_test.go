package testkit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSentinels: exported Err… variables of non-test files count, in var
// blocks too; unexported ones, constants, types and test files do not.
func TestSentinels(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.go":      "package p\n\nimport \"errors\"\n\nvar ErrB = errors.New(\"b\")\n\nvar (\n\tErrA = errors.New(\"a\")\n\terrC = errors.New(\"c\")\n\tNotErr = 1\n)\n",
		"b.go":      "package p\n\nconst ErrConst = 1\n\ntype ErrType struct{}\n\nfunc ErrFunc() {}\n",
		"b_test.go": "package p\n\nimport \"errors\"\n\nvar ErrTest = errors.New(\"t\")\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"ErrA", "ErrB"}, Sentinels(t, dir)); diff != "" {
		t.Errorf("Sentinels mismatch (-want +got):\n%s", diff)
	}
}
