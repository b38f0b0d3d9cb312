package client_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/testkit"
)

// giveUpBeforeHandle starts CallTool of tool on c, waits until its
// tools/call reached p (which holds the answer), gives up (cancels the
// call's context) and returns once CallTool returned, checking that it
// returned the context's error.
func giveUpBeforeHandle(t *testing.T, c *client.Client, p *taskPeer, tool string) {
	t.Helper()
	ctx, cancel := context.WithCancel(testkit.Context(t))
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, tool, map[string]any{"hint": 1})
		errc <- err
	}()
	deadline := testkit.Context(t)
	select {
	case <-p.arrived:
	case <-deadline.Done():
		t.Fatal("the tools/call never reached the server")
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("CallTool: %v, want context.Canceled", err)
		}
	case <-deadline.Done():
		t.Fatal("CallTool did not return when its caller gave up")
	}
}

// A caller that gives up after its tools/call went out, before the reply
// that creates the task came back, returns at once; the client still takes
// the reply, and cancels the task it names (tasks/cancel) in the
// background, which Close drains. The task ends cancelled at the server,
// which created it once and saw one tools/call: the call was not sent
// again.
func TestTaskCancelledWhenCallerGivesUpBeforeHandle(t *testing.T) {
	for _, via := range taskVias {
		t.Run(via, func(t *testing.T) {
			p := newTaskPeer()
			p.hold = make(chan struct{})
			c, rec := connectTasks(t, via, p, true, fastPolls, nil, nil)
			client.SetLateWait(c, time.Minute) // past the test's deadline: the reply comes when the test releases it
			giveUpBeforeHandle(t, c, p, "forever")
			close(p.hold)
			if err := c.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if got := p.created(); got != 1 {
				t.Errorf("the server created %d tasks, want 1", got)
			}
			if got := p.status("task-1"); got != "cancelled" {
				t.Errorf("task status %q at the server, want cancelled", got)
			}
			want := counts{Execs: map[string]int{}, Cancels: 1}
			if diff := cmp.Diff(want, p.counts()); diff != "" {
				t.Errorf("server counts mismatch (-want +got):\n%s", diff)
			}
			if rec != nil {
				if got := len(callPosts(rec, "forever")); got != 1 {
					t.Errorf("%d tools/call POSTs, want 1", got)
				}
			}
		})
	}
}

// The wait for the reply of a given-up call is bounded: when no reply comes
// within it, the client cancels the request as any other (the server's
// handler sees its context end in-process, its POST is aborted over HTTP),
// and nothing is cancelled or sent again.
func TestTaskGivenUpCallWithoutReplyIsCancelled(t *testing.T) {
	for _, via := range taskVias {
		t.Run(via, func(t *testing.T) {
			p := newTaskPeer()
			p.hold = make(chan struct{})
			defer close(p.hold)
			aborted := make(chan struct{}, 1)
			c, rec := connectTasks(t, via, p, true, fastPolls, nil, func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					// The POST's context ends before its handler returns only
					// when the client aborts it.
					stop := context.AfterFunc(r.Context(), func() {
						select {
						case aborted <- struct{}{}:
						default:
						}
					})
					h.ServeHTTP(w, r)
					stop()
				})
			})
			client.SetLateWait(c, 0)
			giveUpBeforeHandle(t, c, p, "forever")
			cancelled := p.dropped // in-process: the go-sdk's notifications/cancelled
			if rec != nil {
				cancelled = aborted // over HTTP: the POST aborted
			}
			select {
			case <-cancelled:
			case <-testkit.Context(t).Done():
				t.Fatal("the server never saw the call cancelled")
			}
			if err := c.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if diff := cmp.Diff(counts{Execs: map[string]int{}}, p.counts()); diff != "" {
				t.Errorf("server counts mismatch (-want +got):\n%s", diff)
			}
			if rec != nil {
				if got := len(callPosts(rec, "forever")); got != 1 {
					t.Errorf("%d tools/call POSTs, want 1", got)
				}
			}
		})
	}
}

// A caller whose context has ended before the call sends nothing: the
// call's own context outlives the caller's only once it was sent.
func TestTaskCallGivenUpBeforeItWasSent(t *testing.T) {
	for _, via := range taskVias {
		t.Run(via, func(t *testing.T) {
			p := newTaskPeer()
			c, rec := connectTasks(t, via, p, true, fastPolls, nil, nil)
			ctx, cancel := context.WithCancel(testkit.Context(t))
			cancel()
			if _, err := c.CallTool(ctx, "job", map[string]any{"hint": 1}); !errors.Is(err, context.Canceled) {
				t.Fatalf("CallTool: %v, want context.Canceled", err)
			}
			if err := c.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if got := p.created(); got != 0 {
				t.Errorf("the server created %d tasks, want none", got)
			}
			if rec != nil {
				if got := len(callPosts(rec, "job")); got != 0 {
					t.Errorf("%d tools/call POSTs, want none", got)
				}
			}
		})
	}
}
