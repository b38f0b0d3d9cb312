package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
)

// docsSession drives the fake server's docs profile the same way every time
// and returns what it saw.
type docsResults struct {
	Tools    []string
	Lookup   []string
	Resource string
	Prompt   int
}

func driveDocs(t *testing.T, c *client.Client) docsResults {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var r docsResults
	for _, tool := range c.Catalog().Tools {
		r.Tools = append(r.Tools, tool.Name+": "+tool.Description)
	}
	res, err := c.CallTool(ctx, "lookup", map[string]any{"query": "close"})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	r.Lookup = textOf(res)
	rr, err := c.ReadResource(ctx, "docs://readme")
	if err != nil {
		t.Fatalf("ReadResource: %v", err)
	}
	for _, rc := range rr.Contents {
		r.Resource += rc.Text
	}
	pr, err := c.GetPrompt(ctx, "summarize", map[string]string{"topic": "close"})
	if err != nil {
		t.Fatalf("GetPrompt: %v", err)
	}
	r.Prompt = len(pr.Messages)
	return r
}

// recordDocs records the docs session through "mcprig record" to path and
// returns what the client saw.
func recordDocs(t *testing.T, path string, extra ...string) docsResults {
	t.Helper()
	args := append([]string{"record", "-o", path, "--env", "GORACE"}, extra...)
	c := connect(t, mcprig(t, nil, append(args, "--", self(t), "fakeserver")...))
	got := driveDocs(t, c)
	closeClient(t, c)
	return got
}

// TestRecordReplayStdio records the fake server through the recording proxy,
// driven by this project's client, and replays the cassette through
// "mcprig replay": the client sees the same results, and the cassette is
// byte for byte the committed one (so re-recording gives identical bytes).
func TestRecordReplayStdio(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "docs.jsonl")
	recorded := recordDocs(t, path)
	if recorded.Lookup[0] != "docs: close" {
		t.Fatalf("lookup through the proxy = %q", recorded.Lookup)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "docs.jsonl", data)

	c := connect(t, mcprig(t, nil, "replay", path))
	replayed := driveDocs(t, c)
	closeClient(t, c)
	if diff := cmp.Diff(recorded, replayed); diff != "" {
		t.Errorf("replayed session mismatch (-recorded +replayed):\n%s", diff)
	}
}

// TestRecordTwiceSameBytes records the same session twice into different
// files: the bytes are identical.
func TestRecordTwiceSameBytes(t *testing.T) {
	leakcheck.Check(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	recordDocs(t, a)
	recordDocs(t, b)
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if diff := cmp.Diff(string(da), string(db)); diff != "" {
		t.Errorf("second recording differs (-first +second):\n%s", diff)
	}
}

func TestRecordUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no output", []string{"record", "--", "x"}, "-o FILE is required"},
		{"no command", []string{"record", "-o", "f.jsonl"}, "nothing to record"},
		{"both", []string{"record", "-o", "f.jsonl", "--upstream", "http://127.0.0.1:1/mcp", "--", "x"}, "not both"},
		{"bad pattern", []string{"record", "-o", "f.jsonl", "--redact-pattern", "(", "--", "x"}, "--redact-pattern"},
		{"unset env", []string{"record", "-o", "f.jsonl", "--redact-env", "MCPRIG_TEST_SURELY_UNSET", "--", "x"}, "MCPRIG_TEST_SURELY_UNSET: not set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runMcprig(tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
		})
	}
}

func TestRecordHelp(t *testing.T) {
	code, _, stderr := runMcprig("record", "--help")
	if code != 0 {
		t.Errorf("--help exited %d", code)
	}
	for _, want := range []string{"usage: mcprig record -o FILE", "--upstream URL", "-redact-env", "-progress"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("help lacks %q:\n%s", want, stderr)
		}
	}
}

// TestRecordProgress: record prints a progress line every N messages and a
// last line naming the file to its stderr, never into the cassette.
func TestRecordProgress(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "docs.jsonl")
	c := connect(t, mcprig(t, nil, "record", "-o", path, "--env", "GORACE", "--progress", "4", "--", self(t), "fakeserver"))
	driveDocs(t, c)
	closeClient(t, c)
	d := c.Diagnose()
	if d == nil {
		t.Fatal("no diagnosis of the record process")
	}
	for _, want := range []string{"mcprig record: 4 messages", "mcprig record: 16 messages", "mcprig record: wrote " + path + " (17 messages"} {
		if !strings.Contains(string(d.Stderr), want) {
			t.Errorf("stderr lacks %q:\n%s", want, d.Stderr)
		}
	}
	data, _ := os.ReadFile(path)
	golden(t, "docs.jsonl", data)
}

