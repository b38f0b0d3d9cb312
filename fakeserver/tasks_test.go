package fakeserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// taskClient speaks the tasks extension to a fake over HTTP, as raw
// 2026-07-28 requests (the client package's own support is apart).
type taskClient struct {
	t   *testing.T
	ctx context.Context
	url string
	n   int
}

const (
	tasksCaps = `{"extensions":{"io.modelcontextprotocol/tasks":{}},"elicitation":{}}`
	noCaps    = `{}`
)

func newTaskClient(t *testing.T, faults ...Fault) (*Server, *taskClient) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	fs, hs := startHTTP(t, nil, faults...)
	return fs, &taskClient{t: t, ctx: ctx, url: hs.URL}
}

type taskReply struct {
	Result struct {
		ResultType    string                     `json:"resultType"`
		TaskID        string                     `json:"taskId"`
		Status        string                     `json:"status"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		Result        *struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
		Error *jsonrpc.Error `json:"error"`
	} `json:"result"`
	Error *jsonrpc.Error `json:"error"`
}

func (c *taskClient) post(method, name, params, caps string) taskReply {
	c.t.Helper()
	c.n++
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s,"io.modelcontextprotocol/clientInfo":{"name":"t","version":"v0"}}}}`, c.n, method, params, caps)
	req, _ := http.NewRequestWithContext(c.ctx, http.MethodPost, c.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	raw := string(b)
	for line := range strings.Lines(raw) {
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data:"); ok {
			raw = d
		}
	}
	var r taskReply
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		c.t.Fatalf("%s: %v in %s", method, err, b)
	}
	return r
}

func (c *taskClient) start(query string) string {
	c.t.Helper()
	r := c.post("tools/call", "lookup", fmt.Sprintf(`"name":"lookup","arguments":{"query":%q}`, query), tasksCaps)
	if r.Error != nil || r.Result.ResultType != "task" || r.Result.TaskID == "" {
		c.t.Fatalf("lookup started no task: %+v %+v", r.Result, r.Error)
	}
	return r.Result.TaskID
}

func (c *taskClient) get(id string) taskReply {
	c.t.Helper()
	return c.post("tasks/get", id, fmt.Sprintf(`"taskId":%q`, id), tasksCaps)
}

// await polls until the task's status is want, and returns the polls made.
func (c *taskClient) await(id, want string) (taskReply, int) {
	c.t.Helper()
	for n := 1; ; n++ {
		r := c.get(id)
		if r.Error == nil && r.Result.Status == want {
			return r, n
		}
		select {
		case <-c.ctx.Done():
			c.t.Fatalf("task %s: %+v %+v when the test's deadline passed, waiting for %s", id, r.Result, r.Error, want)
		case <-time.After(2 * time.Millisecond):
		}
	}
}

func TestTaskFaultCountsPollsApart(t *testing.T) {
	fs, c := newTaskClient(t, Fault{Kind: FaultTask, Tool: "lookup"})
	id := c.start("tasks")
	r, polls := c.await(id, "completed")
	for range 9 {
		c.get(id)
	}
	if r.Result.Result == nil || r.Result.Result.Content[0].Text != "docs: tasks" {
		t.Errorf("result: %+v", r.Result.Result)
	}
	want := Counts{Executions: map[string]int{"lookup": 1}, Rounds: map[string]int{"lookup": 1}, Polls: map[string]int{"lookup": polls + 9}}
	if diff := cmp.Diff(want, fs.Counts()); diff != "" {
		t.Errorf("counts mismatch (-want +got):\n%s", diff)
	}
}

func TestTaskFaults(t *testing.T) {
	t.Run("fail", func(t *testing.T) {
		_, c := newTaskClient(t, Fault{Kind: FaultTaskFail, Tool: "lookup", Message: "disk full"})
		r, _ := c.await(c.start("x"), "failed")
		if e := r.Result.Error; e == nil || e.Code != jsonrpc.CodeInternalError || e.Message != "disk full" || r.Result.Result != nil {
			t.Errorf("failed task: %+v", r.Result)
		}
	})
	t.Run("input", func(t *testing.T) {
		fs, c := newTaskClient(t, Fault{Kind: FaultTaskInput, Tool: "lookup"})
		id := c.start("x")
		r, _ := c.await(id, "input_required")
		if _, ok := r.Result.InputRequests[continueKey]; !ok {
			t.Fatalf("inputRequests: %v", r.Result.InputRequests)
		}
		u := c.post("tasks/update", id, fmt.Sprintf(`"taskId":%q,"inputResponses":{%q:{"action":"accept","content":{}}}`, id, continueKey), tasksCaps)
		if u.Error != nil {
			t.Fatalf("tasks/update: %+v", u.Error)
		}
		c.await(id, "completed")
		if e, r := fs.Counts().Executions["lookup"], fs.Counts().Rounds["lookup"]; e != 1 || r != 2 {
			t.Errorf("%d executions and %d rounds, want 1 and 2", e, r)
		}
	})
	t.Run("poll-error", func(t *testing.T) {
		fs, c := newTaskClient(t, Fault{Kind: FaultTaskPollError, Tool: "lookup", Count: 2})
		id := c.start("x")
		var codes []int64
		for range 3 {
			if r := c.get(id); r.Error != nil {
				codes = append(codes, r.Error.Code)
			} else {
				codes = append(codes, 0)
			}
		}
		if diff := cmp.Diff([]int64{jsonrpc.CodeInternalError, jsonrpc.CodeInternalError, 0}, codes); diff != "" {
			t.Errorf("poll errors mismatch (-want +got):\n%s", diff)
		}
		if n := fs.Polls("lookup"); n != 3 {
			t.Errorf("%d polls counted, want 3", n)
		}
	})
	t.Run("never finishes, then cancelled", func(t *testing.T) {
		fs, c := newTaskClient(t, Fault{Kind: FaultTask, Tool: "lookup"}, Fault{Kind: FaultHang, Tool: "lookup"})
		id := c.start("x")
		// The task's handler runs on its own goroutine: poll until it has
		// begun (and hangs), so that the cancel ends a running execution.
		for polls := 0; polls < 5 || fs.Counts().Executions["lookup"] == 0; polls++ {
			if r := c.get(id); r.Result.Status != "working" {
				t.Fatalf("a hung task: %+v %+v", r.Result, r.Error)
			}
		}
		c.post("tasks/cancel", id, fmt.Sprintf(`"taskId":%q`, id), tasksCaps)
		c.await(id, "cancelled")
		if n := fs.Counts().Executions["lookup"]; n != 1 {
			t.Errorf("%d executions, want 1", n)
		}
	})
}

