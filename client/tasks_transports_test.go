package client_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server's task tools run as tasks over every way it serves a session,
// not over HTTPHandler alone: Server.Factory (in process) and Server.Serve
// with a transport of the caller's (here the go-sdk's in-memory pair).
// Each way: a task reads as one call that ran once, one that asks for
// input is answered through the Handlers, a required task tool is refused
// to a client that did not opt in (-32021) and runs for one that did, and
// a caller that gives up cancels the task (its handler's context ends).
func TestTasksOverEveryServerTransport(t *testing.T) {
	for _, way := range []string{"Factory", "Serve"} {
		t.Run(way, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			var runs atomic.Int64
			started, cancelled := make(chan struct{}), make(chan struct{})
			s, err := server.New("tasks", "v0", &server.Options{Tasks: &server.TaskOptions{PollInterval: time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			reg := func(name string, opts *server.TaskToolOptions, h server.ToolHandler) {
				err := s.RegisterTaskTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					runs.Add(1)
					return h(ctx, req)
				}, opts)
				if err != nil {
					t.Fatal(err)
				}
			}
			text := func(s string) *mcp.CallToolResult {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
			}
			reg("job", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("done job"), nil })
			reg("must", &server.TaskToolOptions{Required: true}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text("done must"), nil
			})
			reg("ask", nil, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if confirmed(req.Params.InputResponses, "go") {
					return text("done ask"), nil
				}
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"go": confirmRequest("Go on?")}}, nil
			})
			reg("hold", nil, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				close(started)
				<-ctx.Done()
				close(cancelled)
				return nil, ctx.Err()
			})
			connect := func(tasks bool, h *client.Handlers) *client.Client {
				var f transport.Factory = s.Factory()
				if way == "Serve" {
					f = serveFactory{t: t, s: s}
				}
				c, err := client.Connect(ctx, client.Definition{Name: "jobs", Transport: f, Limits: fastPolls, Tasks: tasks}, h)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { c.Close() })
				return c
			}
			a := &asker{}
			c := connect(true, a.handlers())
			for _, tc := range []struct{ tool, want string }{{"job", "done job"}, {"ask", "done ask"}, {"must", "done must"}} {
				task, err := c.StartTool(ctx, tc.tool, nil)
				if err != nil {
					t.Fatalf("StartTool %s: %v", tc.tool, err)
				}
				if task.ID() == "" { // it ran in the request, not as a task
					t.Fatalf("%s: answered at once, not as a task", tc.tool)
				}
				out, err := task.Wait(ctx)
				if err != nil {
					t.Fatalf("%s: %v", tc.tool, err)
				}
				if got := textOf(out); got != tc.want {
					t.Errorf("%s: result %q, want %q", tc.tool, got, tc.want)
				}
			}
			if got := runs.Load(); got != 4 {
				t.Errorf("handlers ran %d times, want 4 (job, ask twice: its two rounds, must)", got)
			}
			if diff := cmp.Diff([]string{"Go on?"}, a.asked()); diff != "" {
				t.Errorf("handler calls mismatch (-want +got):\n%s", diff)
			}
			_, err = connect(false, nil).CallTool(ctx, "must", nil)
			assertClass(t, err, client.ClassPolicy, client.ErrNoHandler)
			if got := runs.Load(); got != 4 {
				t.Errorf("handlers ran %d times, want still 4", got)
			}
			hold, err := c.StartTool(ctx, "hold", nil)
			if err != nil {
				t.Fatalf("StartTool hold: %v", err)
			}
			if hold.ID() == "" {
				t.Fatal("hold: answered at once, not as a task")
			}
			select {
			case <-started:
			case <-ctx.Done():
				t.Fatal("hold's task never ran")
			}
			if err := hold.Cancel(ctx); err != nil {
				t.Fatalf("Cancel: %v", err)
			}
			select {
			case <-cancelled:
			case <-ctx.Done():
				t.Fatal("the task's handler was not cancelled")
			}
		})
	}
}

// serveFactory connects each transport to a session that Server.Serve
// runs over the go-sdk's in-memory transports.
type serveFactory struct {
	t *testing.T
	s *server.Server
}

func (serveFactory) Kind() transport.Kind { return transport.KindInProcess }

func (f serveFactory) Transport() (mcp.Transport, error) {
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.s.Serve(ctx, st) }()
	f.t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			f.t.Errorf("Serve: %v", err)
		}
	})
	return ct, nil
}
