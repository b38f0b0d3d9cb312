package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestInspect compares the summary of the recorded docs session with the
// golden one.
func TestInspect(t *testing.T) {
	code, stdout, stderr := runMcprig("inspect", filepath.Join("testdata", "docs.jsonl"))
	if code != 0 {
		t.Fatalf("inspect exited %d: %s", code, stderr)
	}
	goldenTxtar(t, "inspect.txtar", "mcprig inspect of testdata/docs.jsonl, the fake server's docs session\nrecorded by TestRecordReplayStdio. go test -run TestInspect -update rewrites it.\n",
		[]txtar.File{{Name: "docs.jsonl", Data: []byte(stdout)}})
}

// TestInspectBadCassette: a cassette that does not load is named with its
// line, and inspect exits 2.
func TestInspectBadCassette(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "docs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(good), "\n")
	lines[4] = "{not json\n"
	path := filepath.Join(t.TempDir(), "broken.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"inspect", path}, {"replay", path}, {"diff", path, filepath.Join("testdata", "docs.jsonl")}} {
		code, _, stderr := runMcprig(cmd...)
		if code != 2 || !strings.Contains(stderr, path+":5") {
			t.Errorf("mcprig %s exited %d, stderr %q; want 2 and %q", cmd[0], code, stderr, path+":5")
		}
	}
	code, _, stderr := runMcprig("inspect", filepath.Join(t.TempDir(), "missing.jsonl"))
	if code != 2 || !strings.Contains(stderr, "missing.jsonl") {
		t.Errorf("missing cassette: exit %d, stderr %q", code, stderr)
	}
}

func TestInspectUsage(t *testing.T) {
	if code, _, stderr := runMcprig("inspect"); code != 2 || !strings.Contains(stderr, "want exactly one cassette FILE") {
		t.Errorf("inspect with no file: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runMcprig("inspect", "--help"); code != 0 || !strings.Contains(stderr, "usage: mcprig inspect [--format text|mermaid|html] [-o FILE] FILE") {
		t.Errorf("inspect --help: exit %d, stderr %q", code, stderr)
	}
}
