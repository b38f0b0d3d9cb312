package mcptest_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
)

// The fake's task faults act in process as over HTTP and stdio: a tool
// scripted to run as a task is polled to its result, ran once however
// many polls, each poll counted apart.
func TestInProcessTaskFaults(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	fake := mcptest.InProcess(t, &mcptest.InProcessOptions{Faults: []fakeserver.Fault{
		{Kind: fakeserver.FaultTask, Tool: "lookup"},
		{Kind: fakeserver.FaultDelay, Tool: "lookup", Delay: 20 * time.Millisecond},
	}})
	def := fake.Definition()
	def.Tasks = true
	def.Limits = client.Limits{TaskPollMin: time.Millisecond, TaskPollMax: time.Millisecond}
	c := mcptest.Connect(t, def, nil)
	task, err := c.StartTool(ctx, "lookup", map[string]any{"query": "in process"})
	if err != nil {
		t.Fatal(err)
	}
	if task.ID() == "" {
		t.Fatal("lookup was answered at once, not as a task")
	}
	res, err := task.Wait(ctx)
	if err != nil || text(res) != "docs: in process" {
		t.Fatalf("the task's result: %v, %v", res, err)
	}
	got := fake.Counts()
	if got.Polls["lookup"] < 1 {
		t.Errorf("no poll counted: %+v", got)
	}
	want := fakeserver.Counts{Executions: map[string]int{"lookup": 1}, Rounds: map[string]int{"lookup": 1}, Polls: got.Polls}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counts mismatch (-want +got):\n%s", diff)
	}
}
