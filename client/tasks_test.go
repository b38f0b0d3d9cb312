package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// taskVias are the transports the task tests run on, all at 2026-07-28:
// Streamable HTTP answering with event streams and with JSON bodies.
var taskVias = []string{"in-process", "http", "http json"}

// fastPolls are Limits that poll a task every millisecond or so.
var fastPolls = client.Limits{TaskPollMin: time.Millisecond, TaskPollMax: 5 * time.Millisecond}

// connectTasks connects to p over via with tasks declared (unless def says
// otherwise), limits l and handlers h; rec is the HTTP recorder (nil
// in-process). wrap, if set, wraps the HTTP handler.
func connectTasks(t *testing.T, via string, p *taskPeer, tasks bool, l client.Limits, h *client.Handlers, wrap func(http.Handler) http.Handler) (*client.Client, *recorder) {
	t.Helper()
	srv := p.server()
	var f transport.Factory = inprocess.New(srv)
	var rec *recorder
	if via != "in-process" {
		var hh http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
			&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: via == "http json"})
		if wrap != nil {
			hh = wrap(hh)
		}
		rec = newRecorder(hh)
		ts := httptest.NewServer(rec)
		t.Cleanup(ts.Close)
		hf, err := streamablehttp.New(ts.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		f = hf
	}
	c, err := client.Connect(testkit.Context(t), client.Definition{Name: "jobs", Transport: f, Limits: l, Tasks: tasks}, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if got := c.ProtocolVersion(); got != "2026-07-28" {
		t.Fatalf("negotiated %s, want 2026-07-28", got)
	}
	return c, rec
}

