package server

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
)

// signalStore is a memory TaskStore shared by two servers of one process,
// as a store over shared storage is by replicas: it passes each signal to
// every watcher, unless lose is set.
type signalStore struct {
	TaskStore
	lose bool

	mu       sync.Mutex
	watchers map[int]func(string)
	n        int
	sent     atomic.Int64
}

func newSignalStore(lose bool) *signalStore {
	return &signalStore{TaskStore: NewMemoryTaskStore(0), lose: lose, watchers: make(map[int]func(string))}
}

func (s *signalStore) Signal(_ context.Context, id string) error {
	s.sent.Add(1)
	if s.lose {
		return nil
	}
	s.mu.Lock()
	fs := make([]func(string), 0, len(s.watchers))
	for _, f := range s.watchers {
		fs = append(fs, f)
	}
	s.mu.Unlock()
	for _, f := range fs {
		f(id)
	}
	return nil
}

func (s *signalStore) WatchSignals(f func(string)) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	n := s.n
	s.watchers[n] = f
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.watchers, n)
	}
}

func (s *signalStore) watching() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.watchers)
}

// running is the number of task handlers f's server has not seen return.
func (f *taskFixture) running() int {
	f.s.tasks.mu.Lock()
	defer f.s.tasks.mu.Unlock()
	return len(f.s.tasks.runs)
}

func TestTaskCancelledThroughAnotherServer(t *testing.T) {
	leakcheck.Check(t)
	store := newSignalStore(false)
	a := newTaskFixture(t, &TaskOptions{Store: store})
	b := newTaskFixture(t, &TaskOptions{Store: store})
	id := a.start("gated")
	if r := b.post("tasks/cancel", id, fmt.Sprintf(`"taskId":%q`, id), ""); r.Error != nil {
		t.Fatalf("tasks/cancel at B: %+v", r.Error)
	}
	testkit.Poll(t, "the handler at A to end after tasks/cancel at B", func() bool { return a.running() == 0 })
	// A second cancel acknowledges a task that has ended, and tells no one.
	if r := b.post("tasks/cancel", id, fmt.Sprintf(`"taskId":%q`, id), ""); r.Error != nil || string(r.Result) != `{"resultType":"complete"}` {
		t.Fatalf("second tasks/cancel at B: %s %+v", r.Result, r.Error)
	}
	if d := a.await(id, TaskCancelled); d.Result != nil {
		t.Errorf("cancelled task has a result: %+v", d.Result)
	}
	if got := store.sent.Load(); got != 1 {
		t.Errorf("signals sent: %d, want 1 (B does not run the task; the second cancel finds it ended)", got)
	}
	if n := a.runs.Load() + b.runs.Load(); n != 1 {
		t.Errorf("executions: %d, want 1", n)
	}
}

func TestTaskAnsweredThroughAnotherServer(t *testing.T) {
	for _, lose := range []bool{false, true} {
		t.Run(fmt.Sprintf("lose=%v", lose), func(t *testing.T) {
			leakcheck.Check(t)
			// A lost signal is made up for by A's read every poll interval.
			store := newSignalStore(lose)
			o := &TaskOptions{Store: store, PollInterval: 20 * time.Millisecond}
			a := newTaskFixture(t, o)
			b := newTaskFixture(t, o)
			id := a.start("confirm")
			b.await(id, TaskInputRequired)
			for _, answer := range []string{`{"a":{"action":"accept","content":{"ok":true}}}`, `{"b":{"action":"accept","content":{"ok":false}}}`} {
				if r := b.post("tasks/update", id, fmt.Sprintf(`"taskId":%q,"inputResponses":%s`, id, answer), ""); r.Error != nil {
					t.Fatalf("tasks/update at B: %+v", r.Error)
				}
			}
			d := b.await(id, TaskCompleted)
			if d.Result == nil || len(d.Result.Content) != 1 || d.Result.Content[0].Text != "a=true b=false" {
				t.Errorf("result read at B: %+v", d.Result)
			}
			if na, nb := a.runs.Load(), b.runs.Load(); na != 2 || nb != 0 {
				t.Errorf("executions at A, B: %d, %d; want 2 rounds at A, none at B", na, nb)
			}
		})
	}
}

func TestTaskSignalsWatchedUntilClose(t *testing.T) {
	leakcheck.Check(t)
	store := newSignalStore(false)
	s := newServer(t, "tasks", "v0", &Options{Tasks: &TaskOptions{Store: store}})
	if n := store.watching(); n != 1 {
		t.Fatalf("watchers after New: %d, want 1", n)
	}
	s.Close()
	s.Close()
	if n := store.watching(); n != 0 {
		t.Errorf("watchers after Close: %d, want 0", n)
	}
}
