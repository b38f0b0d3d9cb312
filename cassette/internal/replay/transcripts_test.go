package replay

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// runTranscripts runs run on the sections of every testdata/DIR/*.txtar
// file, a subtest each, and compares what it returns with the file's
// "want" section (what names the output in the mismatch). With -update
// the output is written to the "want" section instead, added if missing.
func runTranscripts(t *testing.T, dir, what string, run func(sections map[string]string) (string, error)) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sections := map[string]string{}
			for _, f := range ar.Files {
				sections[f.Name] = string(f.Data)
			}
			got, err := run(sections)
			if err != nil {
				t.Fatal(err)
			}
			if *updateSchedule {
				if !slices.ContainsFunc(ar.Files, func(f txtar.File) bool { return f.Name == "want" }) {
					ar.Files = append(ar.Files, txtar.File{Name: "want"})
				}
				for i := range ar.Files {
					if ar.Files[i].Name == "want" {
						ar.Files[i].Data = []byte(got)
					}
				}
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(sections["want"], got); diff != "" {
				t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
			}
		})
	}
}
