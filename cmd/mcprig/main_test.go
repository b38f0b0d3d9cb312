package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
)

// TestMain lets this test binary stand in for mcprig: started with a
// command name as its first argument (as `mcprig demo` starts
// `mcprig fakeserver`), it runs that command.
func TestMain(m *testing.M) {
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
