package client_test

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/testkit"
)

// failing is an http.Handler in front of a go-sdk handler that fails the
// POSTs of one method whose number (from 1, counting that method's POSTs)
// fail says, before they reach the server: with status (a 503, say), or,
// with status 0, by closing the connection before any reply.
type failing struct {
	next   http.Handler
	method string
	fail   func(n int) bool
	status int

	mu sync.Mutex // guards n
	n  int
}

func (f *failing) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !bytes.Contains(readBody(r), []byte(`"method":"`+f.method+`"`)) {
		f.next.ServeHTTP(w, r)
		return
	}
	f.mu.Lock()
	f.n++
	hit := f.fail(f.n)
	f.mu.Unlock()
	switch {
	case !hit:
		f.next.ServeHTTP(w, r)
	case f.status != 0:
		http.Error(w, http.StatusText(f.status), f.status)
	default:
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}
}

func posts(rec *recorder, method string) int {
	n := 0
	for _, p := range rec.all() {
		if p.Method == method {
			n++
		}
	}
	return n
}

// A poll that fails before the server answered it, with a 503 or a
// connection closed before any reply, is polled again: a poll is a read.
// The k-th of a task's polls fails; the task, which completes at its third
// answered poll, still completes, the tool ran once, the server answered 3
// polls and the client sent 4.
func TestTaskFailedPollIsPolledAgain(t *testing.T) {
	for _, via := range []string{"http", "http json"} {
		for _, status := range []int{http.StatusServiceUnavailable, 0} {
			for _, k := range []int{1, 2, 3} {
				t.Run(via+"/"+strconv.Itoa(status)+"/"+strconv.Itoa(k), func(t *testing.T) {
					p := newTaskPeer()
					c, rec := connectTasks(t, via, p, true, fastPolls, nil, func(h http.Handler) http.Handler {
						return &failing{next: h, method: "tasks/get", status: status, fail: func(n int) bool { return n == k }}
					})
					res, err := c.CallTool(testkit.Context(t), "job", map[string]any{"polls": 3, "hint": 1})
					if err != nil {
						t.Fatal(err)
					}
					if got := textOf(res); got != "done job" {
						t.Errorf("result %q, want %q", got, "done job")
					}
					if diff := cmp.Diff(counts{Execs: map[string]int{"job": 1}, Gets: 3}, p.counts()); diff != "" {
						t.Errorf("server counts mismatch (-want +got):\n%s", diff)
					}
					if got := posts(rec, "tasks/get"); got != 4 {
						t.Errorf("%d tasks/get POSTs, want 4", got)
					}
				})
			}
		}
	}
}

// Failed polls count against Limits.MaxTaskPolls, at its edge: with every
// other poll answered 503, a task that completes at its second answered
// poll completes with MaxTaskPolls 4 (polls 1 and 3 failed) and fails with
// ReasonTaskPolls at 3, after 3 POSTs. When every poll fails, the bound's
// error holds the last poll's failure, classified.
func TestTaskFailedPollsCountAgainstTheBound(t *testing.T) {
	odd := func(n int) bool { return n%2 == 1 }
	for _, tc := range []struct {
		name      string
		max       int
		fail      func(int) bool
		wantErr   bool
		wantGets  int
		wantPosts int
	}{
		{"completes at the edge", 4, odd, false, 2, 4},
		{"one poll short", 3, odd, true, 1, 3},
		{"every poll fails", 3, func(int) bool { return true }, true, 0, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := fastPolls
			l.MaxTaskPolls = tc.max
			p := newTaskPeer()
			c, rec := connectTasks(t, "http", p, true, l, nil, func(h http.Handler) http.Handler {
				return &failing{next: h, method: "tasks/get", status: http.StatusServiceUnavailable, fail: tc.fail}
			})
			_, err := c.CallTool(testkit.Context(t), "job", map[string]any{"polls": 2, "hint": 1})
			want := counts{Execs: map[string]int{}, Gets: tc.wantGets}
			if tc.wantErr {
				assertClass(t, err, client.ClassPolicy, &client.ReasonError{Reason: client.ReasonTaskPolls})
				assertClass(t, err, client.ClassPolicy, client.ErrTaskTimeout) // the sentinel it folded into
				want.Cancels = 1
			} else {
				if err != nil {
					t.Fatal(err)
				}
				want.Execs["job"] = 1
			}
			if diff := cmp.Diff(want, p.counts()); diff != "" {
				t.Errorf("server counts mismatch (-want +got):\n%s", diff)
			}
			if got := posts(rec, "tasks/get"); got != tc.wantPosts {
				t.Errorf("%d tasks/get POSTs, want %d", got, tc.wantPosts)
			}
			if tc.name == "every poll fails" && !strings.Contains(err.Error(), http.StatusText(http.StatusServiceUnavailable)) {
				t.Errorf("error %q does not say the last poll's failure", err)
			}
		})
	}
}

