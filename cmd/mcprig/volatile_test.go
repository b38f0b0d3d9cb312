package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
)

// declaring returns the header edit that declares paths volatile in a copy
// of testdata/docs.jsonl.
func declaring(paths string) []string {
	return []string{`"server":"docs"}`, `"server":"docs","volatile":[` + paths + `]}`}
}

// TestDiffHonoursDeclaredVolatile: mcprig diff ignores what either
// cassette declares volatile, with no --ignore; undeclared, it drifts.
func TestDiffHonoursDeclaredVolatile(t *testing.T) {
	changed := []string{`"text":"docs: close"`, `"text":"docs: closed"`}
	plain := edited(t, "plain.jsonl")
	declared := edited(t, "declared.jsonl", declaring(`"result.content"`)...)
	newPlain := edited(t, "new.jsonl", changed...)
	newDeclared := edited(t, "new-declared.jsonl", append(declaring(`"result.content"`), changed...)...)
	for _, tc := range []struct {
		name     string
		old, new string
		want     int
	}{
		{"old declares", declared, newPlain, 0},
		{"new declares", plain, newDeclared, 0},
		{"neither declares", plain, newPlain, 1},
	} {
		code, stdout, stderr := runMcprig("diff", tc.old, tc.new)
		if code != tc.want {
			t.Errorf("%s: mcprig diff exit %d, want %d; stdout %q, stderr %q", tc.name, code, tc.want, stdout, stderr)
		}
	}
}

// TestReplayHonoursDeclaredVolatile: mcprig replay, given no --ignore,
// matches a call whose declared volatile argument changed; undeclared, the
// call is a mismatch.
func TestReplayHonoursDeclaredVolatile(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		name    string
		cas     string
		wantErr bool
	}{
		{"declared", edited(t, "declared.jsonl", declaring(`"params.arguments.query"`)...), false},
		{"undeclared", edited(t, "plain.jsonl"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := connect(t, mcprig(t, nil, "replay", "--allow-unused", tc.cas))
			defer c.Close()
			res, err := c.CallTool(testkit.Context(t), "lookup", map[string]any{"query": "now is 12:01"})
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "now is 12:01") {
					t.Errorf("call with another query = %v, %v; want a mismatch naming it", res, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("call with another query: %v", err)
			}
			if got := textOf(res); len(got) != 1 || got[0] != "docs: close" {
				t.Errorf("answer %q, want the recorded %q", got, "docs: close")
			}
		})
	}
}

// TestReplayRedactionRules: mcprig replay of a cassette recorded with
// redaction rules needs the same rules: with none it exits with a
// *RedactionError before serving anything; with them it serves.
func TestReplayRedactionRules(t *testing.T) {
	leakcheck.Check(t)
	rules := &cassette.Options{RedactPaths: []string{"params.arguments.password"}}
	cas := edited(t, "redacted.jsonl", `"server":"docs"}`, `"server":"docs","redaction":"`+rules.RedactionDigest()+`"}`)
	code, _, stderr := runMcprig("replay", cas)
	if code == 0 || !strings.Contains(stderr, "recorded with redaction rules "+rules.RedactionDigest()+", replayed with none") {
		t.Errorf("replay without the rules: exit %d, stderr %q; want the redaction error", code, stderr)
	}
	c := connect(t, mcprig(t, nil, "replay", "--allow-unused", "--redact-path", "params.arguments.password", cas))
	defer c.Close()
	res, err := c.CallTool(testkit.Context(t), "lookup", map[string]any{"query": "close"})
	if err != nil {
		t.Fatalf("call with the rules: %v", err)
	}
	if got := textOf(res); len(got) != 1 || got[0] != "docs: close" {
		t.Errorf("answer %q, want the recorded %q", got, "docs: close")
	}
}

// TestRecordDeclaresVolatile: mcprig record --volatile writes the paths
// into the header, and mcprig replay, given no --ignore, honours them.
func TestRecordDeclaresVolatile(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "docs.jsonl")
	recordDocs(t, path, "--volatile", "params.arguments.query", "--volatile", "result.content.*.text")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(string(data), "\n")
	want := `{"format":"mcprig-cassette","version":2,"transport":"stdio","protocol":"2025-11-25","server":"docs","volatile":["params.arguments.query","result.content.*.text"]}`
	if diff := cmp.Diff(want, header); diff != "" {
		t.Errorf("header mismatch (-want +got):\n%s", diff)
	}
	c := connect(t, mcprig(t, nil, "replay", "--allow-unused", path))
	defer c.Close()
	if _, err := c.CallTool(testkit.Context(t), "lookup", map[string]any{"query": "at 12:01"}); err != nil {
		t.Errorf("call with another query: %v", err)
	}
	if code, _, stderr := runMcprig("record", "-o", "x.jsonl", "--volatile", "a..b", "--", "x"); code != 2 || !strings.Contains(stderr, "a..b") {
		t.Errorf("record --volatile a..b: exit %d, stderr %q; want a usage error naming it", code, stderr)
	}
}

// TestInspectShowsDeclarations: mcprig inspect shows what a cassette
// declares, a path's control characters made visible.
func TestInspectShowsDeclarations(t *testing.T) {
	digest := "sha256:" + strings.Repeat("0a", 32)
	cas := edited(t, "declared.jsonl", `"server":"docs"}`, `"server":"docs","volatile":["params.arguments.now","result.\u001b[31mx"],"redaction":"`+digest+`"}`)
	code, stdout, stderr := runMcprig("inspect", cas)
	if code != 0 {
		t.Fatalf("inspect: exit %d, stderr %q", code, stderr)
	}
	want := "protocol:  2025-11-25\nvolatile:  \"params.arguments.now\", \"result.\\x1b[31mx\"\nredaction: " + digest + "\n"
	if !strings.Contains(stdout, want) {
		t.Errorf("inspect output lacks %q:\n%s", want, stdout)
	}
	if strings.Contains(stdout, "\x1b") {
		t.Errorf("inspect output holds a raw escape:\n%q", stdout)
	}
}
