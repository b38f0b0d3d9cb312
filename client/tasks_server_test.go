package client_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// taskServer is this module's server with task tools behind HTTPHandler,
// polled every millisecond, and what its handlers saw.
type taskServer struct {
	url       string
	runs      atomic.Int64  // handler entries
	polled    chan struct{} // receives (without blocking) at each tasks/get
	cancelled chan struct{} // closed when "hold" sees its context end
	// calls receives (without blocking) at each tools/call; once
	// holdReplies is set, each tools/call's reply is held until release
	// is closed.
	calls       chan struct{}
	holdReplies atomic.Bool
	release     chan struct{}
}

func newTaskServer(t *testing.T) *taskServer {
	t.Helper()
	ts := &taskServer{polled: make(chan struct{}, 1), cancelled: make(chan struct{}), calls: make(chan struct{}, 1), release: make(chan struct{})}
	s, err := server.New("tasks", "v0", &server.Options{Tasks: &server.TaskOptions{PollInterval: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	reg := func(name string, opts *server.TaskToolOptions, h server.ToolHandler) {
		err := s.RegisterTaskTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ts.runs.Add(1)
			return h(ctx, req)
		}, opts)
		if err != nil {
			t.Fatal(err)
		}
	}
	reg("job", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done job"}}}, nil
	})
	reg("must", &server.TaskToolOptions{Required: true}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done must"}}}, nil
	})
	reg("ask", nil, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if confirmed(req.Params.InputResponses, "go") {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done ask"}}}, nil
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"go": confirmRequest("Go on?")}}, nil
	})
	reg("hold", nil, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		close(ts.cancelled)
		return nil, ctx.Err()
	})
	h, err := s.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := readBody(r)
		if r.Method == http.MethodPost && bytes.Contains(body, []byte(`"method":"tasks/get"`)) {
			select {
			case ts.polled <- struct{}{}:
			default:
			}
		}
		if r.Method == http.MethodPost && bytes.Contains(body, []byte(`"method":"tools/call"`)) {
			select {
			case ts.calls <- struct{}{}:
			default:
			}
			if ts.holdReplies.Load() {
				w = &heldWriter{ResponseWriter: w, release: ts.release}
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { srv.Close(); h.Close(); s.Close() })
	ts.url = srv.URL
	return ts
}

func (ts *taskServer) connect(t *testing.T, tasks bool, h *client.Handlers) *client.Client {
	t.Helper()
	f, err := streamablehttp.New(ts.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(testkit.Context(t), client.Definition{Name: "jobs", Transport: f, Limits: fastPolls, Tasks: tasks}, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Against this module's server: a task tool reads as one call that ran
// once; a task that asks for input is answered through the Handlers
// (tasks/update) and its handler runs once per round; a tool that must run
// as a task is refused to a client that did not opt in (-32021, which is
// ErrNoHandler) and runs for one that did.
func TestTasksWithServer(t *testing.T) {
	ts := newTaskServer(t)
	a := &asker{}
	c := ts.connect(t, true, a.handlers())
	for _, tc := range []struct{ tool, want string }{{"job", "done job"}, {"ask", "done ask"}, {"must", "done must"}} {
		res, err := c.CallTool(testkit.Context(t), tc.tool, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		if got := textOf(res); got != tc.want {
			t.Errorf("%s: result %q, want %q", tc.tool, got, tc.want)
		}
	}
	if got := ts.runs.Load(); got != 4 {
		t.Errorf("handlers ran %d times, want 4 (job, ask twice: its two rounds, must)", got)
	}
	if diff := cmp.Diff([]string{"Go on?"}, a.asked()); diff != "" {
		t.Errorf("handler calls mismatch (-want +got):\n%s", diff)
	}
	_, err := ts.connect(t, false, nil).CallTool(testkit.Context(t), "must", nil)
	assertClass(t, err, client.ClassPolicy, client.ErrNoHandler)
	if got := ts.runs.Load(); got != 4 {
		t.Errorf("handlers ran %d times, want still 4", got)
	}
}

// Against this module's server: a caller that gives up while it polls
// cancels the task, and the handler's context ends.
func TestTaskCancelWithServer(t *testing.T) {
	ts := newTaskServer(t)
	c := ts.connect(t, true, nil)
	ctx, cancel := context.WithCancel(testkit.Context(t))
	go func() {
		select {
		case <-ts.polled:
		case <-ctx.Done():
		}
		cancel()
	}()
	_, err := c.CallTool(ctx, "hold", nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool: %v, want context.Canceled", err)
	}
	select {
	case <-ts.cancelled:
	case <-testkit.Context(t).Done():
		t.Fatal("the task's handler was not cancelled")
	}
}

// heldWriter holds what the handler writes until release is closed.
type heldWriter struct {
	http.ResponseWriter
	release chan struct{}
}

func (w *heldWriter) WriteHeader(status int) {
	<-w.release
	w.ResponseWriter.WriteHeader(status)
}

func (w *heldWriter) Write(p []byte) (int, error) {
	<-w.release
	return w.ResponseWriter.Write(p)
}

func (w *heldWriter) Flush() {
	<-w.release
	http.NewResponseController(w.ResponseWriter).Flush()
}

// Against this module's server: a caller that gives up before the reply
// that creates the task arrives has the task cancelled once the reply
// comes (the handler, run once, sees its context end), and the tools/call
// is not sent again.
func TestTaskGivenUpBeforeHandleWithServer(t *testing.T) {
	ts := newTaskServer(t)
	ts.holdReplies.Store(true)
	c := ts.connect(t, true, nil)
	client.SetLateWait(c, time.Minute) // past the test's deadline: the reply comes when the test releases it
	ctx, cancel := context.WithCancel(testkit.Context(t))
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, "hold", nil)
		errc <- err
	}()
	deadline := testkit.Context(t)
	select {
	case <-ts.calls:
	case <-deadline.Done():
		t.Fatal("the tools/call never reached the server")
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool: %v, want context.Canceled", err)
	}
	close(ts.release)
	select {
	case <-ts.cancelled:
	case <-deadline.Done():
		t.Fatal("the task's handler was not cancelled")
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got := ts.runs.Load(); got != 1 {
		t.Errorf("the handler ran %d times, want 1", got)
	}
	select {
	case <-ts.calls:
		t.Error("the tools/call was sent again")
	default:
	}
}
