package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"
)

// The replicas of a fleet are named A, B, C.
var names = []string{"A", "B", "C"}

// taskMeta is the _meta of a 2026-07-28 request whose client declares
// elicitation and the tasks extension.
const taskMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"v0"}}`

// A fleet is three replicas of one server, each with its own Redis
// client and stores, behind a round-robin reverse proxy.
type fleet struct {
	t        testing.TB
	redis    *redisProc
	replicas []*replica
	proxy    *httptest.Server
	http     *http.Client
	next     atomic.Int64 // round-robin counter
	sticky   bool
	mu       sync.Mutex
	sessions map[string]int // Mcp-Session-Id → replica, when sticky
	n        atomic.Int64   // request ids
}

// A replica is one server.HTTPHandler (2026-07-28, stateless) on Redis
// stores, with its counters.
type replica struct {
	name      string
	s         *server.Server
	ts        *httptest.Server
	client    *redis.Client
	tasks     *TaskStore
	trips     *tripCounter
	runs      atomic.Int64  // executions of the tools
	cancelled atomic.Int64  // task handlers whose context ended
	gate      chan struct{} // closed to let "gated" finish
	step      chan struct{} // each receive lets "stepped" take one step, or "held" end
	gets      atomic.Int64  // tasks/get requests served, counted once answered
	logged    logCounter    // the server's diagnostics
}

// fleetOptions configure a fleet's stores.
type fleetOptions struct {
	Store   Options
	Persist bool // Redis keeps an append-only file
	Memory  bool // one replica on the memory stores, no Redis
	// Stateful serves clients before 2026-07-28 sessions (HTTPHandler's
	// default), and Sticky makes the proxy send a session's requests to
	// the replica that began it.
	Stateful, Sticky bool
	// Client makes each replica's client; nil: a client of the fleet's
	// own redis-server.
	Client func(testing.TB) *redis.Client
	// PollInterval is the poll interval the tasks suggest; zero: 50ms.
	PollInterval time.Duration
}

func newFleet(t testing.TB, o *fleetOptions) *fleet {
	t.Helper()
	if o == nil {
		o = &fleetOptions{}
	}
	f := &fleet{t: t, http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}, sticky: o.Sticky, sessions: make(map[string]int)}
	t.Cleanup(f.http.CloseIdleConnections)
	key := []byte(strings.Repeat("k", 32))
	if o.Memory {
		f.replicas = append(f.replicas, newReplica(t, "A", nil, key, nil, false, o.PollInterval))
	} else {
		client := o.Client
		if client == nil {
			f.redis = startRedis(t, o.Persist)
			client = f.redis.client
		}
		for _, name := range names {
			f.replicas = append(f.replicas, newReplica(t, name, client(t), key, &o.Store, o.Stateful, o.PollInterval))
		}
	}
	f.proxy = httptest.NewServer(&httputil.ReverseProxy{Rewrite: f.route, ModifyResponse: f.remember, Transport: &http.Transport{MaxIdleConnsPerHost: 64}})
	t.Cleanup(f.proxy.Close)
	if o.Memory {
		return f
	}
	// Every replica watches the signals before a test sends one.
	testkit.Poll(t, "the three replicas to subscribe to the signals", func() bool {
		n, err := f.replicas[0].client.PubSubNumSub(testkit.Context(t), f.replicas[0].tasks.channel).Result()
		return err == nil && n[f.replicas[0].tasks.channel] == int64(len(names))
	})
	return f
}

// route sends a request to the replica its X-Replica header names, or to
// the next in turn.
func (f *fleet) route(pr *httputil.ProxyRequest) {
	i := int(f.next.Add(1)-1) % len(f.replicas)
	if pin := pr.In.Header.Get("X-Replica"); pin != "" {
		i = strings.Index("ABC", pin) % len(f.replicas)
	}
	if sid := pr.In.Header.Get("Mcp-Session-Id"); sid != "" && f.sticky {
		f.mu.Lock()
		if j, ok := f.sessions[sid]; ok {
			i = j
		}
		f.mu.Unlock()
	}
	u, _ := url.Parse(f.replicas[i].ts.URL)
	pr.SetURL(u)
	pr.Out.Header.Del("X-Replica")
}

// remember notes which replica began each session.
func (f *fleet) remember(resp *http.Response) error {
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		f.mu.Lock()
		f.sessions[sid] = strings.Index("ABC", resp.Header.Get("X-Served-By"))
		f.mu.Unlock()
	}
	return nil
}

func newReplica(t testing.TB, name string, c *redis.Client, key []byte, o *Options, stateful bool, poll time.Duration) *replica {
	t.Helper()
	if poll == 0 {
		poll = 50 * time.Millisecond
	}
	rep := &replica{name: name, gate: make(chan struct{}), step: make(chan struct{}), trips: &tripCounter{}}
	opts := &server.Options{StateKey: key, Logger: slog.New(&rep.logged), Tasks: &server.TaskOptions{PollInterval: poll}}
	if c != nil { // else the memory stores
		rep.client = c
		rep.client.AddHook(rep.trips)
		rep.tasks = NewTaskStore(rep.client, o)
		opts.StateStore, opts.Tasks.Store = NewStateStore(rep.client, o), rep.tasks
	}
	s, err := server.New("fleet", "v0", opts)
	if err != nil {
		t.Fatal(err)
	}
	rep.s = s
	rep.register(t)
	h, err := s.HTTPHandler(&server.HTTPOptions{Stateless: !stateful})
	if err != nil {
		t.Fatal(err)
	}
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: token, Expiration: time.Now().Add(time.Hour)}, nil
	}
	authed := auth.RequireBearerToken(verify, nil)(h)
	rep.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("X-Served-By", name)
		authed.ServeHTTP(w, req)
		if req.Header.Get("Mcp-Method") == "tasks/get" {
			rep.gets.Add(1) // once served: its read of the task is done
		}
	}))
	var once sync.Once
	t.Cleanup(func() {
		once.Do(func() { close(rep.gate) })
		rep.ts.Close()
		h.Close()
		s.Close()
		if rep.tasks != nil {
			rep.tasks.Close()
		}
	})
	return rep
}

// register adds the tools: confirm (asks once in the request, then
// completes), and the task tools quick, gated, ask and stepped (ask, each
// round after a step).
func (rep *replica) register(t testing.TB) {
	noArgs := json.RawMessage(`{"type":"object"}`)
	count := func(h server.ToolHandler) server.ToolHandler {
		return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			rep.runs.Add(1)
			return h(ctx, req)
		}
	}
	schema := map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}
	asks := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if a, ok := server.ElicitResponse(req.Params.InputResponses, "ok"); ok {
			return text(fmt.Sprintf("ok=%v at %s", a.Content["ok"], rep.name)), nil
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"ok": &mcp.ElicitParams{Message: "OK?", RequestedSchema: schema}}}, nil
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(rep.s.RegisterTool(&mcp.Tool{Name: "confirm", InputSchema: noArgs}, count(asks)))
	must(rep.s.RegisterTool(&mcp.Tool{Name: "hello", InputSchema: noArgs}, count(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("hello from " + rep.name), nil
	})))
	must(rep.s.RegisterTaskTool(&mcp.Tool{Name: "ask", InputSchema: noArgs}, count(asks), nil))
	must(rep.s.RegisterTaskTool(&mcp.Tool{Name: "stepped", InputSchema: noArgs}, count(func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-rep.step:
			return asks(ctx, req)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}), nil))
	must(rep.s.RegisterTaskTool(&mcp.Tool{Name: "held", InputSchema: noArgs}, count(func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-rep.step:
			return text("held at " + rep.name), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}), nil))
	must(rep.s.RegisterTaskTool(&mcp.Tool{Name: "quick", InputSchema: noArgs}, count(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("done at " + rep.name), nil
	}), nil))
	must(rep.s.RegisterTaskTool(&mcp.Tool{Name: "gated", InputSchema: noArgs}, count(func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-rep.gate:
			return text("opened"), nil
		case <-ctx.Done():
			rep.cancelled.Add(1)
			return nil, ctx.Err()
		}
	}), nil))
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// runs is the executions of the tools across the fleet.
func (f *fleet) runs() int64 {
	var n int64
	for _, r := range f.replicas {
		n += r.runs.Load()
	}
	return n
}

// reply is a JSON-RPC response and the replica that served it.
type reply struct {
	By     string
	Result json.RawMessage
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
}

// call sends a 2026-07-28 request through the proxy, to the replica pin
// names ("": the next in turn), as principal; params are members without
// braces.
func (f *fleet) call(ctx context.Context, pin, principal, method, name, params string) (reply, error) {
	if params != "" {
		params += ","
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s%s}}`, f.n.Add(1), method, params, taskMeta)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.proxy.URL, strings.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	for k, v := range map[string]string{
		"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method, "Mcp-Name": name,
		"Authorization": "Bearer " + principal, "X-Replica": pin,
	} {
		req.Header.Set(k, v)
	}
	resp, err := f.http.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, err
	}
	raw := string(b)
	for line := range strings.Lines(raw) {
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data:"); ok && strings.Contains(d, `"id"`) {
			raw = d
		}
	}
	r := reply{By: resp.Header.Get("X-Served-By")}
	if err := json.Unmarshal([]byte(strings.TrimSpace(raw)), &r); err != nil {
		return reply{}, fmt.Errorf("no JSON-RPC response in %q (status %d): %w", b, resp.StatusCode, err)
	}
	return r, nil
}

// must is call, failing the test on a transport error.
func (f *fleet) must(pin, principal, method, name, params string) reply {
	f.t.Helper()
	r, err := f.call(testkit.Context(f.t), pin, principal, method, name, params)
	if err != nil {
		f.t.Fatalf("%s %s at %q: %v", method, name, pin, err)
	}
	return r
}

// task is what a test reads of a task.
type task struct {
	ResultType    string                     `json:"resultType"`
	TaskID        string                     `json:"taskId"`
	Status        server.TaskStatus          `json:"status"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	Result        *struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (r reply) task(t testing.TB) task {
	t.Helper()
	var tk task
	if r.Error != nil || json.Unmarshal(r.Result, &tk) != nil {
		t.Fatalf("no task in %s (error %+v, served by %s)", r.Result, r.Error, r.By)
	}
	return tk
}

// start calls the task tool at pin and returns the task's id.
func (f *fleet) start(pin, principal, tool string) string {
	f.t.Helper()
	tk := f.must(pin, principal, "tools/call", tool, fmt.Sprintf(`"name":%q,"arguments":{}`, tool)).task(f.t)
	if tk.ResultType != "task" || tk.TaskID == "" {
		f.t.Fatalf("tools/call %s at %s: %+v, want a task", tool, pin, tk)
	}
	return tk.TaskID
}

// get reads the task id at pin.
func (f *fleet) get(pin, principal, id string) task {
	f.t.Helper()
	return f.must(pin, principal, "tasks/get", id, fmt.Sprintf(`"taskId":%q`, id)).task(f.t)
}

// await polls the task id at pin until its status is want.
func (f *fleet) await(pin, principal, id string, want server.TaskStatus) task {
	f.t.Helper()
	var last task
	testkit.Poll(f.t, fmt.Sprintf("task %s to be %s at %s", id, want, pin), func() bool {
		last = f.get(pin, principal, id)
		return last.Status == want
	})
	return last
}

// tripCounter counts the commands a client sends to Redis: a command
// alone, or a pipeline, is one round trip.
type tripCounter struct{ n atomic.Int64 }

func (c *tripCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *tripCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

func (c *tripCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}

// logCounter is a slog.Handler that counts the records by message.
type logCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (l *logCounter) Enabled(context.Context, slog.Level) bool { return true }
func (l *logCounter) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logCounter) WithGroup(string) slog.Handler            { return l }

func (l *logCounter) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == nil {
		l.n = make(map[string]int)
	}
	l.n[r.Message]++
	return nil
}

func (l *logCounter) count(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n[msg]
}
