package hostileclient_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxTasks bounds the tasks of one principal at a target.
const maxTasks = 3

// registerTaskTools adds the task tools of the targets of this module's
// server: job runs as an optional task, which completes at once, or with
// {"wait":true} runs until it is cancelled; onlytask is a required one.
func (tg *target) registerTaskTools(t *testing.T, s *server.Server) {
	t.Helper()
	job := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tg.execs.Add(1)
		if strings.Contains(string(req.Params.Arguments), `"wait":true`) {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	}
	schema := json.RawMessage(`{"type":"object","properties":{"wait":{"type":"boolean"}}}`)
	for _, tl := range []struct {
		name string
		opts *server.TaskToolOptions
	}{{"job", nil}, {"onlytask", &server.TaskToolOptions{Required: true}}} {
		if err := s.RegisterTaskTool(&mcp.Tool{Name: tl.name, InputSchema: schema}, job, tl.opts); err != nil {
			t.Fatal(err)
		}
	}
}

// taskMeta is the _meta of a 2026-07-28 request that declares the tasks
// extension.
const taskMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},"io.modelcontextprotocol/clientInfo":{"name":"hostile","version":"v0"}}`

// startJob calls job as a task and returns the task's id.
func (tg *target) startJob(t *testing.T, wait bool, edit func(*testing.T) func(*http.Request)) string {
	t.Helper()
	args := `{"wait":false}`
	if wait {
		args = `{"wait":true}`
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":` + args + `,` + taskMeta + `}}`
	var e func(*http.Request)
	if edit != nil {
		e = edit(t)
	}
	a := tg.post(t, body, header{"Mcp-Protocol-Version", version26, "Mcp-Method", "tools/call", "Mcp-Name", "job"}, e)
	var r struct {
		Result struct {
			TaskID string `json:"taskId"`
		} `json:"result"`
	}
	json.Unmarshal([]byte(a.body), &r)
	if r.Result.TaskID == "" {
		t.Fatalf("job started no task: %s", a.body)
	}
	return r.Result.TaskID
}

// taskCall is a 2026-07-28 tasks/* request for the task id, with more
// params members, and Mcp-Name name.
func taskCall(method, id, name, more, meta string) (string, header) {
	return `{"jsonrpc":"2.0","id":2,"method":"` + method + `","params":{"taskId":` + quote(id) + more + `,` + meta + `}}`,
		header{"Mcp-Protocol-Version", version26, "Mcp-Method", method, "Mcp-Name", name}
}

func guessedID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

var taskCases = []hostileCase{
	{group: "tasks", name: "task polled 50 times (a poll flood)",
		attack: func(t *testing.T, tg *target) string {
			id := tg.startJob(t, true, nil)
			waitExecs(t, tg, 1)
			tg.mark()
			var last answer
			for range 50 {
				body, hs := taskCall("tasks/get", id, id, "", taskMeta)
				if last = tg.post(t, body, hs, nil); last.String() != "200" {
					break
				}
			}
			return last.String()
		}, want: both("200", 0)},
	{group: "tasks", name: "guessed task id",
		attack: func(t *testing.T, tg *target) string {
			tg.startJob(t, true, nil)
			waitExecs(t, tg, 1)
			tg.mark()
			id := guessedID()
			body, hs := taskCall("tasks/get", id, id, "", taskMeta)
			return tg.post(t, body, hs, nil).String()
		}, want: both("400/-32602", 0)},
	{group: "tasks", name: "another principal's task id", wrap: bearer,
		attack: func(t *testing.T, tg *target) string {
			id := tg.startJob(t, true, func(*testing.T) func(*http.Request) { return as("alice") })
			waitExecs(t, tg, 1)
			tg.mark()
			body, hs := taskCall("tasks/cancel", id, id, "", taskMeta)
			if a := tg.post(t, body, hs, as("bob")); a.String() != "400/-32602" {
				return "bob's cancel: " + a.String()
			}
			body, hs = taskCall("tasks/get", id, id, "", taskMeta)
			a := tg.post(t, body, hs, as("bob"))
			if still := tg.post(t, body, hs, as("alice")); !strings.Contains(still.body, `"working"`) {
				return "alice's task after bob's cancel: " + still.body
			}
			return a.String()
		}, want: both("400/-32602", 0)},
	{group: "tasks", name: "Mcp-Name differing from the task id",
		attack: func(t *testing.T, tg *target) string {
			id := tg.startJob(t, true, nil)
			waitExecs(t, tg, 1)
			tg.mark()
			body, hs := taskCall("tasks/cancel", id, "another-task", "", taskMeta)
			return tg.post(t, body, hs, nil).String()
		}, want: both("400/-32020", 0)},
	{group: "tasks", name: "Mcp-Method differing from tasks/get",
		attack: func(t *testing.T, tg *target) string {
			id := tg.startJob(t, true, nil)
			waitExecs(t, tg, 1)
			tg.mark()
			body, hs := taskCall("tasks/get", id, id, "", taskMeta)
			hs[3] = "tasks/cancel"
			return tg.post(t, body, hs, nil).String()
		}, want: both("400/-32020", 0)},
	{group: "tasks", name: "tasks/get without the extension declared",
		attack: func(t *testing.T, tg *target) string {
			id := tg.startJob(t, true, nil)
			waitExecs(t, tg, 1)
			tg.mark()
			body, hs := taskCall("tasks/get", id, id, "", meta)
			return tg.post(t, body, hs, nil).String()
		}, want: both("400/-32021", 0)},
	{group: "tasks", name: "update of a finished task",
		attack: func(t *testing.T, tg *target) string {
			id := tg.startJob(t, false, nil)
			waitStatus(t, tg, id, "completed")
			tg.mark()
			body, hs := taskCall("tasks/update", id, id, `,"inputResponses":{"x":{"action":"accept","content":{}}}`, taskMeta)
			return tg.post(t, body, hs, nil).String()
		}, want: both("400/-32602", 0)},
	{group: "tasks", name: "a required task tool without the extension",
		attack: func(t *testing.T, tg *target) string {
			body, hs := call26("1", "onlytask", `{}`, "")
			return tg.post(t, body, hs, nil).String()
		}, want: both("400/-32021", 0)},
	{group: "tasks", name: "the store past its bound (3 tasks)",
		attack: func(t *testing.T, tg *target) string {
			for range maxTasks {
				tg.startJob(t, true, nil)
			}
			waitExecs(t, tg, maxTasks)
			tg.mark()
			body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{"wait":true},` + taskMeta + `}}`
			return tg.post(t, body, header{"Mcp-Protocol-Version", version26, "Mcp-Method", "tools/call", "Mcp-Name", "job"}, nil).String()
		}, want: both("200/-32603", 0)},
}

// waitExecs waits until the target's tools have run n times since the
// last mark, so that a task's one execution is counted before the attack.
func waitExecs(t *testing.T, tg *target, n int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for tg.execs.Load()-tg.base < n {
		select {
		case <-ctx.Done():
			t.Fatalf("the task tools ran %d times, not %d, within 10 s", tg.execs.Load()-tg.base, n)
		case <-time.After(time.Millisecond):
		}
	}
}

// waitStatus polls the task id until its status is status.
func waitStatus(t *testing.T, tg *target, id, status string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		body, hs := taskCall("tasks/get", id, id, "", taskMeta)
		if strings.Contains(tg.post(t, body, hs, nil).body, `"status":"`+status+`"`) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("task %s did not reach %s within 10 s", id, status)
		case <-time.After(time.Millisecond):
		}
	}
}
