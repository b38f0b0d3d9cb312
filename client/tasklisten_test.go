package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listenServer is this module's server behind HTTPHandler with one task
// tool, "steps", that runs until the test releases it, and what crossed
// its HTTP handler.
type listenServer struct {
	url   string
	store server.TaskStore
	// release ends the task of the steps call whose "key" it names.
	release func(key string)

	gets      atomic.Int64 // tasks/get served
	listens   atomic.Int64 // subscriptions/listen naming taskIds received
	open      atomic.Int64 // those listens still being served
	acked     chan string  // the task ids each listen's acknowledgement names
	refuse    atomic.Bool  // rename each listen's task ids, so that none is the client's
	beforeGet func(n int64, taskID string)
	// beforeListen runs before a listen naming taskIds is served.
	beforeListen func(taskIDs []string)
}

func newListenServer(t *testing.T, interval time.Duration) *listenServer {
	t.Helper()
	ls := &listenServer{store: server.NewMemoryTaskStore(0), acked: make(chan string, 64)}
	s, err := server.New("tasks", "v0", &server.Options{Tasks: &server.TaskOptions{Store: ls.store, PollInterval: interval}})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	released := map[string]chan struct{}{}
	gate := func(key string) chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		if released[key] == nil {
			released[key] = make(chan struct{})
		}
		return released[key]
	}
	ls.release = func(key string) { close(gate(key)) }
	err = s.RegisterTaskTool(&mcp.Tool{Name: "steps", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct{ Key string }
		_ = json.Unmarshal(req.Params.Arguments, &args)
		select {
		case <-gate(args.Key):
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done " + args.Key}}}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := readBody(r)
		switch {
		case r.Method != http.MethodPost:
		case bytes.Contains(body, []byte(`"method":"tasks/get"`)):
			if n := ls.gets.Add(1); ls.beforeGet != nil {
				var get struct {
					Params struct{ TaskID string } `json:"params"`
				}
				_ = json.Unmarshal(body, &get)
				ls.beforeGet(n, get.Params.TaskID)
			}
		case bytes.Contains(body, []byte(`"method":"subscriptions/listen"`)) && bytes.Contains(body, []byte(`"taskIds"`)):
			ls.listens.Add(1)
			ls.open.Add(1)
			defer ls.open.Add(-1)
			if ls.refuse.Load() {
				body = bytes.ReplaceAll(body, []byte(`"taskIds":["`), []byte(`"taskIds":["not-`))
				r.Body = io.NopCloser(bytes.NewReader(body))
				r.ContentLength = int64(len(body))
			}
			w = &ackWriter{ResponseWriter: w, acked: ls.acked}
			if ls.beforeListen != nil {
				var listen struct {
					Params struct {
						Notifications struct {
							TaskIDs []string `json:"taskIds"`
						} `json:"notifications"`
					} `json:"params"`
				}
				_ = json.Unmarshal(body, &listen)
				ls.beforeListen(listen.Params.Notifications.TaskIDs)
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { srv.Close(); h.Close(); s.Close() })
	ls.url = srv.URL
	return ls
}

// ackWriter sends on acked the task ids of the acknowledgement it writes.
type ackWriter struct {
	http.ResponseWriter
	acked chan string
}

func (w *ackWriter) Write(p []byte) (int, error) {
	if _, data, ok := bytes.Cut(p, []byte("data: ")); ok && bytes.Contains(p, []byte("notifications/subscriptions/acknowledged")) {
		var ack struct {
			Params struct {
				Notifications struct {
					TaskIDs []string `json:"taskIds"`
				} `json:"notifications"`
			} `json:"params"`
		}
		_ = json.Unmarshal(bytes.TrimSpace(data), &ack)
		w.acked <- strings.Join(ack.Params.Notifications.TaskIDs, ",")
	}
	return w.ResponseWriter.Write(p)
}

func (w *ackWriter) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

func (w *ackWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// connect connects a client with tasks that listens for them, its poll
// interval at most max.
func (ls *listenServer) connect(t *testing.T, max time.Duration, profile client.Profile) *client.Client {
	t.Helper()
	return ls.connectListening(t, max, profile, true)
}

// connectListening connects a client with tasks, listening for them if
// listen, its poll interval at most max.
func (ls *listenServer) connectListening(t *testing.T, max time.Duration, profile client.Profile, listen bool) *client.Client {
	t.Helper()
	f, err := streamablehttp.New(ls.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(testkit.Context(t), client.Definition{Name: "jobs", Transport: f, Tasks: true, TaskListen: listen, Profile: profile,
		Limits: client.Limits{TaskPollMin: time.Millisecond, TaskPollMax: max, TaskTimeout: 2 * time.Hour, DrainTimeout: 50 * time.Millisecond}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// call runs CallTool("steps", key) and sends its outcome on the channel.
func callSteps(ctx context.Context, c *client.Client, key string) chan error {
	done := make(chan error, 1)
	go func() {
		res, err := c.CallTool(ctx, "steps", map[string]any{"key": key})
		if err == nil && textOf(res) != "done "+key {
			err = fmt.Errorf("result %q, want %q", textOf(res), "done "+key)
		}
		done <- err
	}()
	return done
}

func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-testkit.Context(t).Done():
		t.Fatalf("%s: not before the test's deadline", what)
		panic("unreachable")
	}
}

// The polls a CallTool sends for a task that runs several of the server's
// intervals (pollIntervalMs), counted at the server. Without a listen the
// server acknowledges (its task ids renamed on the way), the wait polls at
// the interval: the task, completed as the fifth tasks/get arrives, takes
// five. With the listen acknowledged, the wait polls at TaskPollMax (an
// hour): nothing during the task's five intervals, then once, woken by the
// push of its completion. The result is always read by tasks/get.
func TestTaskListenSavesPolls(t *testing.T) {
	const interval = 20 * time.Millisecond
	for _, tc := range []struct {
		name   string
		refuse bool
		gets   int64
	}{{"listen acknowledged", false, 1}, {"listen not acknowledged", true, 5}} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			ctx := testkit.Context(t)
			ls := newListenServer(t, interval)
			ls.refuse.Store(tc.refuse)
			if tc.refuse {
				ls.beforeGet = func(n int64, id string) {
					if n == 5 { // completed before the fifth poll is answered
						ls.release("a")
						ls.completed(ctx, t, id)
					}
				}
			}
			c := ls.connect(t, time.Hour, client.Profile20260728)
			done := callSteps(ctx, c, "a")
			acked := within(t, ls.acked, "the listen's acknowledgement")
			if !tc.refuse {
				if acked == "" {
					t.Fatal("the server acknowledged no task id")
				}
				// The task runs five intervals more, then completes.
				within(t, time.After(5*interval), "five intervals")
				ls.release("a")
			} else if acked != "" {
				t.Fatalf("acknowledged %q, want none", acked)
			}
			if err := within(t, done, "CallTool"); err != nil {
				t.Fatal(err)
			}
			if got := ls.gets.Load(); got != tc.gets {
				t.Errorf("%d tasks/get served; want %d", got, tc.gets)
			}
			if got := ls.listens.Load(); got != 1 {
				t.Errorf("%d listens for tasks; want 1", got)
			}
			testkit.Poll(t, "the listen ended with the wait", func() bool { return ls.open.Load() == 0 })
			t.Logf("%s: %d tasks/get for a task of five intervals", tc.name, ls.gets.Load())
		})
	}
}

// completed waits until the store holds task id completed. It may run
// on a goroutine of the server's.
func (ls *listenServer) completed(ctx context.Context, t *testing.T, id string) {
	if !testkit.PollUntil(ctx, func() bool {
		task, err := ls.store.Get(ctx, "", id)
		return err == nil && task.Status == server.TaskCompleted
	}) {
		t.Errorf("task %s not completed in the store", id)
	}
}

// A wait's listen ends with the wait: when its caller gives up on a task
// still running, and when Close ends the wait. The server serves no
// listen after either, and no goroutine is left (leakcheck).
func TestTaskListenEndsWithTheWait(t *testing.T) {
	for _, end := range []string{"caller gives up", "Close"} {
		t.Run(end, func(t *testing.T) {
			leakcheck.Check(t)
			ls := newListenServer(t, 20*time.Millisecond)
			c := ls.connect(t, time.Hour, client.Profile20260728)
			ctx, cancel := context.WithCancel(testkit.Context(t))
			defer cancel()
			done := callSteps(ctx, c, "a")
			if acked := within(t, ls.acked, "the listen's acknowledgement"); acked == "" {
				t.Fatal("the server acknowledged no task id")
			}
			if end == "Close" {
				go c.Close()
			} else {
				cancel()
			}
			if err := within(t, done, "CallTool"); err == nil {
				t.Fatal("CallTool succeeded; want it ended")
			}
			testkit.Poll(t, "the listen ended with the wait", func() bool { return ls.open.Load() == 0 })
			if got := ls.gets.Load(); got != 0 {
				t.Errorf("%d tasks/get served; want 0 (the wait slept on its listen)", got)
			}
		})
	}
}

// A client holds at most eight task listens at once (each holds one of
// the transport's streams): eight waits each have one; the ninth polls
// without one; once one of the eight has ended, a tenth wait listens
// again.
func TestTaskListensBounded(t *testing.T) {
	leakcheck.Check(t)
	ls := newListenServer(t, 5*time.Millisecond)
	c := ls.connect(t, time.Hour, client.Profile20260728)
	ctx := testkit.Context(t)
	var gets map[string]int64
	var mu sync.Mutex
	ls.beforeGet = func(_ int64, id string) {
		mu.Lock()
		defer mu.Unlock()
		gets[id]++
	}
	mu.Lock()
	gets = map[string]int64{}
	mu.Unlock()
	first, cancelFirst := context.WithCancel(ctx)
	defer cancelFirst()
	for i := range 8 {
		callCtx := ctx
		if i == 0 {
			callCtx = first
		}
		callSteps(callCtx, c, fmt.Sprint("k", i))
		if acked := within(t, ls.acked, "a listen's acknowledgement"); acked == "" {
			t.Fatalf("listen %d: the server acknowledged no task id", i+1)
		}
	}
	ninth := callSteps(ctx, c, "k8")
	testkit.Poll(t, "the ninth wait polled twice", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(gets) == 1 && maxOf(gets) >= 2
	})
	if got := ls.listens.Load(); got != 8 {
		t.Errorf("%d listens with nine waits; want 8", got)
	}
	cancelFirst()
	testkit.Poll(t, "the first wait's listen ended", func() bool { return ls.open.Load() == 7 })
	callSteps(ctx, c, "k9")
	if acked := within(t, ls.acked, "the tenth wait's acknowledgement"); acked == "" {
		t.Fatal("the server acknowledged no task id")
	}
	if got := ls.listens.Load(); got != 9 {
		t.Errorf("%d listens once a tenth wait began; want 9", got)
	}
	ls.release("k8")
	if err := within(t, ninth, "the ninth CallTool"); err != nil {
		t.Fatal(err)
	}
}

func maxOf(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n = max(n, v)
	}
	return n
}

// On 2025-11-25 there is no task, and no listen for one: the call is
// answered in its request.
func TestTaskListenNotOn20251125(t *testing.T) {
	leakcheck.Check(t)
	ls := newListenServer(t, 5*time.Millisecond)
	c := ls.connect(t, time.Hour, client.Profile20251125)
	ls.release("a")
	if err := within(t, callSteps(testkit.Context(t), c, "a"), "CallTool"); err != nil {
		t.Fatal(err)
	}
	if got := ls.listens.Load(); got != 0 {
		t.Errorf("%d listens for tasks; want 0", got)
	}
}

// Without Definition.TaskListen a wait at 2026-07-28 opens no listen and
// polls at the server's interval.
func TestTaskListenOnlyWhenAsked(t *testing.T) {
	leakcheck.Check(t)
	ls := newListenServer(t, 5*time.Millisecond)
	c := ls.connectListening(t, time.Hour, client.Profile20260728, false)
	ls.release("a")
	if err := within(t, callSteps(testkit.Context(t), c, "a"), "CallTool"); err != nil {
		t.Fatal(err)
	}
	if got := ls.listens.Load(); got != 0 {
		t.Errorf("%d listens for tasks; want 0", got)
	}
}

// A task that ended before its listen was served: the server acknowledges
// its id and ends the listen at once, with nothing to push. The end wakes
// the wait, polled every hour, to poll once and read the result.
func TestTaskListenEndedAtOnce(t *testing.T) {
	leakcheck.Check(t)
	ctx := testkit.Context(t)
	ls := newListenServer(t, time.Hour)
	ls.beforeListen = func(ids []string) {
		ls.release("a")
		for _, id := range ids {
			ls.completed(ctx, t, id)
		}
	}
	c := ls.connect(t, time.Hour, client.Profile20260728)
	done := callSteps(ctx, c, "a")
	if acked := within(t, ls.acked, "the listen's acknowledgement"); acked == "" {
		t.Fatal("the server acknowledged no task id")
	}
	if err := within(t, done, "CallTool"); err != nil {
		t.Fatal(err)
	}
	if got := ls.gets.Load(); got != 1 {
		t.Errorf("%d tasks/get served; want 1", got)
	}
}

// A listen the server never answers (its headers held) does not hold the
// wait: after ListAckWait the wait polls at its interval, as without a
// listen, and reads the result.
func TestTaskListenNeverAnswered(t *testing.T) {
	leakcheck.Check(t)
	ctx := testkit.Context(t)
	ls := newListenServer(t, 20*time.Millisecond)
	held := make(chan struct{})
	t.Cleanup(func() { close(held) })
	ls.beforeListen = func([]string) {
		select {
		case <-held:
		case <-ctx.Done():
		}
	}
	ls.beforeGet = func(n int64, _ string) {
		if n == 1 {
			ls.release("a")
		}
	}
	c := ls.connect(t, 50*time.Millisecond, client.Profile20260728)
	start := time.Now()
	if err := within(t, callSteps(ctx, c, "a"), "CallTool"); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < client.ListAckWait {
		t.Errorf("CallTool took %v; want ListAckWait (%v) or more, the wait for the listen's answer", took, client.ListAckWait)
	}
	if got := ls.gets.Load(); got < 1 || got > 2 {
		t.Errorf("%d tasks/get served; want 1 or 2", got)
	}
}
