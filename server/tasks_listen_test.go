package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listenBody is a 2026-07-28 subscriptions/listen for the task ids.
func listenBody(id int, ids ...string) string {
	b, _ := json.Marshal(ids)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{"notifications":{"taskIds":%s},%s}}`, id, b, taskMeta)
}

// listenRequest is the POST of listenBody, with token's bearer.
func listenRequest(ctx context.Context, url, token string, id int, ids ...string) *http.Request {
	return listenPOST(ctx, url, token, listenBody(id, ids...))
}

// listenPOST is a 2026-07-28 subscriptions/listen POST of body.
func listenPOST(ctx context.Context, url, token, body string) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	req.Header.Set("Authorization", "Bearer "+token)
	return req
}

// wireMsg is a message read from a listen stream.
type wireMsg struct {
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
	Params struct {
		TaskID        string          `json:"taskId"`
		Status        TaskStatus      `json:"status"`
		ResultType    *string         `json:"resultType"`
		Result        json.RawMessage `json:"result"`
		Notifications struct {
			TaskIDs []string `json:"taskIds"`
		} `json:"notifications"`
		Meta map[string]any `json:"_meta"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
}

// listenStream is a listen stream a test reads: each message as it comes.
type listenStream struct {
	msgs chan wireMsg // closed when the stream ends
}

// listen opens a listen stream for ids as f.token's principal.
func (f *taskFixture) listen(ids ...string) *listenStream {
	f.t.Helper()
	f.n++
	resp, err := http.DefaultClient.Do(listenRequest(f.ctx, f.ts.URL, f.token, f.n, ids...))
	if err != nil {
		f.t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		resp.Body.Close()
		f.t.Fatalf("subscriptions/listen: status %d, Content-Type %q", resp.StatusCode, ct)
	}
	l := &listenStream{msgs: make(chan wireMsg, 64)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(l.msgs)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			d, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var m wireMsg
			if json.Unmarshal([]byte(d), &m) != nil {
				m.Method = "undecodable: " + d
			}
			l.msgs <- m
		}
	}()
	f.t.Cleanup(func() { resp.Body.Close(); <-done })
	return l
}

// next returns the stream's next message, or false when it ended.
func (l *listenStream) next(t *testing.T, ctx context.Context) (wireMsg, bool) {
	t.Helper()
	select {
	case m, ok := <-l.msgs:
		return m, ok
	case <-ctx.Done():
		t.Fatal("no message on the listen stream before the test's deadline")
		return wireMsg{}, false
	}
}

// rest reads the stream to its end: the notifications/tasks as "id status",
// and whether it ended with the listen's result.
func (l *listenStream) rest(t *testing.T, ctx context.Context) (pushes []string, result bool) {
	t.Helper()
	for {
		m, ok := l.next(t, ctx)
		switch {
		case !ok:
			return pushes, result
		case m.Method == "notifications/tasks":
			pushes = append(pushes, m.Params.TaskID+" "+string(m.Params.Status))
		case m.Method == "" && m.Result != nil:
			result = true
		default:
			t.Errorf("unexpected message on the listen stream: %+v", m)
		}
	}
}

// acked reads the acknowledgement and returns the task ids it agrees to.
func (l *listenStream) acked(t *testing.T, ctx context.Context) []string {
	t.Helper()
	m, ok := l.next(t, ctx)
	if !ok || m.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message %+v, want the acknowledgement", m)
	}
	if m.Params.Meta[mcp.MetaKeySubscriptionID] == nil {
		t.Errorf("acknowledgement without a subscription id: %+v", m.Params.Meta)
	}
	return m.Params.Notifications.TaskIDs
}

// registerStepper registers "stepper", a task tool that waits for a step
// before it asks for input "go", and for another before it completes.
func registerStepper(t *testing.T, s *Server, step chan struct{}) {
	t.Helper()
	h := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-step:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if _, ok := ElicitResponse(req.Params.InputResponses, "go"); ok {
			return textResult("stepped"), nil
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
			"go": &mcp.ElicitParams{Message: "Go?", RequestedSchema: map[string]any{"type": "object"}},
		}}, nil
	}
	if err := s.RegisterTaskTool(&mcp.Tool{Name: "stepper", InputSchema: json.RawMessage(`{"type":"object"}`)}, h, nil); err != nil {
		t.Fatal(err)
	}
}

