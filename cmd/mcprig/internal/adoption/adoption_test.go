package adoption_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cmd/mcprig/internal/adoption"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
)

func TestMain(m *testing.M) {
	fakeserver.MainIfChild() // this binary is also the fake server
	os.Exit(leakcheck.Main(m))
}

func TestAdoption(t *testing.T) {
	leakcheck.Check(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	srv := adoption.Server{Path: exe, Args: []string{"--"}, Env: map[string]string{fakeserver.ChildEnv: "1"}}
	if err := adoption.Run(context.Background(), &out, srv); err != nil {
		t.Fatalf("Run: %v\ntranscript:\n%s", err, out.String())
	}
	// The transcript is deterministic, the catalog fingerprint included.
	// It is the one scripts/docs/run-examples.mjs compares mcprig demo's
	// output with, as stage-16-mcp-adoption.
	b, err := os.ReadFile("testdata/stage-16-mcp-adoption.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := string(b)
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("transcript mismatch (-want +got):\n%s", diff)
	}
}

// Run, with this test binary as the fake server's stdio child, prints the
// whole transcript; it is deterministic.
func ExampleRun() {
	exe, _ := os.Executable()
	srv := adoption.Server{Path: exe, Args: []string{"--"}, Env: map[string]string{fakeserver.ChildEnv: "1"}}
	if err := adoption.Run(context.Background(), os.Stdout, srv); err != nil {
		fmt.Println(err)
	}
	// Output:
	// connected to docs over stdio (protocol 2026-07-28), catalog sha256:b989c3a4f5f0…
	// discovered tool "lookup" as mcp__docs__lookup
	// model -> mcp__docs__lookup {"query":"process groups"}
	// model <- result: docs: process groups
	// harness: disabled mcp__docs__lookup (enabled=false)
	// model -> mcp__docs__lookup {"query":"after disable"}
	// model <- refused: mcp docs: call lookup: policy: binding disabled: mcp__docs__lookup
	// server executed lookup 1 time(s)
	// closed: child reaped, process group empty
}
