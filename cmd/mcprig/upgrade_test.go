package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpgrade rewrites a version-1 cassette as version 2, which then loads
// and replays the same; a current cassette is left as it is.
func TestUpgrade(t *testing.T) {
	v1, err := os.ReadFile(filepath.Join("..", "..", "cassette", "testdata", "v1-counter.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "old.jsonl")
	if err := os.WriteFile(path, v1, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runMcprig("upgrade", path)
	if code != 0 || !strings.Contains(stdout, "upgraded to version 2") {
		t.Fatalf("upgrade exited %d: %s %s", code, stdout, stderr)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), `{"format":"mcprig-cassette","version":2,`) || !strings.Contains(string(data), `{"kind":"close","end":"client"}`) {
		t.Errorf("upgraded cassette:\n%s", data)
	}
	if code, stdout, _ := runMcprig("upgrade", path); code != 0 || !strings.Contains(stdout, "current") {
		t.Errorf("second upgrade exited %d: %s", code, stdout)
	}
	if now, _ := os.ReadFile(path); string(now) != string(data) {
		t.Error("a current cassette was rewritten")
	}
	broken := filepath.Join(t.TempDir(), "broken.jsonl")
	os.WriteFile(broken, []byte("{}\n"), 0o644)
	if code, _, _ := runMcprig("upgrade", broken); code != 2 {
		t.Errorf("upgrade of a broken file exited %d, want 2", code)
	}
}
