package atomicfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "f.jsonl")
	if err := WriteFile(path, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The mode asked for, not the temporary file's 0600.
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want 0644", fi.Mode().Perm())
	}
	if err := WriteFile(path, []byte("two\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "two\n" {
		t.Fatalf("content = %q, %v; want %q", got, err, "two\n")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "sub", ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestWriteFileReaderKeepsOldBytes: a reader that opened the file before it
// was replaced reads the old bytes to the end, whole, and a reader opening it
// afterwards the new ones: the new content goes to a file of its own, never
// over the old one in place.
func TestWriteFileReaderKeepsOldBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	old := []byte(strings.Repeat("old line\n", 1000))
	if err := WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	head := make([]byte, 9)
	if _, err := io.ReadFull(r, head); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(r)
	if got := append(head, rest...); err != nil || !bytes.Equal(got, old) {
		t.Errorf("the reader that held the old file read %d bytes (%q…), %v; want the %d old bytes", len(got), got[:min(len(got), 20)], err, len(old))
	}
	if got, _ := os.ReadFile(path); string(got) != "new\n" {
		t.Errorf("a reader opening it afterwards read %q, want %q", got, "new\n")
	}
}

// TestWriteFileFailureKeepsOld: a write that cannot complete (the target is
// a directory, so the rename fails) leaves what was there and no temporary
// file.
func TestWriteFileFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "taken")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "inside"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(target, []byte("new"), 0o644); err == nil {
		t.Fatal("WriteFile over a non-empty directory succeeded")
	}
	if got, _ := os.ReadFile(filepath.Join(target, "inside")); string(got) != "old" {
		t.Errorf("old content = %q, want %q", got, "old")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