func TestTaskFaultsExpiryAndRequired(t *testing.T) {
	t.Run("expires", func(t *testing.T) {
		_, c := newTaskClient(t, Fault{Kind: FaultTask, Tool: "lookup"}, Fault{Kind: FaultHang, Tool: "lookup"}, Fault{Kind: FaultTaskExpire, Delay: 20 * time.Millisecond})
		id := c.start("x")
		for {
			r := c.get(id)
			if r.Error != nil {
				if r.Error.Code != jsonrpc.CodeInvalidParams {
					t.Fatalf("an expired task: %+v, want -32602", r.Error)
				}
				break
			}
			select {
			case <-c.ctx.Done():
				t.Fatal("the task did not expire within the test's deadline")
			case <-time.After(2 * time.Millisecond):
			}
		}
	})
	t.Run("required, client without the extension", func(t *testing.T) {
		fs, c := newTaskClient(t, Fault{Kind: FaultTaskRequired, Tool: "lookup"})
		r := c.post("tools/call", "lookup", `"name":"lookup","arguments":{"query":"x"}`, noCaps)
		if r.Error == nil || r.Error.Code != -32021 {
			t.Errorf("tools/call: %+v, want -32021", r.Error)
		}
		if n := fs.Counts().Rounds["lookup"]; n != 0 {
			t.Errorf("the refused call ran %d rounds, want 0", n)
		}
	})
}

func TestParseTaskFaults(t *testing.T) {
	for _, s := range []string{"task@lookup", "task-required@lookup", "task-fail@lookup", "task-fail@lookup:disk full", "task-input@lookup", "task-expire:50ms", "task-poll-error@lookup:3"} {
		f, err := ParseFault(s)
		if err != nil || f.String() != s {
			t.Errorf("ParseFault(%q) = %v, %v; String %q", s, f, err, f.String())
		}
	}
	for _, s := range []string{"task", "task-expire", "task-expire@lookup:1s", "task-poll-error@lookup", "task-poll-error@lookup:0", "task-expire:0s"} {
		if _, err := ParseFault(s); !errors.Is(err, transport.ErrBadFault) {
			t.Errorf("ParseFault(%q): %v, want transport.ErrBadFault", s, err)
		}
	}
}

func TestTaskFaultInStdioChild(t *testing.T) {
	countFile := t.TempDir() + "/counts.json"
	c := startChild(t, nil, "--fault", "task=lookup", "--count-file", countFile)
	out := bufio.NewScanner(c.stdout)
	n := 0
	send := func(method, params string) taskReply {
		t.Helper()
		n++
		fmt.Fprintf(c.stdin, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s,"io.modelcontextprotocol/clientInfo":{"name":"t","version":"v0"}}}}`+"\n", n, method, params, tasksCaps)
		if !out.Scan() {
			t.Fatalf("%s: no reply (stderr: %s)", method, c.stderr)
		}
		var r taskReply
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v in %s", method, err, out.Bytes())
		}
		return r
	}
	r := send("tools/call", `"name":"lookup","arguments":{"query":"child"}`)
	if r.Error != nil || r.Result.ResultType != "task" {
		t.Fatalf("tools/call in a stdio child: %+v %+v, want a task", r.Result, r.Error)
	}
	id := r.Result.TaskID
	polls := 0
	var g taskReply
	testkit.Poll(t, "the child's task to complete", func() bool {
		polls++
		g = send("tasks/get", fmt.Sprintf(`"taskId":%q`, id))
		if g.Error != nil {
			t.Fatalf("tasks/get: %+v", g.Error)
		}
		return g.Result.Status == "completed"
	})
	if g.Result.Result == nil || g.Result.Result.Content[0].Text != "docs: child" {
		t.Errorf("result: %+v", g.Result.Result)
	}
	counts, err := ReadCounts(countFile)
	if err != nil {
		t.Fatal(err)
	}
	want := Counts{Executions: map[string]int{"lookup": 1}, Rounds: map[string]int{"lookup": 1}, Polls: map[string]int{"lookup": polls}}
	if diff := cmp.Diff(want, counts); diff != "" {
		t.Errorf("the child's counts mismatch (-want +got):\n%s", diff)
	}
}
