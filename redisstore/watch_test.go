package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/server"
)

// watched collects what a watch is told.
func watched() (chan server.TaskStatus, func(*server.Task)) {
	ch := make(chan server.TaskStatus, 64)
	return ch, func(t *server.Task) { ch <- t.Status }
}

// statuses reads n statuses from ch, with the test's deadline.
func statuses(t *testing.T, ch chan server.TaskStatus, n int) []server.TaskStatus {
	t.Helper()
	var got []server.TaskStatus
	for range n {
		select {
		case s := <-ch:
			got = append(got, s)
		case <-testkit.Context(t).Done():
			t.Fatalf("told %v, then nothing before the test's deadline; want %d", got, n)
		}
	}
	return got
}

// newTask creates a working task id of alice through s.
func newTask(t *testing.T, s *TaskStore, id string) {
	t.Helper()
	now := time.Now()
	if err := s.Create(testkit.Context(t), &server.Task{ID: id, Principal: "alice", Tool: "x", Status: server.TaskWorking, Created: now, Updated: now, Expires: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
}

// setStatus gives the task id of alice the status st through s.
func setStatus(t *testing.T, s *TaskStore, id string, st server.TaskStatus) {
	t.Helper()
	if _, err := s.Update(testkit.Context(t), "alice", id, func(tk *server.Task) error { tk.Status = st; return nil }); err != nil {
		t.Fatal(err)
	}
}

// A change made at one replica is told to the watches of the task at
// another, each change once and in order; a write that keeps the status is
// not told, nor is a change of another task. Two watches of one task share
// one subscription, which the last stop ends.
func TestTaskStoreWatch(t *testing.T) {
	r := startRedis(t, false)
	ctx := testkit.Context(t)
	a, b := NewTaskStore(r.client(t), nil), NewTaskStore(r.client(t), nil)
	t.Cleanup(func() { a.Close(); b.Close() })
	newTask(t, a, "t1")
	newTask(t, a, "t2")
	ch1, f1 := watched()
	ch2, f2 := watched()
	other, fo := watched()
	stop1, err := b.WatchTask(ctx, "t1", f1)
	if err != nil {
		t.Fatal(err)
	}
	stop2, err := b.WatchTask(ctx, "t1", f2)
	if err != nil {
		t.Fatal(err)
	}
	stopO, err := b.WatchTask(ctx, "t2", fo)
	if err != nil {
		t.Fatal(err)
	}
	defer stopO()
	subs := func() int64 {
		n, err := r.client(t).PubSubShardNumSub(ctx, b.statusChannel("t1")).Result()
		if err != nil {
			t.Fatal(err)
		}
		return n[b.statusChannel("t1")]
	}
	if n := subs(); n != 1 {
		t.Errorf("%d subscriptions to t1's channel for two watches at one replica; want 1", n)
	}
	want := []server.TaskStatus{server.TaskInputRequired, server.TaskWorking, server.TaskInputRequired, server.TaskWorking, server.TaskCompleted}
	for i, st := range want {
		setStatus(t, a, "t1", st)
		if i == 1 { // the same status, other answers: not a status change
			if _, err := a.Update(ctx, "alice", "t1", func(tk *server.Task) error {
				tk.Answers = map[string]json.RawMessage{"k": json.RawMessage(`{}`)}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, ch := range []chan server.TaskStatus{ch1, ch2} {
		if diff := cmp.Diff(want, statuses(t, ch, len(want))); diff != "" {
			t.Errorf("statuses told (-want +got):\n%s", diff)
		}
	}
	// The last change above reached b after the others: nothing more is
	// queued, for either watch or for t2's.
	if n := len(ch1) + len(ch2) + len(other); n != 0 {
		t.Errorf("%d more told; want none", n)
	}
	stop1()
	if n := subs(); n != 1 {
		t.Errorf("%d subscriptions after one of two watches stopped; want 1", n)
	}
	stop2()
	testkit.Poll(t, "t1's channel to have no subscriber once both watches stopped", func() bool { return subs() == 0 })
}

// While Redis is down a watch is refused with ErrUnavailable at the end of
// its context; once Redis is back, watches resume without a new store.
func TestTaskStoreWatchFaults(t *testing.T) {
	r := startRedis(t, false)
	ctx := testkit.Context(t)
	s := NewTaskStore(r.client(t), nil)
	t.Cleanup(func() { s.Close() })
	newTask(t, s, "t1")
	ch, f := watched()
	stop, err := s.WatchTask(ctx, "t1", f)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	r.kill()
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := s.WatchTask(short, "t2", func(*server.Task) {}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("WatchTask with Redis stopped: %v, want ErrUnavailable", err)
	}
	if err := r.start(); err != nil {
		t.Fatal(err)
	}
	newTask(t, s, "t1") // a Redis without persistence restarts empty
	flip := []server.TaskStatus{server.TaskInputRequired, server.TaskWorking}
	i := 0
	testkit.Poll(t, "a change told to the watch made before Redis restarted", func() bool {
		setStatus(t, s, "t1", flip[i%2])
		i++
		return len(ch) > 0
	})
}
