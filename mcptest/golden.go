package mcptest

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/rogpeppe/go-internal/txtar"
)

// UpdateFlag is the name of the boolean flag that makes [GoldenCatalog]
// rewrite golden files. [Main] defines it unless the test package already
// has a flag of that name, which is then used.
const UpdateFlag = "update"

// updating reports whether -update was given.
func updating() bool {
	f := flag.Lookup(UpdateFlag)
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	b, _ := g.Get().(bool)
	return b
}

// goldenCatalog is what a golden file holds of a catalog: everything but
// the per-tool fingerprints, which the catalog's fingerprint covers.
type goldenCatalog struct {
	Tools             any `json:"tools"`
	Resources         any `json:"resources"`
	ResourceTemplates any `json:"resourceTemplates"`
	Prompts           any `json:"prompts"`
	// Skills are the catalog's skills (Definition.Skills), left out when
	// there are none, so that the golden files of servers without skills
	// stay as they were.
	Skills any `json:"skills,omitempty"`
}

// GoldenCatalog compares cat with the golden file at path, a txtar archive
// with a prose comment first, then the files "fingerprint" and
// "catalog.json" (indented JSON). A difference fails the test with a go-cmp
// diff (-want +got). Run the test with -update to (re)write the file; the
// comment of an existing file is kept.
func GoldenCatalog(t testing.TB, path string, cat *client.Catalog) {
	t.Helper()
	got, err := encodeCatalog(cat)
	if err != nil {
		t.Fatalf("mcptest.GoldenCatalog: %v", err)
	}
	old, err := os.ReadFile(path)
	if updating() {
		comment := []byte(fmt.Sprintf("The catalog a client discovered, written by mcptest.GoldenCatalog.\nRewrite it with: go test -run '^%s$' -%s\n", t.Name(), UpdateFlag))
		if err == nil {
			if c := txtar.Parse(old).Comment; len(c) > 0 {
				comment = c
			}
		}
		a := &txtar.Archive{Comment: comment, Files: []txtar.File{
			{Name: "fingerprint", Data: []byte(cat.Fingerprint + "\n")},
			{Name: "catalog.json", Data: got},
		}}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("mcptest.GoldenCatalog: %v", err)
		}
		if err := os.WriteFile(path, txtar.Format(a), 0o644); err != nil {
			t.Fatalf("mcptest.GoldenCatalog: %v", err)
		}
		return
	}
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("mcptest.GoldenCatalog: %s does not exist; write it with: go test -run '^%s$' -%s", path, t.Name(), UpdateFlag)
	}
	if err != nil {
		t.Fatalf("mcptest.GoldenCatalog: %v", err)
	}
	files := map[string]string{}
	for _, f := range txtar.Parse(old).Files {
		files[f.Name] = string(f.Data)
	}
	var want, have any
	if err := json.Unmarshal([]byte(files["catalog.json"]), &want); err != nil {
		t.Fatalf("mcptest.GoldenCatalog: %s: catalog.json: %v", path, err)
	}
	if err := json.Unmarshal(got, &have); err != nil {
		t.Fatalf("mcptest.GoldenCatalog: %v", err)
	}
	if diff := cmp.Diff(want, have); diff != "" {
		t.Errorf("catalog differs from %s (-want +got):\n%s\nIf the change is intended, run with -%s.", path, diff, UpdateFlag)
	}
	if w := strings.TrimSpace(files["fingerprint"]); w != cat.Fingerprint {
		t.Errorf("catalog fingerprint = %s, %s has %s; if the change is intended, run with -%s", cat.Fingerprint, path, w, UpdateFlag)
	}
}

func encodeCatalog(cat *client.Catalog) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	err := enc.Encode(newGoldenCatalog(cat))
	return buf.Bytes(), err
}

// newGoldenCatalog is what a golden file holds of cat.
func newGoldenCatalog(cat *client.Catalog) goldenCatalog {
	g := goldenCatalog{Tools: cat.Tools, Resources: cat.Resources, ResourceTemplates: cat.ResourceTemplates, Prompts: cat.Prompts}
	if len(cat.Skills) > 0 {
		g.Skills = cat.Skills
	}
	return g
}