// TestReplayMismatch: a call the cassette does not hold gets an error that
// says where the session departed from the recording, with a diff.
func TestReplayMismatch(t *testing.T) {
	leakcheck.Check(t)
	c := connect(t, mcprig(t, nil, "replay", filepath.Join("testdata", "docs.jsonl")))
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := c.CallTool(ctx, "lookup", map[string]any{"query": "open"})
	if err == nil || !strings.Contains(err.Error(), "open") || !strings.Contains(err.Error(), "docs.jsonl") {
		t.Errorf("CallTool with other arguments: %v; want a mismatch naming the cassette, with a diff", err)
	}
}

// TestServerExitPassedOn: a server that exits mid-call ends the proxied
// session as it would end the client's own: the recording proxy exits with
// the server's status, its stderr passed on once (not again inside
// mcprig's own line), and "mcprig replay" of its cassette exits with the
// recorded status and writes the recorded tail of the server's standard
// error, so the client that launched either sees what it saw from the
// server itself (Diagnosis), not mcprig's own status 1 and message.
func TestServerExitPassedOn(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "crash.jsonl")
	rec := connect(t, mcprig(t, nil, "record", "-o", path, "--env", "GORACE", "--", self(t), "fakeserver",
		"--fault", "flood-stderr=lookup:64", "--fault", "crash=lookup:7"))
	d := crashedCall(t, rec)
	tail := strings.Repeat("E", 63) + "\n"
	if !d.Exited || d.ExitCode != 7 {
		t.Errorf("recording proxy: the client saw %v, want exit status 7", d)
	}
	if n := strings.Count(string(d.Stderr), strings.TrimSuffix(tail, "\n")); n != 1 {
		t.Errorf("recording proxy: the server's stderr reached the client %d times, want once:\n%s", n, d.Stderr)
	}
	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if end := c.Interactions[len(c.Interactions)-1].Ending; end == nil || end.Exit == nil || end.Exit.Code != 7 || end.Stderr != tail {
		t.Fatalf("the cassette's ending is %+v, want exit status 7 and the stderr tail", end)
	}
	d = crashedCall(t, connect(t, mcprig(t, nil, "replay", path)))
	if !d.Exited || d.ExitCode != 7 || string(d.Stderr) != tail {
		t.Errorf("replay: the client saw %v (stderr %q), want exit status 7 and stderr %q", d, d.Stderr, tail)
	}
}

// crashedCall calls lookup through c, which must fail with class server as
// the server exits, closes c and returns the failure's diagnosis.
func crashedCall(t *testing.T, c *client.Client) *transport.Diagnosis {
	t.Helper()
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.CallTool(ctx, "lookup", map[string]any{"query": "close"})
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Class != client.ClassServer || ce.Diagnosis == nil {
		t.Fatalf("CallTool = %v, want a failure of class server with a diagnosis", err)
	}
	return ce.Diagnosis
}

// mcprig record --not-secret NAME writes the --env value of NAME as it is
// (a plain path here), where every other --env value of 8 bytes or more
// is redacted; a --not-secret name no --env gives is a usage error.
func TestRecordNotSecretEnv(t *testing.T) {
	leakcheck.Check(t)
	const config = "/etc/docs/config.yaml"
	for _, tc := range []struct {
		name    string
		extra   []string
		written bool
	}{
		{"redacted by default", nil, false},
		{"not secret", []string{"--not-secret", "DOCS_CONFIG"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "env.jsonl")
			args := append([]string{"record", "-o", path, "--env", "GORACE", "--env", "DOCS_CONFIG=" + config}, tc.extra...)
			c := connect(t, mcprig(t, nil, append(args, "--", self(t), "fakeserver", "--fault", "env")...))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := c.CallTool(ctx, "env", nil)
			if err != nil || !strings.Contains(textOf(res)[0], "DOCS_CONFIG="+config) {
				t.Fatalf("env = %v, %v; want the child's DOCS_CONFIG", res, err)
			}
			closeClient(t, c)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(data), "DOCS_CONFIG="+config); got != tc.written {
				t.Errorf("the cassette holds the value: %v, want %v", got, tc.written)
			}
		})
	}
	code, _, stderr := runMcprig("record", "-o", filepath.Join(t.TempDir(), "x.jsonl"), "--not-secret", "NOPE", "--", "x")
	if code != 2 || !strings.Contains(stderr, "--not-secret NOPE: no --env gives the child NOPE") {
		t.Errorf("--not-secret without --env: exit %d, stderr %q", code, stderr)
	}
}
