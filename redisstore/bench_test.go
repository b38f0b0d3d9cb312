package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/looprig/mcp/server"
)

// BenchmarkFleet serves clients × calls, each call a continuation (an
// input round in the request) and a task with an input round, on three
// replicas on Redis behind a round-robin proxy and on one replica on the
// memory stores, in the same run. It reports calls/s, the p50 and p99 of
// each operation, and for Redis the round trips of each request kind.
func BenchmarkFleet(b *testing.B) {
	for _, side := range []struct {
		name string
		o    *fleetOptions
	}{{"redis-3-replicas", nil}, {"memory-1-replica", &fleetOptions{Memory: true}}} {
		b.Run(side.name, func(b *testing.B) {
			f := newFleet(b, side.o)
			b.SetParallelism(8) // 16 clients on 2 CPUs
			var mu sync.Mutex
			var conts, tasks []time.Duration
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				ctx := context.Background()
				var c, k []time.Duration
				for pb.Next() {
					t0 := time.Now()
					if err := f.continuation(ctx); err != nil {
						b.Error(err)
						return
					}
					t1 := time.Now()
					if err := f.taskRound(ctx); err != nil {
						b.Error(err)
						return
					}
					c, k = append(c, t1.Sub(t0)), append(k, time.Since(t1))
				}
				mu.Lock()
				conts, tasks = append(conts, c...), append(tasks, k...)
				mu.Unlock()
			})
			elapsed := time.Since(start)
			b.StopTimer()
			b.ReportMetric(float64(len(conts))/elapsed.Seconds(), "calls/s")
			reportPercentiles(b, "cont", conts)
			reportPercentiles(b, "task", tasks)
			if f.redis != nil {
				f.reportTrips(b)
			}
		})
	}
}

func reportPercentiles(b *testing.B, name string, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	at := func(p float64) float64 { return float64(d[int(p*float64(len(d)-1))]) / 1e6 }
	b.ReportMetric(at(0.50), name+"-p50-ms")
	b.ReportMetric(at(0.99), name+"-p99-ms")
}

// continuation asks at the next replica and continues at the one after.
func (f *fleet) continuation(ctx context.Context) error {
	r, err := f.call(ctx, "", "alice", "tools/call", "confirm", `"name":"confirm","arguments":{}`)
	if err != nil {
		return err
	}
	var a asked
	if r.Error != nil || json.Unmarshal(r.Result, &a) != nil || a.RequestState == "" {
		return fmt.Errorf("confirm at %s: %s %+v", r.By, r.Result, r.Error)
	}
	params := fmt.Sprintf(`"name":"confirm","arguments":{},"inputResponses":{"ok":{"action":"accept","content":{"ok":true}}},"requestState":%q`, a.RequestState)
	if r, err = f.call(ctx, "", "alice", "tools/call", "confirm", params); err != nil {
		return err
	} else if !accepted(r) {
		return fmt.Errorf("continuation at %s: %s %+v", r.By, r.Result, r.Error)
	}
	return nil
}

// taskRound starts the task tool ask, polls it to input_required, answers
// it and polls it to completed, each request at the next replica. Each
// client is a principal of its own, within the bound of tasks.
func (f *fleet) taskRound(ctx context.Context) error {
	principal := fmt.Sprintf("p%d", f.n.Add(1))
	id, err := f.startTask(ctx, principal, "ask")
	if err != nil {
		return err
	}
	if err := f.poll(ctx, principal, id, server.TaskInputRequired); err != nil {
		return err
	}
	r, err := f.call(ctx, "", principal, "tasks/update", id, fmt.Sprintf(`"taskId":%q,"inputResponses":{"ok":{"action":"accept","content":{"ok":true}}}`, id))
	if err != nil {
		return err
	} else if r.Error != nil {
		return fmt.Errorf("tasks/update at %s: %+v", r.By, r.Error)
	}
	return f.poll(ctx, principal, id, server.TaskCompleted)
}

// poll reads the task every millisecond until its status is want.
func (f *fleet) poll(ctx context.Context, principal, id string, want server.TaskStatus) error {
	_, err := f.pollCount(ctx, principal, id, want)
	return err
}

// pollCount is poll, and returns the polls it sent.
func (f *fleet) pollCount(ctx context.Context, principal, id string, want server.TaskStatus) (int, error) {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for n := 1; ; n++ {
		r, err := f.call(ctx, "", principal, "tasks/get", id, fmt.Sprintf(`"taskId":%q`, id))
		if err != nil {
			return n, err
		}
		var tk task
		if r.Error != nil || json.Unmarshal(r.Result, &tk) != nil {
			return n, fmt.Errorf("tasks/get at %s: %s %+v", r.By, r.Result, r.Error)
		}
		if tk.Status == want {
			return n, nil
		}
		select {
		case <-tick.C:
		case <-deadline:
			return n, errors.New("task " + id + " not " + string(want) + " within 10s")
		}
	}
}

// trips is the round trips to Redis of every replica so far.
func (f *fleet) trips() int64 {
	var n int64
	for _, r := range f.replicas {
		n += r.trips.n.Load()
	}
	return n
}

// reportTrips measures, one request at a time, the round trips to Redis
// of a continuation (its ask round needs none), of a poll, and of a task
// from its start to its completion, polls not counted.
func (f *fleet) reportTrips(b *testing.B) {
	const n = 20
	ctx := context.Background()
	measure := func(op func() (polls int, err error)) (trips, polls float64) {
		var sum, p int64
		for range n {
			before := f.trips()
			k, err := op()
			if err != nil {
				b.Fatal(err)
			}
			sum += f.trips() - before
			p += int64(k)
		}
		return float64(sum) / n, float64(p) / n
	}
	cont, _ := measure(func() (int, error) { return 0, f.continuation(ctx) })
	id, err := f.startTask(ctx, "bench", "quick")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := f.pollCount(ctx, "bench", id, server.TaskCompleted); err != nil {
		b.Fatal(err)
	}
	poll, _ := measure(func() (int, error) { return f.pollCount(ctx, "bench", id, server.TaskCompleted) })
	lifecycle, polls := measure(func() (int, error) {
		id, err := f.startTask(ctx, "bench", "quick")
		if err != nil {
			return 0, err
		}
		return f.pollCount(ctx, "bench", id, server.TaskCompleted)
	})
	b.ReportMetric(cont, "trips/continuation")
	b.ReportMetric(poll, "trips/poll")
	b.ReportMetric(lifecycle-polls*poll, "trips/task")
}

// startTask calls the task tool and returns the task's id.
func (f *fleet) startTask(ctx context.Context, principal, tool string) (string, error) {
	r, err := f.call(ctx, "", principal, "tools/call", tool, fmt.Sprintf(`"name":%q,"arguments":{}`, tool))
	if err != nil {
		return "", err
	}
	var tk task
	if r.Error != nil || json.Unmarshal(r.Result, &tk) != nil || tk.TaskID == "" {
		return "", fmt.Errorf("%s at %s: %s %+v", tool, r.By, r.Result, r.Error)
	}
	return tk.TaskID, nil
}
