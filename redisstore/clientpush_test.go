package redisstore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// taskListener is a client's base round tripper that does what a client
// listening for its tasks does, which this module's client does not: once
// a tools/call starts a task, it opens a subscriptions/listen for the
// task's id and passes the notifications/tasks it reads into the stream
// the client already reads, its list-changed listen. It also sends the
// bearer token of its principal.
type taskListener struct {
	ctx    context.Context // the listens' (a call's own ends with its response)
	base   http.RoundTripper
	token  string
	listen bool // open the listen for each task; false: only the token

	mu     sync.Mutex
	into   *io.PipeWriter // the client's listen stream
	ready  chan struct{}  // closed once into is set
	acked  chan string    // the task ids each listen acknowledged
	tasks  chan string    // the ids of the tasks the client's calls started
	copies sync.WaitGroup
}

func newTaskListener(ctx context.Context, token string, listen bool) *taskListener {
	return &taskListener{ctx: ctx, base: http.DefaultTransport, token: token, listen: listen, ready: make(chan struct{}), acked: make(chan string, 8), tasks: make(chan string, 8)}
}

func (l *taskListener) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+l.token)
	resp, err := l.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	switch req.Header.Get("Mcp-Method") {
	case "subscriptions/listen":
		if !l.listen {
			break
		}
		pr, pw := io.Pipe()
		l.mu.Lock()
		if l.into == nil {
			l.into = pw
			close(l.ready)
		}
		l.mu.Unlock()
		orig := resp.Body
		l.copies.Add(1)
		go func() {
			l.copy(orig, pw, func(string) bool { return true })
			pw.Close() // the client reads the stream's end
		}()
		resp.Body = &joined{PipeReader: pr, orig: orig}
	case "tools/call":
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(b))
		if err != nil {
			return resp, nil
		}
		var created struct {
			Result struct{ ResultType, TaskID string }
		}
		if json.Unmarshal(b, &created) == nil && created.Result.ResultType == "task" {
			l.tasks <- created.Result.TaskID
			if l.listen {
				l.subscribe(req, created.Result.TaskID)
			}
		}
	}
	return resp, nil
}

// joined is the client's listen stream as the client reads it: closing it
// closes the server's.
type joined struct {
	*io.PipeReader
	orig io.Closer
}

func (j *joined) Close() error {
	j.orig.Close()
	return j.PipeReader.Close()
}

// subscribe opens a listen stream for the task id, its pushes copied into
// the client's listen stream.
func (l *taskListener) subscribe(call *http.Request, id string) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":"tasks-%s","method":"subscriptions/listen","params":{"notifications":{"taskIds":[%q]},%s}}`, id, id, taskMeta)
	req, err := http.NewRequestWithContext(l.ctx, http.MethodPost, call.URL.String(), strings.NewReader(body))
	if err != nil {
		return
	}
	for _, k := range []string{"Authorization", "Mcp-Protocol-Version", "Content-Type", "Accept"} {
		req.Header.Set(k, call.Header.Get(k))
	}
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := l.base.RoundTrip(req)
	if err != nil {
		return
	}
	<-l.ready
	l.copies.Add(1)
	go l.copy(resp.Body, l.into, func(event string) bool {
		if strings.Contains(event, "notifications/subscriptions/acknowledged") {
			l.acked <- id
		}
		return strings.Contains(event, `"method":"notifications/tasks"`)
	})
}

// copy writes each event of from that keep accepts to to, whole.
func (l *taskListener) copy(from io.ReadCloser, to *io.PipeWriter, keep func(string) bool) {
	defer l.copies.Done()
	defer from.Close()
	sc := bufio.NewScanner(from)
	sc.Buffer(nil, 1<<20)
	var event strings.Builder
	for sc.Scan() {
		event.WriteString(sc.Text() + "\n")
		if sc.Text() != "" {
			continue
		}
		if e := event.String(); keep(e) {
			l.mu.Lock()
			_, err := io.WriteString(to, e)
			l.mu.Unlock()
			if err != nil {
				return
			}
		}
		event.Reset()
	}
}

// release lets the "held" task of whichever replica runs it end.
func (f *fleet) release(t testing.TB) {
	t.Helper()
	select {
	case f.replicas[0].step <- struct{}{}:
	case f.replicas[1].step <- struct{}{}:
	case f.replicas[2].step <- struct{}{}:
	case <-testkit.Context(t).Done():
		t.Fatal("no replica ran the held task")
	}
}

// gets is the tasks/get requests the fleet served.
func (f *fleet) gets() int64 {
	var n int64
	for _, r := range f.replicas {
		n += r.gets.Load()
	}
	return n
}

// A client.CallTool waiting on a task started at one replica finishes on
// the status pushed through a listen stream held at another, before its
// next scheduled poll: once it has polled (so that its wait has begun) the
// task completes, and it polls once more, at once. Without the listen the
// same call learns it at its next poll, an interval later. The tasks/get
// are counted at the replicas.
func TestClientCallFinishesOnThePush(t *testing.T) {
	const interval = 2 * time.Second // the client's poll interval (TaskPollMax)
	for _, listen := range []bool{true, false} {
		t.Run(fmt.Sprintf("listen=%v", listen), func(t *testing.T) {
			ctx := testkit.Context(t)
			f := newFleet(t, &fleetOptions{PollInterval: time.Hour})
			l := newTaskListener(ctx, "alice", listen)
			tr, err := streamablehttp.New(f.proxy.URL, &streamablehttp.Options{Base: l})
			if err != nil {
				t.Fatal(err)
			}
			c, err := client.Connect(ctx, client.Definition{Name: "fleet", Transport: tr, Tasks: true,
				Limits: client.Limits{TaskPollMin: time.Millisecond, TaskPollMax: interval, TaskTimeout: time.Hour}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close(); l.copies.Wait() })
			done := make(chan error, 1)
			go func() {
				res, err := c.CallTool(ctx, "held", map[string]any{})
				if err == nil {
					if b, _ := json.Marshal(res.Content); !strings.Contains(string(b), "held at") {
						err = fmt.Errorf("result %s, want held at …", b)
					}
				}
				done <- err
			}()
			var id string
			select {
			case id = <-l.tasks:
			case <-ctx.Done():
				t.Fatal("the call started no task")
			}
			if listen {
				select {
				case <-l.acked:
				case <-ctx.Done():
					t.Fatal("the task's listen was never acknowledged")
				}
			}
			testkit.Poll(t, "the client's first poll (its wait has begun)", func() bool { return f.gets() == 1 })
			polled := time.Now()
			f.release(t)
			testkit.Poll(t, "the task completed (read in Redis, not through tasks/get)", func() bool {
				tk, err := f.replicas[0].tasks.Get(ctx, "alice", id)
				return err == nil && tk.Status == server.TaskCompleted
			})
			completed := time.Now()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("CallTool: %v", err)
				}
			case <-ctx.Done():
				t.Fatal("CallTool did not finish")
			}
			took := time.Since(completed)
			if n := f.gets(); n != 2 {
				t.Errorf("%d tasks/get served; want 2 (one before the task completed, one after)", n)
			}
			// The push wakes the wait at once; without it, the wait
			// sleeps its interval. Half the interval parts them with room
			// for a slow machine either side.
			if early := time.Since(polled) < interval/2; early != listen {
				t.Errorf("finished %v after its first poll answered (interval %v); want within half the interval: %v", time.Since(polled).Round(time.Millisecond), interval, listen)
			}
			t.Logf("listen=%v: finished %v after the task completed, %d tasks/get", listen, took.Round(time.Millisecond), f.gets())
		})
	}
}