// A listen stream for a task receives each of its status changes once, in
// order, counted on the wire: input_required, working (answered), then
// completed, after which the stream ends with the listen's result.
func TestTaskListenPushesEachStatusChangeOnce(t *testing.T) {
	leakcheck.Check(t)
	f := newTaskFixture(t, nil)
	step := make(chan struct{})
	registerStepper(t, f.s, step)
	id := f.start("stepper")
	l := f.listen(id)
	if diff := cmp.Diff([]string{id}, l.acked(t, f.ctx)); diff != "" {
		t.Fatalf("acknowledged taskIds (-want +got):\n%s", diff)
	}
	step <- struct{}{}
	f.await(id, TaskInputRequired)
	if r := f.post("tasks/update", id, fmt.Sprintf(`"taskId":%q,"inputResponses":{"go":{"action":"accept","content":{}}}`, id), ""); r.Error != nil {
		t.Fatalf("tasks/update: %+v", r.Error)
	}
	step <- struct{}{}
	f.await(id, TaskCompleted)
	pushes, result := l.rest(t, f.ctx)
	want := []string{id + " input_required", id + " working", id + " completed"}
	if diff := cmp.Diff(want, pushes); diff != "" {
		t.Errorf("notifications/tasks on the wire (-want +got):\n%s", diff)
	}
	if !result {
		t.Error("the stream ended without the listen's result")
	}
}

// A notification carries the task as tasks/get reports it, without
// resultType, and the listen's subscription id.
func TestTaskListenNotificationShape(t *testing.T) {
	leakcheck.Check(t)
	f := newTaskFixture(t, nil)
	id := f.start("gated")
	l := f.listen(id)
	l.acked(t, f.ctx)
	f.gate <- struct{}{}
	m, ok := l.next(t, f.ctx)
	if !ok || m.Method != "notifications/tasks" {
		t.Fatalf("got %+v, want a notifications/tasks", m)
	}
	if m.Params.Status != TaskCompleted || m.Params.ResultType != nil || !strings.Contains(string(m.Params.Result), "opened") {
		t.Errorf("notification params %+v: want completed, no resultType, the result", m.Params)
	}
	if got := fmt.Sprint(m.Params.Meta[mcp.MetaKeySubscriptionID]); got != fmt.Sprint(f.n) {
		t.Errorf("subscription id %s, want the listen's request id %d", got, f.n)
	}
}

// A principal never sees another's task: a listen stream naming it is not
// acknowledged for it and receives none of its changes; its own task's
// changes it receives, once each.
func TestTaskListenOtherPrincipal(t *testing.T) {
	leakcheck.Check(t)
	f := newTaskFixture(t, nil)
	step := make(chan struct{})
	registerStepper(t, f.s, step)
	alices := f.start("stepper")
	f.token = "bob"
	bobs := f.start("gated")
	bob := f.listen(alices, bobs, "no-such-task")
	if diff := cmp.Diff([]string{bobs}, bob.acked(t, f.ctx)); diff != "" {
		t.Fatalf("bob's acknowledged taskIds (-want +got):\n%s", diff)
	}
	f.token = "alice"
	alice := f.listen(alices)
	alice.acked(t, f.ctx)
	step <- struct{}{}
	f.await(alices, TaskInputRequired)
	f.post("tasks/cancel", alices, fmt.Sprintf(`"taskId":%q`, alices), "")
	f.await(alices, TaskCancelled)
	f.token = "bob"
	f.gate <- struct{}{}
	f.await(bobs, TaskCompleted)
	for _, c := range []struct {
		who  string
		l    *listenStream
		want []string
	}{
		{"bob", bob, []string{bobs + " completed"}},
		{"alice", alice, []string{alices + " input_required", alices + " cancelled"}},
	} {
		pushes, _ := c.l.rest(t, f.ctx)
		if diff := cmp.Diff(c.want, pushes); diff != "" {
			t.Errorf("%s's notifications/tasks (-want +got):\n%s", c.who, diff)
		}
	}
}

// blockedWriter is a response writer whose first notifications/tasks
// write blocks until release is closed: a listener that stopped reading.
type blockedWriter struct {
	header  http.Header
	acked   chan struct{} // closed when the acknowledgement is written
	blocked chan struct{} // closed when the first push blocks
	release chan struct{}

	mu   sync.Mutex
	body strings.Builder
	once sync.Once
}

func (w *blockedWriter) Header() http.Header { return w.header }
func (w *blockedWriter) WriteHeader(int)     {}
func (w *blockedWriter) Flush()              {}