// A tool the server runs as a task still reads as one call: CallTool
// returns the task's result, the tool ran once at the server however many
// polls it took, and the client polled exactly until the task completed.
func TestTaskCompletesAsOneCall(t *testing.T) {
	for _, via := range taskVias {
		for _, polls := range []int{1, 20} {
			t.Run(via+"/"+strconv.Itoa(polls), func(t *testing.T) {
				p := newTaskPeer()
				c, _ := connectTasks(t, via, p, true, fastPolls, nil, nil)
				res, err := c.CallTool(testkit.Context(t), "job", map[string]any{"polls": polls, "hint": 1})
				if err != nil {
					t.Fatal(err)
				}
				if got := textOf(res); got != "done job" {
					t.Errorf("result %q, want %q", got, "done job")
				}
				want := counts{Execs: map[string]int{"job": 1}, Gets: polls}
				if diff := cmp.Diff(want, p.counts()); diff != "" {
					t.Errorf("server counts mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// Tasks are declared only when the caller opts in: without
// Definition.Tasks, the same tool runs synchronously (the server saw no
// declaration), and StartTool declares them for its call alone.
func TestTasksDeclaredOnlyOnOptIn(t *testing.T) {
	for _, via := range taskVias {
		t.Run(via, func(t *testing.T) {
			p := newTaskPeer()
			c, _ := connectTasks(t, via, p, false, fastPolls, nil, nil)
			res, err := c.CallTool(testkit.Context(t), "job", map[string]any{"polls": 3})
			if err != nil {
				t.Fatal(err)
			}
			if got := textOf(res); got != "done job at once" {
				t.Errorf("result %q, want the synchronous one", got)
			}
			task, err := c.StartTool(testkit.Context(t), "job", map[string]any{"polls": 2, "hint": 1})
			if err != nil {
				t.Fatal(err)
			}
			if task.ID() == "" {
				t.Fatal("StartTool made no task: the call did not declare the extension")
			}
			st, err := task.Status(testkit.Context(t))
			if err != nil {
				t.Fatal(err)
			}
			if st.Status != client.TaskWorking || st.PollInterval != time.Millisecond || st.TTL != time.Minute {
				t.Errorf("first status %+v, want working, poll 1ms, ttl 1m", st)
			}
			res, err = task.Wait(testkit.Context(t))
			if err != nil {
				t.Fatal(err)
			}
			if got := textOf(res); got != "done job" {
				t.Errorf("Wait result %q, want %q", got, "done job")
			}
			want := counts{Execs: map[string]int{"job": 2}, Gets: 2}
			if diff := cmp.Diff(want, p.counts()); diff != "" {
				t.Errorf("server counts mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// A task that asks for input is answered through the same Handlers as an
// input-required result, with one tasks/update, and completes.
func TestTaskInputRequired(t *testing.T) {
	for _, via := range taskVias {
		t.Run(via, func(t *testing.T) {
			p, a := newTaskPeer(), &asker{}
			c, _ := connectTasks(t, via, p, true, fastPolls, a.handlers(), nil)
			res, err := c.CallTool(testkit.Context(t), "ask", map[string]any{"hint": 1})
			if err != nil {
				t.Fatal(err)
			}
			if got := textOf(res); got != "done ask" {
				t.Errorf("result %q, want %q", got, "done ask")
			}
			if diff := cmp.Diff([]string{"Go on?"}, a.asked()); diff != "" {
				t.Errorf("handler calls mismatch (-want +got):\n%s", diff)
			}
			if got := p.counts(); got.Updates != 1 || got.Execs["ask"] != 1 {
				t.Errorf("server counted %+v, want 1 update and 1 execution", got)
			}
		})
	}
}

// A task whose input no handler serves fails at once with ErrNoHandler,
// sends no tasks/update, and is cancelled: the caller gave up on it.
func TestTaskInputWithoutHandler(t *testing.T) {
	p := newTaskPeer()
	c, _ := connectTasks(t, "in-process", p, true, fastPolls, nil, nil)
	_, err := c.CallTool(testkit.Context(t), "ask", nil)
	assertClass(t, err, client.ClassPolicy, client.ErrNoHandler)
	var te *client.TaskError
	if !errors.As(err, &te) || te.ID != "task-1" {
		t.Errorf("error %v holds no *TaskError for task-1", err)
	}
	if got := p.counts(); got.Updates != 0 || got.Cancels != 1 {
		t.Errorf("server counted %+v, want no update and 1 cancel", got)
	}
}

// When the caller gives up (its context ends), CallTool sends tasks/cancel
// before it returns, and the task is cancelled at the server.
func TestTaskCancelledWhenCallerGivesUp(t *testing.T) {
	for _, via := range taskVias {
		t.Run(via, func(t *testing.T) {
			p := newTaskPeer()
			c, _ := connectTasks(t, via, p, true, fastPolls, nil, nil)
			ctx, cancel := context.WithCancel(testkit.Context(t))
			go func() {
				select {
				case <-p.polled:
				case <-time.After(20 * time.Second): // the test's own deadline ends CallTool too
				}
				cancel()
			}()
			_, err := c.CallTool(ctx, "forever", map[string]any{"hint": 1})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("CallTool: %v, want context.Canceled", err)
			}
			if got := p.counts(); got.Cancels != 1 {
				t.Errorf("server counted %d cancels, want 1", got.Cancels)
			}
			if got := p.status("task-1"); got != "cancelled" {
				t.Errorf("task status %q at the server, want cancelled", got)
			}
		})
	}
}

// Task.Cancel cancels a task the caller manages; a later status says so,
// and Wait fails with ReasonTaskCancelled.
func TestTaskHandleCancel(t *testing.T) {
	p := newTaskPeer()
	c, _ := connectTasks(t, "http", p, false, fastPolls, nil, nil)
	task, err := c.StartTool(testkit.Context(t), "forever", map[string]any{"hint": 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Cancel(testkit.Context(t)); err != nil {
		t.Fatal(err)
	}
	_, err = task.Wait(testkit.Context(t))
	assertClass(t, err, client.ClassServer, &client.ReasonError{Reason: client.ReasonTaskCancelled})
	if got := p.counts(); got.Cancels != 1 || got.Undecl != 0 {
		t.Errorf("server counted %+v, want 1 cancel, every request declared", got)
	}
}

// The poll bound, at its edge: a task that completes at poll N passes with
// MaxTaskPolls N; one that would complete at poll N+1 fails with
// ReasonTaskPolls (ClassPolicy) after N polls, and is cancelled.
func TestTaskPollBound(t *testing.T) {
	const n = 3
	l := fastPolls
	l.MaxTaskPolls = n
	for _, tc := range []struct {
		polls int
		err   error
	}{{n, nil}, {n + 1, &client.ReasonError{Reason: client.ReasonTaskPolls}}} {
		t.Run(strconv.Itoa(tc.polls), func(t *testing.T) {
			p := newTaskPeer()
			c, _ := connectTasks(t, "in-process", p, true, l, nil, nil)
			_, err := c.CallTool(testkit.Context(t), "job", map[string]any{"polls": tc.polls, "hint": 1})
			want := counts{Execs: map[string]int{}, Gets: n}
			if tc.err == nil {
				if err != nil {
					t.Fatal(err)
				}
				want.Execs["job"] = 1
			} else {
				assertClass(t, err, client.ClassPolicy, tc.err)
				want.Cancels = 1
			}
			if diff := cmp.Diff(want, p.counts()); diff != "" {
				t.Errorf("server counts mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// A failed task fails the call with ReasonTaskFailed and the task's JSON-RPC
// error (ClassServer); a tool that reported an error completes, with its
// result and a ClassTool error, as a synchronous call does.
func TestTaskFailures(t *testing.T) {
	p := newTaskPeer()
	c, _ := connectTasks(t, "in-process", p, true, fastPolls, nil, nil)
	_, err := c.CallTool(testkit.Context(t), "fails", map[string]any{"hint": 1})
	assertClass(t, err, client.ClassServer, &client.ReasonError{Reason: client.ReasonTaskFailed})
	res, err := c.CallTool(testkit.Context(t), "toolerr", map[string]any{"hint": 1})
	assertClass(t, err, client.ClassTool, nil)
	if got := textOf(res); got != "done toolerr" {
		t.Errorf("result %q, want the tool's", got)
	}
}

// A task outlives the connection it was started on: after the first client
// closed, a second polls the known id (a read) and gets the result; the
// tool ran once.
func TestTaskResumedOnNewConnection(t *testing.T) {
	p := newTaskPeer()
	srv := p.server()
	connect := func() *client.Client {
		c, err := client.Connect(testkit.Context(t), client.Definition{Name: "jobs", Transport: inprocess.New(srv), Limits: fastPolls}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	first := connect()
	task, err := first.StartTool(testkit.Context(t), "job", map[string]any{"polls": 2, "hint": 1})
	if err != nil {
		t.Fatal(err)
	}
	first.Close()
	res, err := connect().Task(task.ID(), "job").Wait(testkit.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(res); got != "done job" {
		t.Errorf("result %q, want %q", got, "done job")
	}
	if got := p.counts().Execs["job"]; got != 1 {
		t.Errorf("the tool ran %d times, want 1", got)
	}
}

// A poll whose reply is lost (its stream broke) is polled again: the task
// completes, and the tool ran once. The task needs two polls; the first
// one's reply was cut after the server had counted it.
func TestTaskLostPollIsPolledAgain(t *testing.T) {
	p := newTaskPeer()
	var b *breaker
	c, rec := connectTasks(t, "http", p, true, fastPolls, nil, func(h http.Handler) http.Handler {
		b = &breaker{next: h, method: "tasks/get"}
		return b
	})
	res, err := c.CallTool(testkit.Context(t), "job", map[string]any{"polls": 2, "hint": 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(res); got != "done job" {
		t.Errorf("result %q, want %q", got, "done job")
	}
	b.mu.Lock()
	cut := b.done
	b.mu.Unlock()
	if !cut {
		t.Fatal("no tasks/get reply was cut")
	}
	if got := p.counts(); got.Execs["job"] != 1 || got.Gets != 2 {
		t.Errorf("server counted %+v, want 1 execution and 2 polls", got)
	}
	var gets []string
	for _, post := range rec.all() {
		if post.Method == "tasks/get" {
			gets = append(gets, post.ID)
		}
	}
	if len(gets) != 2 || gets[0] == gets[1] {
		t.Errorf("tasks/get POSTs with ids %v, want 2 with different ids", gets)
	}
	if got := len(callPosts(rec, "job")); got != 1 {
		t.Errorf("%d tools/call POSTs, want 1", got)
	}
}

// Invariant 1 for tasks/update: one whose reply is lost fails as outcome
// unknown, naming the task, and is never sent again; nor is the task
// cancelled (the answer may have been taken).
func TestTaskLostUpdateNotResent(t *testing.T) {
	p, a := newTaskPeer(), &asker{}
	c, rec := connectTasks(t, "http", p, true, fastPolls, a.handlers(), func(h http.Handler) http.Handler {
		return &breaker{next: h, method: "tasks/update"}
	})
	_, err := c.CallTool(testkit.Context(t), "ask", map[string]any{"hint": 1})
	assertClass(t, err, client.ClassTransport, client.ErrOutcomeUnknown)
	var te *client.TaskError
	if !errors.As(err, &te) || te.ID != "task-1" {
		t.Errorf("error %v holds no *TaskError for task-1", err)
	}
	var updates int
	for _, post := range rec.all() {
		if post.Method == "tasks/update" {
			updates++
			if got := post.Header.Get("Mcp-Name"); got != "task-1" {
				t.Errorf("tasks/update carries Mcp-Name %q, want task-1", got)
			}
		}
	}
	if updates != 1 {
		t.Errorf("%d tasks/update POSTs, want 1", updates)
	}
	if got := p.counts(); got.Updates != 1 || got.Cancels != 0 {
		t.Errorf("server counted %+v, want 1 update, no cancel", got)
	}
}
