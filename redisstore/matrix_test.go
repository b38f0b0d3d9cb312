package redisstore

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/server"
)

// matrix records the cells of the replica matrix: an operation, which
// replica served each step, under which fault, and whether it held.
type matrix struct {
	mu    sync.Mutex
	cells []cell
}

type cell struct {
	op, steps, fault string
	held             bool
}

// check records a cell, failing t with what when it did not hold.
func (m *matrix) check(t testing.TB, op, steps, fault string, held bool, format string, args ...any) {
	t.Helper()
	m.mu.Lock()
	m.cells = append(m.cells, cell{op, steps, fault, held})
	m.mu.Unlock()
	if !held {
		t.Errorf("%s [%s] under %s: "+format, append([]any{op, steps, fault}, args...)...)
	}
}

func (m *matrix) log(t testing.TB) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "operation\tsteps (replica)\tfault\theld")
	held := 0
	for _, c := range m.cells {
		fmt.Fprintf(w, "%s\t%s\t%s\t%v\n", c.op, c.steps, c.fault, c.held)
		if c.held {
			held++
		}
	}
	w.Flush()
	t.Logf("replica matrix:\n%s%d of %d cells held", b.String(), held, len(m.cells))
}

// asked is an input-required result.
type asked struct {
	ResultType   string `json:"resultType"`
	RequestState string `json:"requestState"`
}

// ask calls confirm at pin and returns its requestState.
func (f *fleet) ask(pin string) string {
	f.t.Helper()
	r := f.must(pin, "alice", "tools/call", "confirm", `"name":"confirm","arguments":{}`)
	var a asked
	if r.Error != nil || json.Unmarshal(r.Result, &a) != nil || a.RequestState == "" {
		f.t.Fatalf("confirm at %s: %s %+v, want an input-required result", pin, r.Result, r.Error)
	}
	return a.RequestState
}

// resume continues confirm at pin with state.
func (f *fleet) resume(pin, state string) (reply, error) {
	params := fmt.Sprintf(`"name":"confirm","arguments":{},"inputResponses":{"ok":{"action":"accept","content":{"ok":true}}},"requestState":%q`, state)
	return f.call(testkit.Context(f.t), pin, "alice", "tools/call", "confirm", params)
}

// accepted reports whether r is confirm's result.
func accepted(r reply) bool {
	return r.Error == nil && strings.Contains(string(r.Result), "ok=true at "+r.By)
}

// refused reports whether r is the error code whose message holds what.
func refused(r reply, code int64, what string) bool {
	return r.Error != nil && r.Error.Code == code && strings.Contains(r.Error.Message, what)
}

const (
	codeInvalidParams = -32602
	codeInternal      = -32603
)

// TestReplicaMatrix runs each guarantee across three replicas on one
// Redis, and logs the matrix: cells held of cells run.
func TestReplicaMatrix(t *testing.T) {
	var m matrix
	t.Run("continuation", func(t *testing.T) { matrixContinuation(t, &m) })
	t.Run("task", func(t *testing.T) { matrixTask(t, &m) })
	t.Run("cancel", func(t *testing.T) { matrixCancel(t, &m) })
	t.Run("result", func(t *testing.T) { matrixResult(t, &m) })
	t.Run("bound", func(t *testing.T) { matrixBound(t, &m) })
	t.Run("lease", func(t *testing.T) { matrixLease(t, &m) })
	t.Run("round-robin", func(t *testing.T) { matrixRoundRobin(t, &m) })
	t.Run("raced", func(t *testing.T) { matrixRaced(t, &m) })
	t.Run("push", func(t *testing.T) { matrixPush(t, &m) })
	for _, fault := range []string{"stopped", "paused", "restarted"} {
		t.Run(fault, func(t *testing.T) { matrixFault(t, &m, fault) })
	}
	t.Run("failover", func(t *testing.T) { matrixFailover(t, &m) })
	m.log(t)
}

func matrixContinuation(t *testing.T, m *matrix) {
	f := newFleet(t, nil)
	state := f.ask("A")
	r, err := f.resume("B", state)
	m.check(t, "continuation", "ask A, continue B", "none", err == nil && accepted(r), "%+v %v, want accepted", r, err)
	for _, pin := range []string{"C", "A", "B"} {
		r, err := f.resume(pin, state)
		m.check(t, "continuation replayed", "ask A, continue B, replay "+pin, "none", err == nil && refused(r, codeInvalidParams, "used before"), "%+v %v, want -32602 used before", r, err)
	}
	m.check(t, "continuation executions", "A ask, B continue, 3 replays", "none", f.runs() == 2, "%d executions, want 2", f.runs())
}

