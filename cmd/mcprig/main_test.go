package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/test/opmatrix"
)

// TestMain lets this test binary stand in for mcprig: started with a
// command name as its first argument (as `mcprig demo` starts
// `mcprig fakeserver`), it runs that command.
func TestMain(m *testing.M) {
	opmatrix.ServeIfChild() // the operation matrix's servers, as mcprig record's children
	if len(os.Args) > 1 {
		if _, ok := commands[os.Args[1]]; ok {
			os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
		}
	}
	os.Exit(leakcheck.Main(m))
}

func TestDemo(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"demo"}, &stdout, &stderr); code != 0 {
		t.Fatalf("mcprig demo exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	for _, want := range []string{"as mcp__docs__lookup", "binding disabled", "server executed lookup 1 time(s)", "process group empty"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, stdout.String())
		}
	}
}

func TestUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"nope"}, &stdout, &stderr); code != 2 {
		t.Errorf("unknown command exited %d, want 2", code)
	}
	if !strings.Contains(stderr.String(), `unknown command "nope"`) || !strings.Contains(stderr.String(), "demo") {
		t.Errorf("stderr = %q, want the error and the command list", stderr.String())
	}
	stdout.Reset()
	if code := run([]string{"help"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "fakeserver") {
		t.Errorf("help exited %d with %q", code, stdout.String())
	}
}

func TestVersion(t *testing.T) {
	for _, flag := range []string{"--version", "-version"} {
		code, stdout, stderr := runMcprig(flag)
		if code != 0 || !strings.HasPrefix(stdout, "mcprig ") || !strings.Contains(stdout, "go-sdk v") || stderr != "" {
			t.Errorf("mcprig %s: exit %d, stdout %q, stderr %q; want 0 and the version with the go-sdk's", flag, code, stdout, stderr)
		}
	}
	if code, _, stderr := runMcprig("--version", "extra"); code != 2 || !strings.Contains(stderr, `unexpected argument "extra"`) {
		t.Errorf("mcprig --version extra: exit %d, stderr %q; want 2", code, stderr)
	}
}

// TestUnexpectedArguments: every command refuses arguments it does not
// take, at once, with exit status 2, before starting anything.
func TestUnexpectedArguments(t *testing.T) {
	docs := filepath.Join("testdata", "docs.jsonl")
	for _, args := range [][]string{
		{"demo", "extra"},
		{"demo", "-profile", "2025-11-25", "extra"},
		{"fakeserver", "extra"},
		{"inspect", docs, "extra"},
		{"diff", docs, docs, "extra"},
		{"replay", docs, "extra"},
		{"verify", docs},
		{"verify", docs, "extra", "--", "prog"},
		{"record", "-o", filepath.Join(t.TempDir(), "x.jsonl"), "--upstream", "http://127.0.0.1:1/mcp", "extra"},
	} {
		code, stdout, stderr := runMcprig(args...)
		if code != 2 || stderr == "" && args[0] != "fakeserver" { // fakeserver.Main writes to the process's stderr
			t.Errorf("mcprig %s: exit %d, stdout %q, stderr %q; want 2 and a usage error", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	// "-" inherits nothing, as in scripts; an empty --inherit is refused
	// there and here, rather than meaning the default allowlist.
	if code, _, stderr := runMcprig("record", "-o", filepath.Join(t.TempDir(), "x.jsonl"), "--inherit", "", "--", "true"); code != 2 || !strings.Contains(stderr, `"-" inherits nothing`) {
		t.Errorf("record --inherit '': exit %d, stderr %q; want 2 saying \"-\" inherits nothing", code, stderr)
	}
	if code, _, stderr := runMcprig("demo", "-profile", "1999-01-01"); code != 2 || !strings.Contains(stderr, "1999-01-01") {
		t.Errorf("demo with an unknown profile: exit %d, stderr %q; want 2 naming it", code, stderr)
	}
}

// TestDemoProfile: demo connects with the profile it is given.
func TestDemoProfile(t *testing.T) {
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		code, stdout, stderr := runMcprig("demo", "-profile", rev)
		if code != 0 || !strings.Contains(stdout, "(protocol "+rev+")") {
			t.Errorf("demo -profile %s: exit %d\nstdout:\n%s\nstderr:\n%s", rev, code, stdout, stderr)
		}
	}
}

// TestStartErrorSaidOnce: a server that cannot be started is named once.
func TestStartErrorSaidOnce(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-server")
	code, _, stderr := runMcprig("record", "-o", filepath.Join(t.TempDir(), "x.jsonl"), "--", missing)
	if code != 1 || strings.Count(stderr, "starting") != 1 || !strings.Contains(stderr, "stdio: starting "+missing+": ") {
		t.Errorf("record of a missing server: exit %d, stderr %q; want 1 and the start error said once", code, stderr)
	}
}
