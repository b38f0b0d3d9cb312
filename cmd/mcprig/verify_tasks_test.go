package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
)

// recordTasks records, through "mcprig record", a 2026-07-28 session of a
// client with tasks declared calling lookup, which the fake child runs as
// a task.
func recordTasks(t *testing.T, path string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f := mcprig(t, nil, "record", "-o", path, "--env", "GORACE", "--", self(t), "fakeserver", "--fault", "task=lookup")
	c, err := client.Connect(ctx, client.Definition{Name: "docs", Transport: f, Tasks: true,
		Limits: client.Limits{TaskPollMin: time.Millisecond, TaskPollMax: 5 * time.Millisecond}}, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	task, err := c.StartTool(ctx, "lookup", map[string]any{"query": "tasks"})
	if err != nil {
		t.Fatal(err)
	}
	if task.ID() == "" {
		t.Fatal("the fake ran lookup in the request, not as a task")
	}
	if _, err := task.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	closeClient(t, c)
}

// mcprig verify of a session with a task: the live fake hands out a new
// task id, which verify polls in place of the recorded one, and reports no
// drift; a live task that fails where the recorded one completed is drift
// (exit 1). The recording names its task task-1, whatever id the fake made
// up.
func TestVerifyTasks(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "tasks.jsonl")
	recordTasks(t, path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`"taskId":"([^"]*)"`).FindAllSubmatch(data, -1) {
		if string(m[1]) != "task-1" {
			t.Errorf("the recording holds task id %q, want task-1", m[1])
		}
	}
	code, stdout, stderr := runMcprig("verify", "--timeout", verifyTimeout, "--env", "GORACE="+noExitSleep, path, "--", self(t), "fakeserver", "--fault", "task=lookup")
	if code != 0 || !strings.Contains(stdout, "no drift") {
		t.Errorf("verify against the same fake: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runMcprig("verify", "--timeout", verifyTimeout, "--env", "GORACE="+noExitSleep, path, "--", self(t), "fakeserver",
		"--fault", "task=lookup", "--fault", "task-fail=lookup")
	if code != 1 || !strings.Contains(stdout, "result drift:") || !strings.Contains(stdout, "tasks/get") {
		t.Errorf("verify against a fake whose task fails: exit %d, want 1 and a result drift of tasks/get\n%s%s", code, stdout, stderr)
	}
}