func matrixTask(t *testing.T, m *matrix) {
	f := newFleet(t, nil)
	id := f.start("A", "alice", "ask")
	tk := f.await("B", "alice", id, server.TaskInputRequired)
	m.check(t, "task polled", "start A, get B", "none", len(tk.InputRequests) == 1, "inputRequests %v, want one", tk.InputRequests)
	r := f.must("B", "alice", "tasks/get", id, fmt.Sprintf(`"taskId":%q`, id))
	m.check(t, "task wire", "start A, get B", "none", !strings.Contains(string(r.Result), `"result"`) && !strings.Contains(string(r.Result), `"error"`), "%s: an input_required task carries result or error", r.Result)
	r = f.must("C", "alice", "tasks/update", id, fmt.Sprintf(`"taskId":%q,"inputResponses":{"ok":{"action":"accept","content":{"ok":true}}}`, id))
	m.check(t, "task updated", "start A, update C", "none", r.Error == nil, "%+v", r.Error)
	tk = f.await("B", "alice", id, server.TaskCompleted)
	ok := tk.Result != nil && len(tk.Result.Content) == 1 && tk.Result.Content[0].Text == "ok=true at A"
	m.check(t, "task completed", "start A, update C, get B", "none", ok, "result %+v, want ok=true at A", tk.Result)
	na, nb, nc := f.replicas[0].runs.Load(), f.replicas[1].runs.Load(), f.replicas[2].runs.Load()
	m.check(t, "task executions", "two rounds at A", "none", na == 2 && nb == 0 && nc == 0, "executions A, B, C: %d, %d, %d; want 2, 0, 0", na, nb, nc)
}

func matrixCancel(t *testing.T, m *matrix) {
	f := newFleet(t, nil)
	id := f.start("A", "alice", "gated")
	f.await("C", "alice", id, server.TaskWorking)
	r := f.must("B", "alice", "tasks/cancel", id, fmt.Sprintf(`"taskId":%q`, id))
	m.check(t, "task cancelled", "start A, cancel B", "none", r.Error == nil && string(r.Result) == `{"resultType":"complete"}`, "%s %+v", r.Result, r.Error)
	testkit.Poll(t, "the handler at A to see the cancellation sent to B", func() bool { return f.replicas[0].cancelled.Load() == 1 })
	m.check(t, "cancel reaches the handler", "start A, cancel B, handler A", "none", true, "")
	tk := f.get("C", "alice", id)
	m.check(t, "cancelled task read", "start A, cancel B, get C", "none", tk.Status == server.TaskCancelled && tk.Result == nil, "%+v", tk)
	m.check(t, "cancel executions", "one task", "none", f.runs() == 1, "%d executions, want 1", f.runs())
}

func matrixResult(t *testing.T, m *matrix) {
	f := newFleet(t, nil)
	id := f.start("B", "alice", "quick")
	f.await("C", "alice", id, server.TaskCompleted)
	same := true
	for range 5 {
		for _, pin := range names {
			tk := f.get(pin, "alice", id)
			same = same && tk.Status == server.TaskCompleted && tk.Result != nil && tk.Result.Content[0].Text == "done at B"
		}
	}
	m.check(t, "result served", "start B, get A, B, C x5", "none", same, "a poll read another result")
	m.check(t, "result executions", "start B, 16 polls", "none", f.runs() == 1, "%d executions, want 1", f.runs())
	r := f.must("A", "bob", "tasks/get", id, fmt.Sprintf(`"taskId":%q`, id))
	m.check(t, "another principal", "start B (alice), get A (bob)", "none", refused(r, codeInvalidParams, "task not found"), "%+v", r.Error)
}

func matrixBound(t *testing.T, m *matrix) {
	const max = 3
	f := newFleet(t, &fleetOptions{Store: Options{MaxTasks: max}})
	for i := range max {
		f.start(names[i], "alice", "gated")
	}
	r := f.must("A", "alice", "tools/call", "gated", `"name":"gated","arguments":{}`)
	m.check(t, "bound per principal", "3 tasks at A, B, C; 4th at A", "none", refused(r, codeInternal, "too many tasks"), "%s %+v, want -32603 too many tasks", r.Result, r.Error)
	r = f.must("B", "alice", "tools/call", "gated", `"name":"gated","arguments":{}`)
	m.check(t, "bound per principal", "3 tasks at A, B, C; 4th at B", "none", refused(r, codeInternal, "too many tasks"), "%s %+v", r.Result, r.Error)
	f.start("C", "bob", "gated")
	m.check(t, "bound is per principal", "bob's 1st at C", "none", true, "")
	m.check(t, "bound executions", "3 alice + 1 bob, 2 refused", "none", f.runs() == max+1, "%d executions, want %d", f.runs(), max+1)
}

