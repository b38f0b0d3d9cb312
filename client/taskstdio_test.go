package client_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
)

// connectTaskChild connects with tasks declared to this test binary run as
// the fake server's stdio child with faults, counting into the returned
// file.
func connectTaskChild(t *testing.T, h *client.Handlers, faults ...string) (*client.Client, string) {
	t.Helper()
	counts := filepath.Join(t.TempDir(), "counts.json")
	flags := []string{"--count-file", counts}
	for _, f := range faults {
		flags = append(flags, "--fault", f)
	}
	c, err := client.Connect(testkit.Context(t), client.Definition{Name: "docs", Transport: fakeChild(t, nil, flags...), Tasks: true, Limits: fastPolls}, h)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	if got := c.ProtocolVersion(); got != "2026-07-28" {
		t.Fatalf("negotiated %s, want 2026-07-28", got)
	}
	return c, counts
}

func readCounts(t *testing.T, path string) fakeserver.Counts {
	t.Helper()
	n, err := fakeserver.ReadCounts(path)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Over stdio, a tool the fake child runs as a task reads as one call: the
// result is the tool's, it ran once, and the child counted the polls the
// client made, at least one.
func TestStdioTaskCompletes(t *testing.T) {
	leakcheck.Check(t)
	c, counts := connectTaskChild(t, nil, "task=lookup")
	task, err := c.StartTool(testkit.Context(t), "lookup", map[string]any{"query": "tasks"})
	if err != nil {
		t.Fatal(err)
	}
	if task.ID() == "" {
		t.Fatal("the child ran the call in the request, not as a task")
	}
	res, err := task.Wait(testkit.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(res); got == "" {
		t.Errorf("empty result %+v", res)
	}
	res2, err := c.CallTool(testkit.Context(t), "lookup", map[string]any{"query": "tasks"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(textOf(res), textOf(res2)); diff != "" {
		t.Errorf("CallTool and Task.Wait results mismatch (-want +got):\n%s", diff)
	}
	n := readCounts(t, counts)
	if got := n.Executions["lookup"]; got != 2 {
		t.Errorf("lookup ran %d times for two calls, want 2", got)
	}
	if n.Polls["lookup"] < 2 {
		t.Errorf("the child counted %d polls for two tasks, want at least 2", n.Polls["lookup"])
	}
}

// Over stdio, a task that asks for input is answered through the Handlers
// with one tasks/update and completes; the tool ran once, in two rounds.
func TestStdioTaskInputRequired(t *testing.T) {
	leakcheck.Check(t)
	a := &asker{}
	c, counts := connectTaskChild(t, a.handlers(), "task=lookup", "task-input=lookup")
	if _, err := c.CallTool(testkit.Context(t), "lookup", map[string]any{"query": "input"}); err != nil {
		t.Fatal(err)
	}
	if got := len(a.asked()); got != 1 {
		t.Errorf("the elicitation handler ran %d times, want 1", got)
	}
	n := readCounts(t, counts)
	if e, r := n.Executions["lookup"], n.Rounds["lookup"]; e != 1 || r != 2 {
		t.Errorf("%d executions and %d rounds, want 1 and 2", e, r)
	}
}

// Over stdio, a task that never finishes is cancelled when its caller gives
// up: CallTool fails with the caller's error naming the task, and the
// task's status at the child, read again by its id, is cancelled.
func TestStdioTaskCancelledWhenCallerGivesUp(t *testing.T) {
	leakcheck.Check(t)
	c, counts := connectTaskChild(t, nil, "task=lookup", "hang=lookup")
	ctx, cancel := context.WithCancel(testkit.Context(t))
	defer cancel()
	go func() {
		defer cancel()
		// The child counts polls in its count file, and the caller
		// gives up once it has polled.
		testkit.PollUntil(ctx, func() bool {
			n, err := fakeserver.ReadCounts(counts)
			return err == nil && n.Polls["lookup"] > 0
		})
	}()
	_, err := c.CallTool(ctx, "lookup", map[string]any{"query": "forever"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool: %v, want context.Canceled", err)
	}
	var te *client.TaskError
	if !errors.As(err, &te) || te.ID == "" {
		t.Fatalf("error %v names no task", err)
	}
	st, err := c.Task(te.ID, "lookup").Status(testkit.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != client.TaskCancelled {
		t.Errorf("the task is %s at the child, want cancelled", st.Status)
	}
	if got := readCounts(t, counts).Executions["lookup"]; got > 1 {
		t.Errorf("lookup ran %d times, want at most 1", got)
	}
}
