package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// taskPeer is a go-sdk v1.8.0 server that runs tools as tasks of the tasks
// extension (SEP-2663) with raw method handlers: a tools/call that declares
// the extension in its per-request capabilities is answered with a task
// handle, and tasks/get, tasks/update and tasks/cancel serve it. What
// happens is counted at the server: executions (a tool run to its end,
// synchronously or as a task), polls, updates and cancels, by task.
//
// Its tools, all taking {"polls": n, "hint": ms}:
//   - job: completes ("done job") at its n-th poll (n ≥ 1);
//   - ask: input_required (an elicitation, "Go on?") until a tasks/update
//     answers it, then completes at the next poll;
//   - forever: never completes;
//   - fails: fails at its first poll, with a JSON-RPC error;
//   - toolerr: completes at its first poll with an IsError result;
//   - later: completes at the first poll after release.
type taskPeer struct {
	mu         sync.Mutex // guards the fields below
	next       int
	tasks      map[string]*peerTask
	execs      map[string]int // by tool
	gets       int
	updates    int
	cancels    int
	undeclared int           // tasks/* requests that did not declare the extension
	polled     chan struct{} // receives (without blocking) at each poll
	// arrived receives (without blocking) at each tools/call that declares
	// the extension; hold, if set, holds its answer until it is closed or
	// the request's context ends.
	arrived chan struct{}
	hold    chan struct{}
	dropped chan struct{} // receives (without blocking) when a held call's context ends
	// released, once set, lets the tool later complete at its next poll.
	released bool
}

type peerTask struct {
	id, tool    string
	polls, goal int
	hint        int64
	status      string
	answered    bool
}

type peerArgs struct {
	Polls int   `json:"polls"`
	Hint  int64 `json:"hint"`
}

// peerTaskResult is a CreateTaskResult or a DetailedTask.
type peerTaskResult struct {
	mcp.ResultBase
	ResultType     string              `json:"resultType"`
	TaskID         string              `json:"taskId"`
	Status         string              `json:"status"`
	CreatedAt      string              `json:"createdAt"`
	LastUpdatedAt  string              `json:"lastUpdatedAt"`
	TTLMs          int64               `json:"ttlMs"`
	PollIntervalMs int64               `json:"pollIntervalMs,omitempty"`
	InputRequests  mcp.InputRequestMap `json:"inputRequests,omitempty"`
	Result         *mcp.CallToolResult `json:"result,omitempty"`
	Error          *jsonrpc.Error      `json:"error,omitempty"`
}

type peerAck struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

type peerTaskParams struct {
	mcp.ParamsBase
	TaskID         string          `json:"taskId"`
	InputResponses json.RawMessage `json:"inputResponses,omitempty"`
}

func newTaskPeer() *taskPeer {
	return &taskPeer{tasks: map[string]*peerTask{}, execs: map[string]int{}, polled: make(chan struct{}, 1),
		arrived: make(chan struct{}, 1), dropped: make(chan struct{}, 1)}
}

// server returns a go-sdk server serving the peer's tools.
func (p *taskPeer) server() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "v1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Extensions: map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
	})
	for _, name := range []string{"job", "ask", "forever", "fails", "toolerr", "later"} {
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			p.count(func() { p.execs[name]++ })
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done " + name + " at once"}}}, nil
		})
	}
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" && declared(req.GetParams()) {
				select {
				case p.arrived <- struct{}{}:
				default:
				}
				if p.hold != nil {
					select {
					case <-p.hold:
					case <-ctx.Done():
						select {
						case p.dropped <- struct{}{}:
						default:
						}
						return nil, ctx.Err()
					}
				}
				return p.create(req.GetParams().(*mcp.CallToolParamsRaw))
			}
			return next(ctx, method, req)
		}
	})
	must(mcp.AddReceivingCustomMethod(srv, "tasks/get", func(ctx context.Context, _ *mcp.ServerSession, q *peerTaskParams) (*peerTaskResult, error) {
		return p.get(q)
	}))
	must(mcp.AddReceivingCustomMethod(srv, "tasks/update", func(ctx context.Context, _ *mcp.ServerSession, q *peerTaskParams) (*peerAck, error) {
		return p.update(q)
	}))
	must(mcp.AddReceivingCustomMethod(srv, "tasks/cancel", func(ctx context.Context, _ *mcp.ServerSession, q *peerTaskParams) (*peerAck, error) {
		return p.cancel(q)
	}))
	return srv
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func (p *taskPeer) count(f func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f()
}