// A tasks/update that fails is not sent again, as a call is not: answered
// 503 (ClassServer) or cut before any reply (ClassTransport, outcome
// unknown), the call fails with an error naming the task, and tasks/update was POSTed once; the task is not
// cancelled (the server may have taken the answer).
func TestTaskFailedUpdateNotResent(t *testing.T) {
	for _, tc := range []struct {
		status int
		class  client.FailureClass
		target error
	}{
		{http.StatusServiceUnavailable, client.ClassServer, nil},
		{0, client.ClassTransport, client.ErrOutcomeUnknown},
	} {
		status := tc.status
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			p, a := newTaskPeer(), &asker{}
			c, rec := connectTasks(t, "http", p, true, fastPolls, a.handlers(), func(h http.Handler) http.Handler {
				return &failing{next: h, method: "tasks/update", status: status, fail: func(int) bool { return true }}
			})
			_, err := c.CallTool(testkit.Context(t), "ask", map[string]any{"hint": 1})
			assertClass(t, err, tc.class, tc.target)
			var te *client.TaskError
			if !errors.As(err, &te) || te.ID != "task-1" {
				t.Errorf("error %v holds no *TaskError for task-1", err)
			}
			if got := posts(rec, "tasks/update"); got != 1 {
				t.Errorf("%d tasks/update POSTs, want 1", got)
			}
			if got := p.counts(); got.Updates != 0 || got.Cancels != 0 {
				t.Errorf("server counted %+v, want no update (it never reached it) and no cancel", got)
			}
		})
	}
}

// Failed polls count against Limits.TaskTimeout too: with every poll
// answered 503, 100ms apart, a bound of 299ms ends the wait after two
// POSTs with ErrTaskTimeout, holding the last poll's failure.
func TestTaskFailedPollsCountAgainstTheTimeout(t *testing.T) {
	p := newTaskPeer()
	c, rec := connectTasks(t, "http", p, true, client.Limits{TaskPollMin: time.Millisecond, TaskTimeout: 299 * time.Millisecond}, nil,
		func(h http.Handler) http.Handler {
			return &failing{next: h, method: "tasks/get", status: http.StatusServiceUnavailable, fail: func(int) bool { return true }}
		})
	client.SetFakeTaskClock(c)
	_, err := c.CallTool(testkit.Context(t), "job", map[string]any{"polls": 3, "hint": 100})
	assertClass(t, err, client.ClassTimeout, client.ErrTaskTimeout)
	if !strings.Contains(err.Error(), http.StatusText(http.StatusServiceUnavailable)) {
		t.Errorf("error %q does not say the last poll's failure", err)
	}
	if got := posts(rec, "tasks/get"); got != 2 {
		t.Errorf("%d tasks/get POSTs, want 2", got)
	}
	if diff := cmp.Diff(counts{Execs: map[string]int{}, Cancels: 1}, p.counts()); diff != "" {
		t.Errorf("server counts mismatch (-want +got):\n%s", diff)
	}
}
