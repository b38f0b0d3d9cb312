package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// noExitSleep keeps race-detector children from sleeping a second at exit.
const noExitSleep = "atexit_sleep_ms=0"

// verifyTimeout is the --timeout of the tests' mcprig verify runs: a
// verify that waits for what the live server never sends fails there,
// well within the test's deadline, instead of at verify's default minute.
const verifyTimeout = "10s"

// self returns the path of the test binary, which stands in for mcprig.
func self(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// mcprig returns a factory that launches this test binary as
// "mcprig ARGS…", as an MCP client launches a server.
func mcprig(t testing.TB, env map[string]string, args ...string) *stdio.Factory {
	t.Helper()
	e := map[string]string{"GORACE": noExitSleep}
	for k, v := range env {
		e[k] = v
	}
	f, err := stdio.New(self(t), args, &stdio.Options{Env: e})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// runMcprig runs "mcprig ARGS…" in this process and returns its exit status
// and output.
func runMcprig(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// connect connects this project's client through f and closes it at
// cleanup. It pins protocol 2025-11-25, the revision of the golden
// cassettes in testdata.
func connect(t testing.TB, f *stdio.Factory) *client.Client {
	t.Helper()
	c, err := client.Connect(testkit.Context(t), client.Definition{Name: "docs", Profile: client.Profile20251125, Transport: f}, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	return c
}

// closeClient closes c, failing t on error.
func closeClient(t testing.TB, c *client.Client) {
	t.Helper()
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// golden compares got with the file testdata/name, rewriting it with -update.
func golden(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// goldenTxtar compares the sections got (name, content, in order) with the
// txtar archive testdata/name, whose comment is comment; -update rewrites it.
func goldenTxtar(t testing.TB, name, comment string, got []txtar.File) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		a := &txtar.Archive{Comment: []byte(comment), Files: got}
		if err := os.WriteFile(path, txtar.Format(a), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	a, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	section := func(fs []txtar.File) map[string]string {
		m := map[string]string{}
		for _, f := range fs {
			m[f.Name] = string(f.Data)
		}
		return m
	}
	if diff := cmp.Diff(section(a.Files), section(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// textOf returns the text of a tool result's content.
func textOf(res *mcp.CallToolResult) []string {
	var out []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return out
}
