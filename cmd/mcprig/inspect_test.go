package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
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

// TestInspectTask: a task reads as a task: its handle, the first poll of
// each state, the repeated polls counted on one line with their message
// numbers, the result.
func TestInspectTask(t *testing.T) {
	code, stdout, stderr := runMcprig("inspect", taskCassette)
	if code != 0 {
		t.Fatalf("inspect exited %d: %s", code, stderr)
	}
	const id = "9hw8Yt2Z5jKi_a3FBaiVzg"
	want := `calls (32):
  #13 line 26: tools/call lookup {"query":"slow"}
    -> #14 task ` + id + `: working
  #15 line 28: tasks/get ` + id + `
    -> #16 task ` + id + `: working
  29 more polls of task ` + id + ` answered working (#17–#74)
  #75 line 88: tasks/get ` + id + `
    -> #76 task ` + id + `: completed, "docs: slow"
`
	if !strings.Contains(stdout, want) {
		t.Errorf("inspect of a task: want\n%s\ngot:\n%s", want, stdout)
	}
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

// An ending's pending requests are told apart: a subscriptions/listen the
// client held open until it closed is a subscription, not a lost call; a
// call left unanswered is a call.
func TestInspectPendingListenIsNoLostCall(t *testing.T) {
	e := &cassette.Ending{End: cassette.EndClient, Pending: []json.RawMessage{json.RawMessage("2"), json.RawMessage("7")}}
	got := describeEnding(e, map[string]bool{"2": true})
	want := "closed by the client, 1 call(s) unanswered (id 7), 1 subscription(s) open (subscriptions/listen id 2)"
	if got != want {
		t.Errorf("describeEnding = %q, want %q", got, want)
	}
}

// mcprig replay --fault takes a fault by request: the session ends at the
// answer to the first call of lookup, which fails with its outcome
// unknown.
func TestReplayFaultByRequest(t *testing.T) {
	leakcheck.Check(t)
	c := connect(t, mcprig(t, nil, "replay", "--fault", "end@tools/call=lookup", filepath.Join("testdata", "docs.jsonl")))
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := c.CallTool(ctx, "lookup", map[string]any{"query": "close"})
	if !errors.Is(err, client.ErrOutcomeUnknown) {
		t.Errorf("CallTool = %v, want the session ended under it, its outcome unknown", err)
	}
}

// A recorded newline in a field inspect shows on one line (a name, a
// method, an id, a session id, an error) stays in that line as \n: no
// recorded string starts a line of inspect's text, where it could pass
// for one of inspect's own.
func TestInspectTextFieldsStayOnTheirLine(t *testing.T) {
	leakcheck.Check(t)
	ctx := testkit.Context(t)
	const fake = `\nFAKE: `
	http, err := os.ReadFile(filepath.Join("testdata", "http.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"stdio": strings.ReplaceAll(hostileSession(""), esc, fake),
		"streamable HTTP": strings.NewReplacer(`"session-1"`, `"session-1`+fake+`"`, `"s1_1"`, `"s1_1`+fake+`"`,
			`"2025-11-25"`, `"2025-11-25`+fake+`"`).Replace(string(http)),
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.jsonl")
			if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			if code := runInspect(ctx, []string{path}, &stdout, &stderr); code != 0 {
				t.Fatalf("inspect exited %d: %s", code, stderr.String())
			}
			n := strings.Count(stdout.String(), `\nFAKE: `)
			if n == 0 {
				t.Errorf("inspect shows no recorded field:\n%s", stdout.String())
			}
			for _, l := range strings.Split(stdout.String(), "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), "FAKE: ") {
					t.Errorf("a recorded string starts the line %q", l)
				}
			}
		})
	}
}
