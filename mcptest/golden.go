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
	"github.com/looprig/mcp/mcptest/internal/golden"
	"github.com/looprig/mcp/mcptest/internal/testmain"
	"github.com/rogpeppe/go-internal/txtar"
)

// UpdateFlag is the name of the boolean flag that makes [GoldenCatalog]
// rewrite golden files. [Main] defines it unless the test package already
// has a flag of that name, which is then used.
const UpdateFlag = testmain.UpdateFlag

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
	err := enc.Encode(golden.New(cat))
	return buf.Bytes(), err
}
