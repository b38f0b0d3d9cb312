package server

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
)

// flakyStore is a memory TaskStore whose Update fails while down is set,
// as a store over shared storage does while it cannot be reached.
type flakyStore struct {
	TaskStore
	down   atomic.Bool
	failed atomic.Int64 // Updates refused
}

var errStoreDown = errors.New("store unreachable")

func (s *flakyStore) Update(ctx context.Context, principal, id string, change func(*Task) error) (*Task, error) {
	if s.down.Load() {
		s.failed.Add(1)
		return nil, errStoreDown
	}
	return s.TaskStore.Update(ctx, principal, id, change)
}

// TestTaskOutcomeRecordedOnceTheStoreIsBack: a handler that returns
// while the store fails has its outcome recorded when the store answers
// again, rather than the task left working.
func TestTaskOutcomeRecordedOnceTheStoreIsBack(t *testing.T) {
	leakcheck.Check(t)
	store := &flakyStore{TaskStore: NewMemoryTaskStore(0)}
	f := newTaskFixture(t, &TaskOptions{Store: store, PollInterval: 10 * time.Millisecond})
	id := f.start("gated")
	f.await(id, TaskWorking)
	store.down.Store(true)
	f.gate <- struct{}{} // the handler returns
	testkit.Poll(t, "the outcome refused by the store twice", func() bool { return store.failed.Load() >= 2 })
	store.down.Store(false)
	d := f.await(id, TaskCompleted)
	if d.Result == nil || d.Result.Content[0].Text != "opened" {
		t.Errorf("result: %+v, want opened", d.Result)
	}
	if n := f.runs.Load(); n != 1 {
		t.Errorf("executions: %d, want 1", n)
	}
}

// TestTaskOutcomeRetryEndsAtClose: Close does not wait on a store that
// stays down.
func TestTaskOutcomeRetryEndsAtClose(t *testing.T) {
	leakcheck.Check(t)
	store := &flakyStore{TaskStore: NewMemoryTaskStore(0)}
	f := newTaskFixture(t, &TaskOptions{Store: store, PollInterval: 10 * time.Millisecond})
	f.await(f.start("gated"), TaskWorking)
	store.down.Store(true)
	f.gate <- struct{}{}
	testkit.Poll(t, "the outcome refused by the store", func() bool { return store.failed.Load() >= 1 })
	if _, err := testkit.CloseWithin(t, closerFunc(f.s.Close), 5*time.Second); err != nil {
		t.Fatal(err)
	}
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }
