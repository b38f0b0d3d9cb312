package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// taskMeta is the _meta of a 2026-07-28 request whose client declares
// the tasks extension.
const taskMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"v0"}}`

// taskFixture is a server with task tools behind HTTPHandler and bearer
// auth (the token is the principal), and its counters.
type taskFixture struct {
	t     *testing.T
	s     *Server
	ts    *httptest.Server
	ctx   context.Context
	runs  atomic.Int64  // executions of the tools
	gate  chan struct{} // closed to let "gated" finish
	token string        // the bearer token of the next request
	n     int           // request ids
}

func newTaskFixture(t *testing.T, o *TaskOptions) *taskFixture {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	f := &taskFixture{t: t, ctx: ctx, gate: make(chan struct{}), token: "alice"}
	if o == nil {
		o = &TaskOptions{}
	}
	f.s = newServer(t, "tasks", "v0", &Options{Tasks: o})
	count := func(h ToolHandler) ToolHandler {
		return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			f.runs.Add(1)
			return h(ctx, req)
		}
	}
	noArgs := json.RawMessage(`{"type":"object"}`)
	reg := func(name string, h ToolHandler, opts *TaskToolOptions) {
		if err := f.s.RegisterTaskTool(&mcp.Tool{Name: name, InputSchema: noArgs}, count(h), opts); err != nil {
			t.Fatal(err)
		}
	}
	reg("quick", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult("done"), nil
	}, nil)
	reg("gated", func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-f.gate:
			return textResult("opened"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}, nil)
	reg("required", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult("ran"), nil
	}, &TaskToolOptions{Required: true})
	reg("toolfail", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("no luck")
	}, nil)
	reg("panics", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("boom") }, nil)
	reg("big", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult(strings.Repeat("x", 1000)), nil
	}, nil)
	reg("confirm", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, okA := ElicitResponse(req.Params.InputResponses, "a")
		b, okB := ElicitResponse(req.Params.InputResponses, "b")
		if okA && okB {
			return textResult(fmt.Sprintf("a=%v b=%v", a.Content["ok"], b.Content["ok"])), nil
		}
		schema := map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
			"a": &mcp.ElicitParams{Message: "A?", RequestedSchema: schema},
			"b": &mcp.ElicitParams{Message: "B?", RequestedSchema: schema},
		}}, nil
	}, nil)
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: token, Expiration: time.Now().Add(time.Hour)}, nil
	}
	h := httpHandler(t, f.s, nil)
	f.ts = httptest.NewServer(auth.RequireBearerToken(verify, nil)(h))
	t.Cleanup(func() {
		close(f.gate)
		f.ts.Close()
		h.Close()
		f.s.Close()
	})
	return f
}

// post sends a 2026-07-28 request with the given params (members, no
// braces), _meta (taskMeta unless meta is set) and Mcp-Name name.
func (f *taskFixture) post(method, name, params, meta string) rpcReply {
	f.t.Helper()
	if meta == "" {
		meta = taskMeta
	}
	if params != "" {
		params += ","
	}
	f.n++
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s%s}}`, f.n, method, params, meta)
	req, err := http.NewRequestWithContext(f.ctx, http.MethodPost, f.ts.URL, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
	req.Header.Set("Authorization", "Bearer "+f.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return parseReply(f.t, string(b))
}

// start calls tool and returns the task it started.
func (f *taskFixture) start(tool string) string {
	f.t.Helper()
	r := f.post("tools/call", tool, fmt.Sprintf(`"name":%q,"arguments":{}`, tool), "")
	var created struct {
		ResultType, TaskID string
	}
	if r.Error != nil || json.Unmarshal(r.Result, &created) != nil || created.ResultType != "task" || created.TaskID == "" {
		f.t.Fatalf("tools/call %s: no task in %s (error %+v)", tool, r.Result, r.Error)
	}
	return created.TaskID
}

// detailed is what a test reads of tasks/get.
type detailed struct {
	ResultType    string                     `json:"resultType"`
	TaskID        string                     `json:"taskId"`
	Status        TaskStatus                 `json:"status"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	Result        *struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	} `json:"result"`
	Error *jsonrpc.Error `json:"error"`
}

func (f *taskFixture) get(id string) (detailed, rpcReply) {
	f.t.Helper()
	r := f.post("tasks/get", id, fmt.Sprintf(`"taskId":%q`, id), "")
	var d detailed
	if r.Error == nil {
		if err := json.Unmarshal(r.Result, &d); err != nil {
			f.t.Fatal(err)
		}
	}
	return d, r
}

// await polls the task until its status is want, with a deadline.
func (f *taskFixture) await(id string, want TaskStatus) detailed {
	f.t.Helper()
	for {
		d, r := f.get(id)
		if r.Error != nil {
			f.t.Fatalf("tasks/get %s: %+v", id, r.Error)
		}
		if d.Status == want {
			return d
		}
		if d.Status.Terminal() {
			f.t.Fatalf("task %s is %s, want %s", id, d.Status, want)
		}
		select {
		case <-f.ctx.Done():
			f.t.Fatalf("task %s still %s when the test's deadline passed, waiting for %s", id, d.Status, want)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func TestTaskRunsOnceHoweverManyPolls(t *testing.T) {
	f := newTaskFixture(t, nil)
	id := f.start("gated")
	for range 20 {
		if d := f.await(id, TaskWorking); d.Result != nil || d.ResultType != "complete" {
			t.Fatalf("working task: %+v", d)
		}
	}
	f.gate <- struct{}{}
	d := f.await(id, TaskCompleted)
	for range 10 {
		f.await(id, TaskCompleted)
	}
	if d.Result == nil || len(d.Result.Content) != 1 || d.Result.Content[0].Text != "opened" {
		t.Errorf("completed task's result: %+v", d.Result)
	}
	if n := f.runs.Load(); n != 1 {
		t.Errorf("the tool ran %d times for one task polled 31 times, want 1", n)
	}
}

func TestTaskOutcomes(t *testing.T) {
	f := newTaskFixture(t, &TaskOptions{MaxResultBytes: 1000})
	if d := f.await(f.start("toolfail"), TaskCompleted); d.Result == nil || !d.Result.IsError || d.Error != nil {
		t.Errorf("a tool failure: %+v, want completed with an isError result", d)
	}
	if d := f.await(f.start("panics"), TaskFailed); d.Error == nil || d.Error.Code != jsonrpc.CodeInternalError || d.Result != nil {
		t.Errorf("a panic: %+v, want failed with -32603 and no result", d)
	}
	// The result bound: "big" encodes to more than 1000 bytes.
	d := f.await(f.start("big"), TaskCompleted)
	if d.Result == nil || !d.Result.IsError || !strings.HasPrefix(d.Result.Content[0].Text, "result too large") {
		t.Errorf("a result over TaskOptions.MaxResultBytes: %+v", d.Result)
	}
}

func TestTaskResultBoundEdge(t *testing.T) {
	// textResult(1000 x's) encodes to exactly this many bytes.
	b, _ := json.Marshal(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", 1000)}}})
	for _, tc := range []struct {
		max     int
		isError bool
	}{{len(b), false}, {len(b) - 1, true}} {
		f := newTaskFixture(t, &TaskOptions{MaxResultBytes: tc.max})
		d := f.await(f.start("big"), TaskCompleted)
		if d.Result == nil || d.Result.IsError != tc.isError {
			t.Errorf("MaxResultBytes %d with a %d-byte result: %+v, want isError %v", tc.max, len(b), d.Result, tc.isError)
		}
	}
}

func TestTaskCancel(t *testing.T) {
	f := newTaskFixture(t, nil)
	id := f.start("gated")
	for range 2 { // the second is the idempotent ack of a terminal task
		r := f.post("tasks/cancel", id, fmt.Sprintf(`"taskId":%q`, id), "")
		if r.Error != nil || string(r.Result) != `{"resultType":"complete"}` {
			t.Fatalf("tasks/cancel: %s %+v", r.Result, r.Error)
		}
	}
	f.await(id, TaskCancelled)
	if err := f.s.Close(); err != nil { // waits for the handler, which saw its context end
		t.Fatal(err)
	}
	if d, _ := f.get(id); d.Status != TaskCancelled {
		t.Errorf("after the handler returned, the task is %s, want cancelled", d.Status)
	}
}

func TestTaskInputPartialUpdates(t *testing.T) {
	f := newTaskFixture(t, nil)
	id := f.start("confirm")
	d := f.await(id, TaskInputRequired)
	if diff := cmp.Diff([]string{"a", "b"}, keys(d.InputRequests)); diff != "" {
		t.Fatalf("inputRequests mismatch (-want +got):\n%s", diff)
	}
	update := func(responses string) rpcReply {
		return f.post("tasks/update", id, fmt.Sprintf(`"taskId":%q,"inputResponses":%s`, id, responses), "")
	}
	if r := update(`{"a":{"action":"accept","content":{"ok":true}},"zzz":{}}`); r.Error != nil || string(r.Result) != `{"resultType":"complete"}` {
		t.Fatalf("partial tasks/update: %s %+v", r.Result, r.Error)
	}
	d = f.await(id, TaskInputRequired)
	if diff := cmp.Diff([]string{"b"}, keys(d.InputRequests)); diff != "" {
		t.Fatalf("after answering a: inputRequests mismatch (-want +got):\n%s", diff)
	}
	if n := f.runs.Load(); n != 1 {
		t.Fatalf("the tool ran %d times before every request was answered, want 1", n)
	}
	update(`{"b":{"action":"accept","content":{"ok":false}}}`)
	d = f.await(id, TaskCompleted)
	if d.Result == nil || d.Result.Content[0].Text != "a=true b=false" {
		t.Errorf("result: %+v", d.Result)
	}
	if n := f.runs.Load(); n != 2 {
		t.Errorf("the tool ran %d times for two rounds, want 2", n)
	}
	// An update of a finished task is refused, and runs nothing.
	if r := update(`{"b":{"action":"accept","content":{"ok":true}}}`); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("tasks/update of a completed task: %s %+v, want -32602", r.Result, r.Error)
	}
	if n := f.runs.Load(); n != 2 {
		t.Errorf("an update of a finished task ran the tool: %d executions, want 2", n)
	}
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestTaskBoundToPrincipal(t *testing.T) {
	f := newTaskFixture(t, nil)
	id := f.start("gated")
	f.token = "mallory"
	for _, m := range []struct{ method, params string }{
		{"tasks/get", fmt.Sprintf(`"taskId":%q`, id)},
		{"tasks/cancel", fmt.Sprintf(`"taskId":%q`, id)},
		{"tasks/update", fmt.Sprintf(`"taskId":%q,"inputResponses":{}`, id)},
	} {
		if r := f.post(m.method, id, m.params, ""); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, "task not found") {
			t.Errorf("%s of another principal's task: %s %+v, want -32602 task not found", m.method, r.Result, r.Error)
		}
	}
	f.token = "alice"
	f.await(id, TaskWorking) // mallory's cancel did nothing
	guess := newTaskID()
	if _, r := f.get(guess); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("tasks/get of a guessed id: %+v, want -32602", r.Error)
	}
}

func TestTaskHeadersAndCapability(t *testing.T) {
	f := newTaskFixture(t, nil)
	id := f.start("gated")
	if r := f.post("tasks/get", "other", fmt.Sprintf(`"taskId":%q`, id), ""); r.Error == nil || r.Error.Code != mcp.CodeHeaderMismatch {
		t.Errorf("tasks/get with Mcp-Name not the task id: %+v, want -32020", r.Error)
	}
	if r := f.post("tasks/get", "", fmt.Sprintf(`"taskId":%q`, id), ""); r.Error == nil || r.Error.Code != mcp.CodeHeaderMismatch {
		t.Errorf("tasks/get without Mcp-Name: %+v, want -32020", r.Error)
	}
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		r := f.post(method, id, fmt.Sprintf(`"taskId":%q,"inputResponses":{}`, id), meta)
		if r.Error == nil || r.Error.Code != mcp.CodeMissingRequiredClientCapabilities {
			t.Errorf("%s without the extension: %+v, want -32021", method, r.Error)
		}
	}
	// Without the extension, an optional task tool runs in the request; a
	// required one is refused before it runs.
	before := f.runs.Load()
	r := f.post("tools/call", "quick", `"name":"quick","arguments":{}`, meta)
	if r.Error != nil || strings.Contains(string(r.Result), `"taskId"`) || !strings.Contains(string(r.Result), `"done"`) {
		t.Errorf("optional task tool without the extension: %s %+v, want a plain result", r.Result, r.Error)
	}
	r = f.post("tools/call", "required", `"name":"required","arguments":{}`, meta)
	if r.Error == nil || r.Error.Code != mcp.CodeMissingRequiredClientCapabilities {
		t.Fatalf("required task tool without the extension: %s %+v, want -32021", r.Result, r.Error)
	}
	var data struct {
		RequiredCapabilities struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"requiredCapabilities"`
	}
	if json.Unmarshal(r.Error.Data, &data); data.RequiredCapabilities.Extensions[TasksExtension] == nil {
		t.Errorf("-32021 data %s does not name the extension", r.Error.Data)
	}
	if n := f.runs.Load() - before; n != 1 {
		t.Errorf("%d executions, want 1 (the optional tool's; the refused one must not run)", n)
	}
}

func TestTaskStorePerPrincipalBound(t *testing.T) {
	f := newTaskFixture(t, &TaskOptions{Store: NewMemoryTaskStore(2)})
	f.start("gated")
	f.start("gated") // N = 2 passes
	r := f.post("tools/call", "gated", `"name":"gated","arguments":{}`, "")
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInternalError || !strings.Contains(r.Error.Message, "too many tasks") {
		t.Fatalf("a third task with a bound of 2: %s %+v, want -32603 too many tasks", r.Result, r.Error)
	}
	f.token = "bob" // another principal has a bound of its own
	f.start("gated")
	// The refused call ran nothing: at most the three accepted tasks have
	// run (each starts on its own goroutine, so some may not have yet).
	if n := f.runs.Load(); n > 3 {
		t.Errorf("%d executions, want at most the 3 accepted tasks'", n)
	}
}

func TestTaskExpires(t *testing.T) {
	f := newTaskFixture(t, &TaskOptions{TTL: 50 * time.Millisecond})
	id := f.start("gated")
	for {
		_, r := f.get(id)
		if r.Error != nil {
			if r.Error.Code != jsonrpc.CodeInvalidParams {
				t.Fatalf("tasks/get of an expired task: %+v, want -32602", r.Error)
			}
			break
		}
		select {
		case <-f.ctx.Done():
			t.Fatal("the task did not expire within the test's deadline")
		case <-time.After(5 * time.Millisecond):
		}
	}
	f.s.Close() // returns: the expired task's handler saw its context end
}

func TestMemoryTaskStoreBounds(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	st := NewMemoryTaskStore(3)
	for i := range 3 {
		if err := st.Create(ctx, &Task{ID: fmt.Sprint(i), Principal: "p", Expires: now.Add(time.Hour)}); err != nil {
			t.Fatalf("task %d of 3: %v", i+1, err)
		}
	}
	if err := st.Create(ctx, &Task{ID: "3", Principal: "p", Expires: now.Add(time.Hour)}); !errors.Is(err, ErrTooManyTasks) {
		t.Fatalf("task 4 of a bound of 3: %v, want ErrTooManyTasks", err)
	}
	if got, err := st.Get(ctx, "p", "0"); err != nil || got.ID != "0" {
		t.Errorf("the principal's own task: %+v, %v", got, err)
	}
	if _, err := st.Get(ctx, "q", "0"); !errors.Is(err, ErrTaskNotFound) {
		t.Errorf("another principal's Get: %v, want ErrTaskNotFound", err)
	}
	if _, err := st.Update(ctx, "q", "0", func(*Task) error { return nil }); !errors.Is(err, ErrTaskNotFound) {
		t.Errorf("another principal's Update: %v, want ErrTaskNotFound", err)
	}
	// An expired task is not found and frees its place.
	past := NewMemoryTaskStore(1)
	past.Create(ctx, &Task{ID: "old", Principal: "p", Expires: now.Add(-time.Millisecond)})
	if _, err := past.Get(ctx, "p", "old"); !errors.Is(err, ErrTaskNotFound) {
		t.Errorf("an expired task's Get: %v, want ErrTaskNotFound", err)
	}
	if err := past.Create(ctx, &Task{ID: "new", Principal: "p", Expires: now.Add(time.Hour)}); err != nil {
		t.Errorf("a task in the place of an expired one: %v", err)
	}
}

func TestTaskIDsAreUnguessable(t *testing.T) {
	seen := make(map[string]bool)
	for range 1000 {
		id := newTaskID()
		if len(id) != 22 || seen[id] { // 128 bits, base64url without padding
			t.Fatalf("task id %q (of length %d) is short or repeats", id, len(id))
		}
		seen[id] = true
	}
}

func TestRegisterTaskToolNeedsTasks(t *testing.T) {
	s := newServer(t, "plain", "v0", nil)
	err := s.RegisterTaskTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }, nil)
	if !errors.Is(err, ErrInvalidDefinition) {
		t.Errorf("RegisterTaskTool without Options.Tasks: %v, want ErrInvalidDefinition", err)
	}
}

func TestTaskUpdateRefusedUnlessInputRequired(t *testing.T) {
	f := newTaskFixture(t, nil)
	id := f.start("gated")
	f.await(id, TaskWorking)
	r := f.post("tasks/update", id, fmt.Sprintf(`"taskId":%q,"inputResponses":{}`, id), "")
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("tasks/update of a working task: %s %+v, want -32602", r.Result, r.Error)
	}
	f.post("tasks/cancel", id, fmt.Sprintf(`"taskId":%q`, id), "")
	r = f.post("tasks/update", id, fmt.Sprintf(`"taskId":%q,"inputResponses":{}`, id), "")
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("tasks/update of a cancelled task: %s %+v, want -32602", r.Result, r.Error)
	}
	if d := f.await(id, TaskCancelled); d.Status != TaskCancelled {
		t.Errorf("after an update, the cancelled task is %s", d.Status)
	}
}

func TestTaskInputFirstBecomesTaskOnContinuation(t *testing.T) {
	f := newTaskFixture(t, nil)
	noArgs := json.RawMessage(`{"type":"object"}`)
	err := f.s.RegisterTaskTool(&mcp.Tool{Name: "askfirst", InputSchema: noArgs}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		f.runs.Add(1)
		if r, ok := ElicitResponse(req.Params.InputResponses, "name"); ok {
			return textResult(fmt.Sprintf("hello %v", r.Content["name"])), nil
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "Name?", RequestedSchema: map[string]any{"type": "object"}}}}, nil
	}, &TaskToolOptions{Required: true, InputFirst: true})
	if err != nil {
		t.Fatal(err)
	}
	r := f.post("tools/call", "askfirst", `"name":"askfirst","arguments":{}`, "")
	var round1 struct {
		ResultType   string `json:"resultType"`
		TaskID       string `json:"taskId"`
		RequestState string `json:"requestState"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &round1) != nil || round1.ResultType != "input_required" || round1.TaskID != "" {
		t.Fatalf("round 1: %s %+v, want an input-required result and no task", r.Result, r.Error)
	}
	r = f.post("tools/call", "askfirst", fmt.Sprintf(`"name":"askfirst","arguments":{},"inputResponses":{"name":{"action":"accept","content":{"name":"Ada"}}},"requestState":%q`, round1.RequestState), "")
	var round2 struct {
		ResultType   string `json:"resultType"`
		TaskID       string `json:"taskId"`
		RequestState *string
	}
	if r.Error != nil || json.Unmarshal(r.Result, &round2) != nil || round2.ResultType != "task" || round2.TaskID == "" || strings.Contains(string(r.Result), "requestState") {
		t.Fatalf("round 2: %s %+v, want a task and no requestState", r.Result, r.Error)
	}
	d := f.await(round2.TaskID, TaskCompleted)
	if d.Result == nil || d.Result.Content[0].Text != "hello Ada" {
		t.Errorf("the task's result: %+v", d.Result)
	}
	if n := f.runs.Load(); n != 2 {
		t.Errorf("%d executions for two rounds, want 2", n)
	}
}

func TestTaskInputNeedsCapability(t *testing.T) {
	f := newTaskFixture(t, nil)
	noArgs := json.RawMessage(`{"type":"object"}`)
	err := f.s.RegisterTaskTool(&mcp.Tool{Name: "sample", InputSchema: noArgs}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageParams
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"q": &mcp.CreateMessageParams{MaxTokens: 1}}}, nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// taskMeta declares elicitation, not sampling.
	d := f.await(f.start("sample"), TaskFailed)
	if d.Error == nil || d.Error.Code != mcp.CodeMissingRequiredClientCapabilities {
		t.Errorf("a task asking for sampling of a client without it: %+v, want failed with -32021", d.Error)
	}
}

func TestServerCloseEndsTasks(t *testing.T) {
	f := newTaskFixture(t, nil)
	id := f.start("gated")
	f.await(id, TaskWorking)
	if err := f.s.Close(); err != nil { // returns once the gated handler saw its context end
		t.Fatal(err)
	}
	if d, _ := f.get(id); d.Status != TaskCancelled {
		t.Errorf("a task running at Close is %s, want cancelled", d.Status)
	}
	r := f.post("tools/call", "gated", `"name":"gated","arguments":{}`, "")
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInternalError {
		t.Errorf("a task tool after Close: %s %+v, want -32603", r.Result, r.Error)
	}
}

// On a server with tasks, a call that runs in the request streams as on
// any server: its progress reaches the client while the tool still runs,
// so that the client can act on it (cancel it, among others) — a call of
// a task tool whose client did not declare the extension, and a call of
// any other tool. A response held until the tool's end (as a task tool's
// is until its handler decides) would keep the progress until the tool
// returned, and a cancel that waits for it would never come.
func TestCallsStreamOnATaskServer(t *testing.T) {
	for _, task := range []bool{true, false} {
		name := map[bool]string{true: "a task tool run in the request", false: "any other tool"}[task]
		t.Run(name, func(t *testing.T) { callStreams(t, task) })
	}
}

func callStreams(t *testing.T, task bool) {
	f := newTaskFixture(t, nil)
	returned := make(chan struct{})
	slow := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		defer close(returned)
		req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: 1, Message: "started"})
		<-ctx.Done() // until the client goes
		return nil, ctx.Err()
	}
	tool := &mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)}
	var err error
	if task {
		err = f.s.RegisterTaskTool(tool, slow, nil)
	} else {
		err = f.s.RegisterTool(tool, slow)
	}
	if err != nil {
		t.Fatal(err)
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"v0"},"progressToken":"p1"}`
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow",` + meta + `}}`
	ctx, cancel := context.WithCancel(f.ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.ts.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "slow", "Authorization": "Bearer alice"} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for !strings.Contains(sc.Text(), "notifications/progress") {
		if !sc.Scan() {
			t.Fatalf("the stream ended, or the test's deadline passed (%v), before the tool's progress came", sc.Err())
		}
	}
	select {
	case <-returned:
		t.Fatal("the progress came after the tool returned")
	default:
	}
	cancel()
	select {
	case <-returned:
	case <-f.ctx.Done():
		t.Fatal("the tool did not end when the client went")
	}
}