// declared reports whether params declare the tasks extension in their
// per-request client capabilities.
func declared(params mcp.Params) bool {
	if params == nil {
		return false
	}
	caps, _ := params.GetMeta()[mcp.MetaKeyClientCapabilities].(map[string]any)
	ext, _ := caps["extensions"].(map[string]any)
	_, ok := ext["io.modelcontextprotocol/tasks"]
	return ok
}

func (p *taskPeer) create(q *mcp.CallToolParamsRaw) (*peerTaskResult, error) {
	var a peerArgs
	_ = json.Unmarshal(q.Arguments, &a)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	t := &peerTask{id: fmt.Sprintf("task-%d", p.next), tool: q.Name, goal: max(a.Polls, 1), hint: a.Hint, status: "working"}
	if t.tool == "ask" {
		t.status = "input_required"
	}
	p.tasks[t.id] = t
	return p.view(t, "task", false), nil
}

// view is t as a result; detailed adds what tasks/get inlines.
func (p *taskPeer) view(t *peerTask, resultType string, detailed bool) *peerTaskResult {
	r := &peerTaskResult{ResultType: resultType, TaskID: t.id, Status: t.status, CreatedAt: "2026-07-28T00:00:00Z",
		LastUpdatedAt: "2026-07-28T00:00:00Z", TTLMs: 60_000, PollIntervalMs: t.hint}
	if !detailed {
		return r
	}
	switch t.status {
	case "completed":
		r.Result = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done " + t.tool}}, IsError: t.tool == "toolerr"}
	case "failed":
		r.Error = &jsonrpc.Error{Code: -32603, Message: "the job broke"}
	case "input_required":
		r.InputRequests = mcp.InputRequestMap{"go": &mcp.ElicitParams{Message: "Go on?", RequestedSchema: confirmSchema}}
	}
	return r
}

func (p *taskPeer) lookup(q *peerTaskParams) (*peerTask, error) {
	if !declared(q) {
		p.undeclared++
		return nil, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: "tasks extension not declared"}
	}
	t, ok := p.tasks[q.TaskID]
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown task " + q.TaskID}
	}
	return t, nil
}

func (p *taskPeer) get(q *peerTaskParams) (*peerTaskResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, err := p.lookup(q)
	if err != nil {
		return nil, err
	}
	p.gets++
	select {
	case p.polled <- struct{}{}:
	default:
	}
	if t.status == "working" {
		t.polls++
		switch {
		case t.tool == "fails":
			t.status = "failed"
		case t.tool == "forever", t.tool == "later" && !p.released:
		case t.tool == "ask" && t.answered, t.tool != "ask" && t.polls >= t.goal:
			t.status = "completed"
			p.execs[t.tool]++
		}
	}
	return p.view(t, "complete", true), nil
}

func (p *taskPeer) update(q *peerTaskParams) (*peerAck, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, err := p.lookup(q)
	if err != nil {
		return nil, err
	}
	p.updates++
	var answers map[string]struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	_ = json.Unmarshal(q.InputResponses, &answers)
	if a, ok := answers["go"]; ok && t.status == "input_required" && a.Action == "accept" && a.Content["confirmed"] == true {
		t.status, t.answered = "working", true
	}
	return &peerAck{ResultType: "complete"}, nil
}

func (p *taskPeer) cancel(q *peerTaskParams) (*peerAck, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, err := p.lookup(q)
	if err != nil {
		return nil, err
	}
	p.cancels++
	if t.status != "completed" && t.status != "failed" {
		t.status = "cancelled"
	}
	return &peerAck{ResultType: "complete"}, nil
}

// counts are what the peer counted.
type counts struct {
	Execs                          map[string]int
	Gets, Updates, Cancels, Undecl int
}

func (p *taskPeer) counts() counts {
	p.mu.Lock()
	defer p.mu.Unlock()
	execs := map[string]int{}
	for k, v := range p.execs {
		execs[k] = v
	}
	return counts{Execs: execs, Gets: p.gets, Updates: p.updates, Cancels: p.cancels, Undecl: p.undeclared}
}

// created returns how many tasks the peer created: tools/call requests
// that declared the extension and were answered.
func (p *taskPeer) created() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.next
}

func (p *taskPeer) status(id string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t, ok := p.tasks[id]; ok {
		return t.status
	}
	return ""
}

func inprocessFactory(p *taskPeer) transport.Factory { return inprocess.New(p.server()) }

// release lets the tool later complete at its next poll.
func (p *taskPeer) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.released = true
}