func (w *blockedWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), "acknowledged") {
		close(w.acked)
	}
	if strings.Contains(string(p), "notifications/tasks") {
		w.once.Do(func() {
			close(w.blocked)
			<-w.release
		})
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.body.Write(p)
}

// logCount is a slog handler that keeps the "dropped" of each record
// whose message is msg.
type logCount struct {
	msg     string
	mu      sync.Mutex
	dropped []int64
}

func (h *logCount) Enabled(context.Context, slog.Level) bool { return true }
func (h *logCount) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logCount) WithGroup(string) slog.Handler            { return h }
func (h *logCount) Handle(_ context.Context, r slog.Record) error {
	if r.Message != h.msg {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "dropped" {
			h.mu.Lock()
			h.dropped = append(h.dropped, a.Value.Int64())
			h.mu.Unlock()
		}
		return true
	})
	return nil
}

// The queue of a listen stream whose client stopped reading holds
// DefaultTaskPushQueue changes: with one change blocked in the write,
// DefaultTaskPushQueue more pass, the one after is dropped and counted in
// the Logger, and never blocks the change; tasks/get (here the store)
// still reads the task's status.
func TestTaskListenQueueBoundEdge(t *testing.T) {
	for _, c := range []struct {
		name    string
		after   int // changes made while the first push is blocked
		dropped []int64
	}{
		{"bound", DefaultTaskPushQueue, nil},
		{"bound+1", DefaultTaskPushQueue + 1, []int64{1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			leakcheck.Check(t)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			logs := &logCount{msg: "task status pushes dropped"}
			store := NewMemoryTaskStore(0)
			s := newServer(t, "tasks", "v0", &Options{Tasks: &TaskOptions{Store: store}, Logger: slog.New(logs)})
			defer s.Close()
			h := httpHandler(t, s, nil)
			defer h.Close()
			verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
				return &auth.TokenInfo{UserID: token, Expiration: time.Now().Add(time.Hour)}, nil
			}
			srv := auth.RequireBearerToken(verify, nil)(h)
			now := time.Now()
			if err := store.Create(ctx, &Task{ID: "t1", Principal: "alice", Tool: "x", Status: TaskWorking, Created: now, Updated: now, Expires: now.Add(time.Hour)}); err != nil {
				t.Fatal(err)
			}
			w := &blockedWriter{header: make(http.Header), acked: make(chan struct{}), blocked: make(chan struct{}), release: make(chan struct{})}
			served := make(chan struct{})
			go func() {
				defer close(served)
				srv.ServeHTTP(w, listenRequest(ctx, "http://localhost/", "alice", 7, "t1"))
			}()
			select {
			case <-w.acked:
			case <-ctx.Done():
				t.Fatal("the listen stream was never acknowledged")
			}
			set := func(st TaskStatus) {
				t.Helper()
				if _, err := store.Update(ctx, "alice", "t1", func(tk *Task) error { tk.Status = st; return nil }); err != nil {
					t.Fatal(err)
				}
			}
			flip := []TaskStatus{TaskInputRequired, TaskWorking}
			set(flip[0]) // taken from the queue, blocked in its write
			select {
			case <-w.blocked:
			case <-ctx.Done():
				t.Fatal("the first push never reached the writer")
			}
			for i := 1; i < c.after; i++ {
				set(flip[i%2])
			}
			set(TaskCompleted) // the last change: it ends the stream
			close(w.release)
			select {
			case <-served:
			case <-ctx.Done():
				t.Fatal("the listen stream did not end after its task did")
			}
			got, err := store.Get(ctx, "alice", "t1")
			if err != nil || got.Status != TaskCompleted {
				t.Errorf("the store reads %+v, %v; want completed", got, err)
			}
			w.mu.Lock()
			pushes := strings.Count(w.body.String(), `"method":"notifications/tasks"`)
			w.mu.Unlock()
			if want := 1 + DefaultTaskPushQueue; pushes != want {
				t.Errorf("%d notifications/tasks written; want %d (one blocked, the bound queued)", pushes, want)
			}
			logs.mu.Lock()
			defer logs.mu.Unlock()
			if diff := cmp.Diff(c.dropped, logs.dropped); diff != "" {
				t.Errorf("drops logged (-want +got):\n%s", diff)
			}
		})
	}
}

