package redisstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// refusingListens is a client's base round tripper that sends the
// bearer token of its principal and, when refuse is set, renames the task
// ids of each subscriptions/listen, so that the fleet acknowledges none
// (as a server without status pushes would). It counts the listens.
type refusingListens struct {
	token   string
	refuse  bool
	listens atomic.Int64
	id      atomic.Value // the task id of the last listen, a string
}

func (r *refusingListens) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+r.token)
	if req.Header.Get("Mcp-Method") == "subscriptions/listen" && req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		var p struct {
			Params struct {
				Notifications struct{ TaskIDs []string } `json:"notifications"`
			} `json:"params"`
		}
		if json.Unmarshal(b, &p) == nil && len(p.Params.Notifications.TaskIDs) == 1 {
			r.listens.Add(1)
			r.id.Store(p.Params.Notifications.TaskIDs[0])
			if r.refuse {
				b = bytes.ReplaceAll(b, []byte(`"taskIds":["`), []byte(`"taskIds":["not-`))
			}
		}
		req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	}
	return http.DefaultTransport.RoundTrip(req)
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
// the status pushed through the listen stream the client opened itself,
// whichever replica holds it. The client polls every hour once the fleet
// acknowledged its listen: the task completes once its watch is
// subscribed in Redis, and the client polls once, woken by the push. With
// the listens refused (the ids renamed on the way), the client polls at
// its interval: once before the task completes, once after. The tasks/get
// are counted at the replicas.
func TestClientCallFinishesOnThePush(t *testing.T) {
	for _, listen := range []bool{true, false} {
		t.Run(fmt.Sprintf("listen=%v", listen), func(t *testing.T) {
			ctx := testkit.Context(t)
			f := newFleet(t, &fleetOptions{PollInterval: time.Hour})
			base := &refusingListens{token: "alice", refuse: !listen}
			tr, err := streamablehttp.New(f.proxy.URL, &streamablehttp.Options{Base: base})
			if err != nil {
				t.Fatal(err)
			}
			interval := time.Hour // the client's poll interval (TaskPollMax)
			if !listen {
				interval = 20 * time.Millisecond
			}
			c, err := client.Connect(ctx, client.Definition{Name: "fleet", Transport: tr, Tasks: true, TaskListen: true,
				Limits: client.Limits{TaskPollMin: time.Millisecond, TaskPollMax: interval, TaskTimeout: 2 * time.Hour}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
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
			if listen {
				rc := f.redis.client(t)
				testkit.Poll(t, "the task's status watched in Redis (the listen served)", func() bool {
					id, _ := base.id.Load().(string)
					ch := f.replicas[0].tasks.statusChannel(id)
					n, err := rc.PubSubShardNumSub(ctx, ch).Result()
					return id != "" && err == nil && n[ch] > 0
				})
			} else {
				testkit.Poll(t, "the client's first poll", func() bool { return f.gets() == 1 })
			}
			f.release(t)
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("CallTool: %v", err)
				}
			case <-ctx.Done():
				t.Fatal("CallTool did not finish")
			}
			want := int64(1)
			if !listen {
				want = 2
			}
			if n := f.gets(); n != want {
				t.Errorf("%d tasks/get served; want %d", n, want)
			}
			if n := base.listens.Load(); n != 1 {
				t.Errorf("%d listens for the task; want 1", n)
			}
			t.Logf("listen=%v: %d tasks/get", listen, f.gets())
		})
	}
}
