package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunExitCodes: 0 when the version follows the report, 1 when it does
// not, 2 when the input cannot be read.
func TestRunExitCodes(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report.txt")
	cl := filepath.Join(dir, "CHANGELOG.md")
	if err := os.WriteFile(report, []byte(apidiffReport), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cl, []byte(changelog), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("Breaking:\n- x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"-base", "v0.1.0", "-version", "v0.2.0", "-report", report, "-changelog", cl}, 0, "ok: "},
		{[]string{"-base", "v0.1.0", "-version", "v0.1.1", "-report", report, "-changelog", cl}, 1, "FAIL: client.Version is v0.1.1"},
		{[]string{"-base", "v0.1.0", "-report", bad, "-changelog", cl}, 2, ""},
		{[]string{"-base", "v0.1.0", "-report", filepath.Join(dir, "missing"), "-changelog", cl}, 2, ""},
		{[]string{"-report", report}, 2, ""},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tt.args, &stdout, &stderr); code != tt.code || !strings.Contains(stdout.String(), tt.out) {
			t.Errorf("run(%q) = %d, stdout %q, stderr %q; want %d and %q", tt.args, code, stdout.String(), stderr.String(), tt.code, tt.out)
		}
	}
}