// A listen without taskIds, or from a client that does not declare the
// extension, is the go-sdk's: it acknowledges no taskIds.
func TestTaskListenWithoutTasksIsTheSDKs(t *testing.T) {
	leakcheck.Check(t)
	f := newTaskFixture(t, nil)
	id := f.start("gated")
	noExt := strings.Replace(taskMeta, `"extensions":{"io.modelcontextprotocol/tasks":{}}`, `"extensions":{}`, 1)
	for _, body := range []string{
		fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{},%s}}`, taskMeta),
		fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"taskIds":[%q]},%s}}`, id, noExt),
	} {
		resp, err := http.DefaultClient.Do(listenPOST(f.ctx, f.ts.URL, "alice", body))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(resp.Body)
		var ack string
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(d, "acknowledged") {
				ack = d
				break
			}
		}
		resp.Body.Close()
		if ack == "" || strings.Contains(ack, "taskIds") {
			t.Errorf("listen %s: acknowledgement %q, want one without taskIds", body, ack)
		}
	}
}

// A listen for a task that has already ended is acknowledged for it and
// ends at once with the listen's result, pushing nothing: nothing changes
// any more. A listen still open ends when the handler is closed.
func TestTaskListenEnds(t *testing.T) {
	leakcheck.Check(t)
	f := newTaskFixture(t, nil)
	done := f.start("quick")
	f.await(done, TaskCompleted)
	l := f.listen(done)
	if diff := cmp.Diff([]string{done}, l.acked(t, f.ctx)); diff != "" {
		t.Errorf("acknowledged taskIds (-want +got):\n%s", diff)
	}
	if pushes, result := l.rest(t, f.ctx); len(pushes) != 0 || !result {
		t.Errorf("pushes %v, result %v; want none, then the result", pushes, result)
	}

	s := newServer(t, "tasks", "v0", &Options{Tasks: &TaskOptions{}})
	defer s.Close()
	h := httpHandler(t, s, nil)
	if err := s.RegisterTaskTool(&mcp.Tool{Name: "held", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}, nil); err != nil {
		t.Fatal(err)
	}
	g := &taskFixture{t: t, s: s, ctx: f.ctx, ts: httptest.NewServer(h), token: "alice"}
	defer g.ts.Close()
	open := g.listen(g.start("held"))
	open.acked(t, f.ctx)
	h.Close()
	if pushes, result := open.rest(t, f.ctx); len(pushes) != 0 || result {
		t.Errorf("after Close: pushes %v, result %v; want the stream cut, nothing more", pushes, result)
	}
}

// countingStore counts the reads and watches a listen costs the store.
type countingStore struct {
	TaskStore
	gets, watches atomic.Int64
}

func (c *countingStore) Get(ctx context.Context, principal, id string) (*Task, error) {
	c.gets.Add(1)
	return c.TaskStore.Get(ctx, principal, id)
}

func (c *countingStore) WatchTask(ctx context.Context, id string, f func(*Task)) (func(), error) {
	c.watches.Add(1)
	return c.TaskStore.(TaskWatcher).WatchTask(ctx, id, f)
}

// A listen is looked up for its first MaxListenTasks distinct ids only:
// one naming MaxListenTasks unknown ids (twice over), then the caller's own
// task, agrees to nothing and costs the store MaxListenTasks reads and
// watches, however many ids it names. A listen naming the task among its
// first MaxListenTasks agrees to it.
func TestTaskListenLooksUpAtMostMaxListenTasks(t *testing.T) {
	leakcheck.Check(t)
	store := &countingStore{TaskStore: NewMemoryTaskStore(0)}
	f := newTaskFixture(t, &TaskOptions{Store: store})
	own := f.start("gated")
	var ids []string
	for i := range MaxListenTasks {
		ids = append(ids, fmt.Sprintf("no-such-task-%d", i))
	}
	gets, watches := store.gets.Load(), store.watches.Load()
	past := f.listen(append(append(ids, ids...), own)...)
	if got := past.acked(t, f.ctx); len(got) != 0 {
		t.Errorf("a listen naming its task past the first %d ids acknowledged %v; want none", MaxListenTasks, got)
	}
	if g, w := store.gets.Load()-gets, store.watches.Load()-watches; g != MaxListenTasks || w != MaxListenTasks {
		t.Errorf("the listen cost %d reads and %d watches; want %d of each", g, w, MaxListenTasks)
	}
	within := f.listen(append(ids[:MaxListenTasks-1], own)...)
	if diff := cmp.Diff([]string{own}, within.acked(t, f.ctx)); diff != "" {
		t.Errorf("a listen naming its task as its %dth id acknowledged (-want +got):\n%s", MaxListenTasks, diff)
	}
	f.gate <- struct{}{}
	f.await(own, TaskCompleted)
}
