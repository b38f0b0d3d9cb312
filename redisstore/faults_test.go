package redisstore

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/server"
)

// matrixFault runs the fleet through a fault of its Redis (stopped,
// paused or restarted): what needs Redis is refused while it cannot be
// asked, nothing is accepted twice or run twice, and service resumes once
// Redis does, with the same replicas.
func matrixFault(t *testing.T, m *matrix, fault string) {
	f := newFleet(t, &fleetOptions{Persist: true})
	used := f.ask("A")
	if r, err := f.resume("B", used); err != nil || !accepted(r) {
		t.Fatalf("continuation before the fault: %+v %v", r, err)
	}
	pending := f.ask("A")
	running := f.start("A", "alice", "gated")
	before := f.runs()

	switch fault {
	case "stopped":
		f.redis.kill()
	case "paused":
		f.redis.pause()
	case "restarted":
		f.redis.restart()
	}
	if fault != "restarted" {
		r, err := f.resume("C", pending)
		m.check(t, "continuation", "ask A, continue C", fault, err == nil && refused(r, codeInternal, "redis unavailable"), "%+v %v, want -32603 redis unavailable", r, err)
		r, err = f.resume("B", used)
		m.check(t, "continuation replayed", "used at B, replay B", fault, err == nil && !accepted(r), "%+v %v, want refused", r, err)
		r = f.must("B", "alice", "tools/call", "quick", `"name":"quick","arguments":{}`)
		m.check(t, "task start", "start B", fault, refused(r, codeInternal, "redis unavailable"), "%s %+v, want -32603 redis unavailable", r.Result, r.Error)
		r = f.must("C", "alice", "tasks/get", running, fmt.Sprintf(`"taskId":%q`, running))
		m.check(t, "task polled", "start A, get C", fault, refused(r, codeInternal, "redis unavailable"), "%s %+v, want -32603 redis unavailable", r.Result, r.Error)
		m.check(t, "executions in the fault", "4 requests", fault, f.runs() == before, "%d executions, want none", f.runs()-before)
		switch fault {
		case "stopped":
			if err := f.redis.start(); err != nil {
				t.Fatal(err)
			}
		case "paused":
			f.redis.resume()
		}
	}

	// Service resumes, with the same replicas: a new call continues.
	testkit.Poll(t, "a continuation accepted after the fault", func() bool {
		r, err := f.resume("B", f.ask("A"))
		return err == nil && accepted(r)
	})
	m.check(t, "service resumes", "ask A, continue B", fault, true, "")
	r, err := f.resume("C", used)
	m.check(t, "continuation replayed after", "used at B, replay C", fault, err == nil && refused(r, codeInvalidParams, "used before"), "%+v %v, want -32602 used before", r, err)
	// The state continued during the fault is accepted once at most.
	n := 0
	for _, pin := range names {
		if r, err := f.resume(pin, pending); err == nil && accepted(r) {
			n++
		}
	}
	m.check(t, "continuation at most once", "continue A, B, C", fault, n <= 1, "accepted %d times", n)

	runs := f.runs()
	id := f.start("C", "alice", "quick")
	tk := f.await("A", "alice", id, server.TaskCompleted)
	m.check(t, "task after", "start C, get A", fault, tk.Result != nil && tk.Result.Content[0].Text == "done at C" && f.runs() == runs+1, "%+v, %d executions", tk.Result, f.runs()-runs)

	tk = f.get("B", "alice", running)
	m.check(t, "task across the fault", "start A before, get B after", fault, tk.Status == server.TaskWorking, "%+v", tk)
	r = f.must("B", "alice", "tasks/cancel", running, fmt.Sprintf(`"taskId":%q`, running))
	if r.Error != nil {
		t.Fatalf("tasks/cancel after the fault: %+v", r.Error)
	}
	testkit.Poll(t, "the handler at A to see the cancellation sent to B after the fault", func() bool { return f.replicas[0].cancelled.Load() == 1 })
	m.check(t, "cancel after", "start A before, cancel B after", fault, !strings.Contains(string(r.Result), "error"), "")
}

// TestOutcomeAfterFault: a task whose handler returns while Redis is down
// has its outcome recorded once Redis is back, read at another replica;
// it ran once.
func TestOutcomeAfterFault(t *testing.T) {
	f := newFleet(t, &fleetOptions{Persist: true})
	id := f.start("A", "alice", "gated")
	f.await("B", "alice", id, server.TaskWorking)
	f.redis.kill()
	f.replicas[0].gate <- struct{}{} // the handler at A returns
	testkit.Poll(t, "A to fail to record the outcome", func() bool {
		return f.replicas[0].logged.count("task outcome not recorded yet") >= 1
	})
	if err := f.redis.start(); err != nil {
		t.Fatal(err)
	}
	tk := f.await("B", "alice", id, server.TaskCompleted)
	if tk.Result == nil || tk.Result.Content[0].Text != "opened" {
		t.Errorf("result read at B: %+v, want opened", tk.Result)
	}
	if n := f.runs(); n != 1 {
		t.Errorf("executions: %d, want 1", n)
	}
}

// TestLostCancelSignal: a task cancelled without a signal reaching the
// replica running it (the signal lost in a fault) has its handler
// cancelled at that replica's next lease refresh.
func TestLostCancelSignal(t *testing.T) {
	const lease = 300 * time.Millisecond
	f := newFleet(t, &fleetOptions{Store: Options{Lease: lease}})
	id := f.start("A", "alice", "gated")
	f.await("B", "alice", id, server.TaskWorking)
	// B records the cancellation and sends no signal.
	ctx := testkit.Context(t)
	if _, err := f.replicas[1].tasks.Update(ctx, "alice", id, func(tk *server.Task) error {
		tk.Status = server.TaskCancelled
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	testkit.Poll(t, "the handler at A to be cancelled by its lease refresh", func() bool { return f.replicas[0].cancelled.Load() == 1 })
	if took := time.Since(start); took > lease {
		t.Errorf("the handler was cancelled %v after, want within the lease %v (refreshed every %v)", took, lease, lease/3)
	}
	if n := f.runs(); n != 1 {
		t.Errorf("executions: %d, want 1", n)
	}
}