func matrixLease(t *testing.T, m *matrix) {
	const lease = 600 * time.Millisecond
	f := newFleet(t, &fleetOptions{Store: Options{Lease: lease}})
	id := f.start("A", "alice", "gated")
	f.await("B", "alice", id, server.TaskWorking)
	f.replicas[0].tasks.Close() // A stops refreshing its leases, as if it died
	died := time.Now()
	tk := f.await("B", "alice", id, server.TaskFailed)
	took := time.Since(died)
	m.check(t, "replica dies running a task", "start A, A dies, get B", "none", tk.Error != nil && strings.Contains(tk.Error.Message, "lease lapsed") && took <= lease+time.Second,
		"%+v after %v, want failed (lease lapsed) within %v", tk.Error, took, lease+time.Second)
	tk = f.get("C", "alice", id)
	m.check(t, "lapsed task read", "A dies, get C", "none", tk.Status == server.TaskFailed, "%+v", tk)
	t.Logf("a task whose replica stopped read failed %v after it stopped (lease %v)", took.Round(time.Millisecond), lease)
}

// matrixRoundRobin sends every request to the next replica in turn, as
// the proxy does unpinned, and records which replica served each step.
func matrixRoundRobin(t *testing.T, m *matrix) {
	f := newFleet(t, nil)
	r := f.must("", "alice", "tools/call", "confirm", `"name":"confirm","arguments":{}`)
	var a asked
	if r.Error != nil || json.Unmarshal(r.Result, &a) != nil || a.RequestState == "" {
		t.Fatalf("confirm: %s %+v", r.Result, r.Error)
	}
	steps := "ask " + r.By
	c, err := f.resume("", a.RequestState)
	if err != nil {
		t.Fatal(err)
	}
	steps += ", continue " + c.By
	held := accepted(c) && c.By != r.By
	for range 3 {
		rp, err := f.resume("", a.RequestState)
		if err != nil {
			t.Fatal(err)
		}
		steps += ", replay " + rp.By
		held = held && refused(rp, codeInvalidParams, "used before")
	}
	m.check(t, "continuation (round robin)", steps, "none", held && f.runs() == 2, "%d executions, want 2", f.runs())

	runs := f.runs()
	tr := f.must("", "alice", "tools/call", "ask", `"name":"ask","arguments":{}`)
	id := tr.task(t).TaskID
	steps, by := "start "+tr.By, map[string]bool{tr.By: true}
	for status := server.TaskWorking; status != server.TaskInputRequired; {
		g := f.must("", "alice", "tasks/get", id, fmt.Sprintf(`"taskId":%q`, id))
		status, by[g.By] = g.task(t).Status, true
		steps += ", get " + g.By
	}
	u := f.must("", "alice", "tasks/update", id, fmt.Sprintf(`"taskId":%q,"inputResponses":{"ok":{"action":"accept","content":{"ok":true}}}`, id))
	steps, by[u.By] = steps+", update "+u.By, true
	var done task
	testkit.Poll(t, "the task completed, polled round robin", func() bool {
		g := f.must("", "alice", "tasks/get", id, fmt.Sprintf(`"taskId":%q`, id))
		done, by[g.By] = g.task(t), true
		return done.Status == server.TaskCompleted
	})
	steps += ", get … until completed"
	ok := u.Error == nil && done.Result != nil && done.Result.Content[0].Text == "ok=true at "+tr.By && len(by) == 3 && f.runs()-runs == 2
	m.check(t, "task (round robin)", steps, "none", ok, "%+v, served by %v, %d executions", done, by, f.runs()-runs)
}

// matrixRaced sends at once, spread over the three replicas, twelve
// continuations of one state and twelve starts of tasks over a bound of
// five: one continuation and five tasks pass.
func matrixRaced(t *testing.T, m *matrix) {
	const n, max = 12, 5
	f := newFleet(t, &fleetOptions{Store: Options{MaxTasks: max}})
	state := f.ask("A")
	var wg sync.WaitGroup
	conts := make([]reply, n)
	starts := make([]reply, n)
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			r, err := f.resume(names[i%3], state)
			conts[i] = r
			errs <- err
		}()
		go func() {
			defer wg.Done()
			r, err := f.call(testkit.Context(t), names[i%3], "alice", "tools/call", "gated", `"name":"gated","arguments":{}`)
			starts[i] = r
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var accepts, refusals, tasks, full int
	for i := range n {
		switch {
		case accepted(conts[i]):
			accepts++
		case refused(conts[i], codeInvalidParams, "used before"):
			refusals++
		}
		switch {
		case starts[i].Error == nil && strings.Contains(string(starts[i].Result), `"resultType":"task"`):
			tasks++
		case refused(starts[i], codeInternal, "too many tasks"):
			full++
		}
	}
	m.check(t, "continuation raced", "12 at once over A, B, C", "none", accepts == 1 && refusals == n-1, "%d accepted, %d refused as used; want 1 and %d", accepts, refusals, n-1)
	m.check(t, "bound raced", "12 starts at once over A, B, C, bound 5", "none", tasks == max && full == n-max, "%d tasks, %d refused; want %d and %d", tasks, full, max, n-max)
	// The ask round, one continuation, and the five tasks.
	testkit.Poll(t, "the five tasks' handlers to start", func() bool { return f.runs() == 2+max })
	m.check(t, "raced executions", "ask, 12 continuations, 12 starts", "none", f.runs() == 2+max, "%d executions, want %d", f.runs(), 2+max)
}
