package fakeserver

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The fault kinds of the tasks extension (SEP-2663). A tool named by any
// of the per-tool ones runs as a task for a 2026-07-28 client that
// declares the extension (server.RegisterTaskTool): its tools/call is
// answered with the task, and the client polls tasks/get: in process
// ([Server.Factory]), over HTTP and in a stdio child.
//
// A task that never finishes is a task tool with FaultHang as well: it
// stays working until it is cancelled, expires or the fake is closed.
const (
	// FaultTask makes Tool run as an optional task: a client that
	// does not declare the extension gets it run in the request.
	FaultTask FaultKind = "task"
	// FaultTaskRequired makes Tool run only as a task: a client
	// that does not declare the extension gets -32021 before it runs.
	FaultTaskRequired FaultKind = "task-required"
	// FaultTaskFail makes Tool's task fail: status failed, with the
	// JSON-RPC error -32603 and Message (default "scripted task failure").
	FaultTaskFail FaultKind = "task-fail"
	// FaultTaskInput makes Tool's task ask for input once before
	// its reply runs: an elicitation under the key "fakeserver.continue",
	// so that the task is input_required until tasks/update answers it.
	FaultTaskInput FaultKind = "task-input"
	// FaultTaskExpire makes every task expire Delay after it was
	// created (server.TaskOptions.TTL): later polls read it as unknown.
	FaultTaskExpire FaultKind = "task-expire"
	// FaultTaskPollError makes the first Count polls (tasks/get)
	// of each task of Tool fail with -32603, the server busy; later polls
	// are answered.
	FaultTaskPollError FaultKind = "task-poll-error"
)

// continueKey is the key of FaultTaskInput's input request.
const continueKey = "fakeserver.continue"

// isTaskKind reports whether k is a kind of the tasks extension.
func isTaskKind(k FaultKind) bool {
	switch k {
	case FaultTask, FaultTaskRequired, FaultTaskFail, FaultTaskInput, FaultTaskExpire, FaultTaskPollError:
		return true
	}
	return false
}

// taskOptions returns the server's tasks options: nil when no fault of
// the script is a task kind.
func (s *Server) taskOptions() *server.TaskOptions {
	var o *server.TaskOptions
	for _, f := range s.faults {
		if !isTaskKind(f.Kind) {
			continue
		}
		if o == nil {
			o = &server.TaskOptions{Store: &pollStore{s: s, inner: server.NewMemoryTaskStore(0), polls: map[string]int{}}}
		}
		if f.Kind == FaultTaskExpire {
			o.TTL = f.Delay
		}
	}
	return o
}

// taskTool returns how tool runs as a task, if a fault makes it one.
func (s *Server) taskTool(tool string) (*server.TaskToolOptions, bool) {
	var o *server.TaskToolOptions
	for _, f := range s.faults {
		if f.Tool != tool || !isTaskKind(f.Kind) {
			continue
		}
		if o == nil {
			o = &server.TaskToolOptions{}
		}
		if f.Kind == FaultTaskRequired {
			o.Required = true
		}
	}
	return o, o != nil
}

// register publishes a tool of the fake's catalog, as a task tool if a
// fault makes it one.
func (s *Server) register(t *mcp.Tool, h server.ToolHandler) error {
	if o, ok := s.taskTool(t.Name); ok {
		return s.srv.RegisterTaskTool(t, h, o)
	}
	return s.srv.RegisterTool(t, h)
}

// applyTask performs a task fault on a round; done reports that the
// round's outcome is decided.
func (s *Server) applyTask(req *mcp.CallToolRequest, f Fault) (*mcp.CallToolResult, bool, error) {
	switch f.Kind {
	case FaultTaskFail:
		return nil, true, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: f.message("scripted task failure")}
	case FaultTaskInput:
		if _, ok := req.Params.InputResponses[continueKey]; ok {
			return nil, false, nil
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{continueKey: &mcp.ElicitParams{
			Message:         "Continue?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
		}}}, true, nil
	}
	return nil, false, nil
}

// errPollFault is what a poll refused by FaultTaskPollError gets, as
// -32603.
var errPollFault = errors.New("scripted poll failure (task-poll-error)")

// pollStore is the fake's task store: a memory store that counts every
// poll (tasks/get) by tool and fails the polls FaultTaskPollError names.
type pollStore struct {
	s     *Server
	inner server.TaskStore

	// mu guards polls.
	mu    sync.Mutex
	polls map[string]int // by task id
}

func (p *pollStore) Create(ctx context.Context, t *server.Task) error { return p.inner.Create(ctx, t) }

func (p *pollStore) Update(ctx context.Context, principal, id string, change func(*server.Task) error) (*server.Task, error) {
	return p.inner.Update(ctx, principal, id, change)
}

func (p *pollStore) Get(ctx context.Context, principal, id string) (*server.Task, error) {
	t, err := p.inner.Get(ctx, principal, id)
	if err != nil {
		return nil, err
	}
	p.s.countPoll(t.Tool)
	p.mu.Lock()
	p.polls[id]++
	n := p.polls[id]
	p.mu.Unlock()
	for _, f := range p.s.faults {
		if f.Kind == FaultTaskPollError && f.Tool == t.Tool && n <= f.Count {
			return nil, fmt.Errorf("%w: poll %d of %d refused", errPollFault, n, f.Count)
		}
	}
	return t, nil
}

// countPoll records a poll of a task of tool.
func (s *Server) countPoll(tool string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.counts.Polls == nil {
		s.counts.Polls = map[string]int{}
	}
	s.counts.Polls[tool]++
	s.saveCounts()
}

// Polls returns how many times the tasks of tool were polled (tasks/get
// of a task the principal holds), whatever the poll was answered.
func (s *Server) Polls(tool string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts.Polls[tool]
}
