package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/looprig/mcp/protocol"
)

// Default bounds of tasks, used when the corresponding [TaskOptions] field
// (or NewMemoryTaskStore's bound) is zero.
const (
	// DefaultMaxTasks bounds the tasks one principal holds in a memory
	// store at once, finished or not, until they expire: 100.
	DefaultMaxTasks = 100
	// DefaultTaskTTL is how long a task is kept after it was created,
	// whatever its status: 1 hour. A task still running then is
	// cancelled.
	DefaultTaskTTL = time.Hour
	// DefaultTaskResultBytes bounds the encoded result a task keeps for
	// its client to read: 1 MiB.
	DefaultTaskResultBytes = 1 << 20
	// DefaultPollInterval is the poll interval a task suggests to its
	// client (pollIntervalMs): 500 milliseconds.
	DefaultPollInterval = 500 * time.Millisecond
)

// Errors of task stores.
var (
	// ErrTaskNotFound is returned by a TaskStore when no task has the id
	// for the principal asking: it never existed, expired, or belongs to
	// another principal (which reads the same, so that a task id cannot
	// be probed). The client sees -32602, invalid params.
	ErrTaskNotFound = errors.New("task not found")
	// ErrTooManyTasks is returned by a memory store's Create when the
	// principal already holds its bound of tasks that have not expired.
	// The tools/call that would start one gets -32603, the server busy,
	// and its tool does not run.
	ErrTooManyTasks = errors.New("too many tasks")
)

// TaskStatus is the status of a task (SEP-2663).
type TaskStatus = protocol.TaskStatus

// The statuses of a task. Completed, failed and cancelled are terminal.
const (
	TaskWorking       = protocol.TaskWorking
	TaskInputRequired = protocol.TaskInputRequired
	TaskCompleted     = protocol.TaskCompleted
	TaskFailed        = protocol.TaskFailed
	TaskCancelled     = protocol.TaskCancelled
)

// A Task is what a TaskStore keeps of one task: what tasks/get reports.
type Task struct {
	ID        string // unguessable: 128 random bits, base64url
	Principal string // the auth.TokenInfo.UserID that started it, or ""
	Tool      string // the tool it runs
	Status    TaskStatus
	Created   time.Time
	Updated   time.Time
	Expires   time.Time // Created + TTL; the store forgets it then
	// InputRequests are the requests not yet answered while the task is
	// input_required, encoded as the go-sdk encodes an mcp.InputRequest,
	// by their keys.
	InputRequests map[string]json.RawMessage
	// Result is the encoded mcp.CallToolResult of a completed task.
	Result json.RawMessage
	// Error is the JSON-RPC error object of a failed task (code, message,
	// data).
	Error json.RawMessage
	// Answers are the input responses tasks/update has received for the
	// pending InputRequests, by their keys, until the server running the
	// task takes them. The wire never carries them.
	Answers map[string]json.RawMessage
}

// clone returns a copy of t that shares nothing mutable with it.
func (t *Task) clone() *Task {
	c := *t
	c.InputRequests = cloneRaw(t.InputRequests)
	c.Answers = cloneRaw(t.Answers)
	return &c
}

func cloneRaw(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	c := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// A TaskStore keeps the tasks of a server (TaskOptions.Store). The server
// runs each task's tool in its own process and records what it reports in
// the store; tasks/get reads it. Every method is called concurrently and
// returns copies: a caller may keep or change what it got.
//
// A store binds each task to its principal: Get and Update of a task of
// another principal return ErrTaskNotFound, as for an id that never
// existed.
type TaskStore interface {
	// Create records t, a new task. It returns an error (ErrTooManyTasks
	// from a memory store) when the store holds as many tasks of
	// t.Principal as it may.
	Create(ctx context.Context, t *Task) error
	// Get returns the task id of principal, or ErrTaskNotFound (for an
	// expired task too).
	Get(ctx context.Context, principal, id string) (*Task, error)
	// Update applies change to the task id of principal atomically and
	// returns the task as changed; an error from change is returned and
	// nothing is changed. It returns ErrTaskNotFound as Get does.
	Update(ctx context.Context, principal, id string, change func(*Task) error) (*Task, error)
}

// TaskSignals is implemented by a TaskStore that the servers of several
// processes share (replicas behind a load balancer), so that a task one
// of them runs is cancelled and answered through any of them. The server
// finds it by a type assertion on TaskOptions.Store.
//
// When tasks/cancel or tasks/update changes a task that another server
// runs, the server that served it calls Signal. Each server watches the
// signals from New until Close; the one running the task then reads it
// again: a terminal status ends its handler's context, answers to every
// pending request run its handler again. A server waiting for answers
// also reads its task every PollInterval, so that a lost signal delays
// the task rather than stalls it.
type TaskSignals interface {
	// Signal tells the servers that share the store that the task id
	// has changed.
	Signal(ctx context.Context, id string) error
	// WatchSignals calls f with the id of each task signalled, by any
	// server, until stop is called. f must return quickly. A store may
	// also call f for a task it finds changed by other means.
	WatchSignals(f func(id string)) (stop func())
}

// TaskWatcher is implemented by a TaskStore that tells of status changes,
// so that HTTPHandler pushes each (notifications/tasks) to the listen
// streams subscribed to the task, whichever server sharing the store
// made it. The server finds it by a type assertion on TaskOptions.Store;
// NewMemoryTaskStore's store implements it.
type TaskWatcher interface {
	// WatchTask calls f with the task id as changed each time an Update,
	// by any server sharing the store, gives it another status, in the
	// order of the changes, until stop is called. It returns once the
	// watch is in place, or an error when the store cannot be asked. f
	// must return quickly and must not change the task.
	WatchTask(ctx context.Context, id string, f func(*Task)) (stop func(), err error)
}

// NewMemoryTaskStore returns a TaskStore in memory, for the servers of
// one process. It keeps at most max tasks of each principal at once (zero:
// DefaultMaxTasks; negative: no bound), each until its Expires; past its
// bound Create fails with ErrTooManyTasks, and no task is evicted to make
// room.
func NewMemoryTaskStore(max int) TaskStore {
	return &memoryTasks{max: bound(max, DefaultMaxTasks), tasks: make(map[string]*Task), held: make(map[string]int)}
}

type memoryTasks struct {
	max int // -1: no bound

	// mu guards the fields below.
	mu    sync.Mutex
	tasks map[string]*Task // by id
	held  map[string]int   // tasks by principal
	swept time.Time        // when expired tasks were last dropped

	watchers map[string]map[int]func(*Task) // WatchTask's, by task id and number
	watched  int                            // WatchTask calls so far
}

func (m *memoryTasks) WatchTask(_ context.Context, id string, f func(*Task)) (func(), error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.watched++
	n := m.watched
	if m.watchers == nil {
		m.watchers = make(map[string]map[int]func(*Task))
	}
	if m.watchers[id] == nil {
		m.watchers[id] = make(map[int]func(*Task))
	}
	m.watchers[id][n] = f
	return sync.OnceFunc(func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		delete(m.watchers[id], n)
		if len(m.watchers[id]) == 0 {
			delete(m.watchers, id)
		}
	}), nil
}

// sweep drops the expired tasks, at most once a second.
func (m *memoryTasks) sweep(now time.Time) {
	if now.Sub(m.swept) < time.Second {
		return
	}
	m.swept = now
	for id, t := range m.tasks {
		if !now.Before(t.Expires) {
			m.drop(id, t)
		}
	}
}

func (m *memoryTasks) drop(id string, t *Task) {
	delete(m.tasks, id)
	if m.held[t.Principal]--; m.held[t.Principal] <= 0 {
		delete(m.held, t.Principal)
	}
}

// live returns the task id of principal that has not expired.
func (m *memoryTasks) live(principal, id string, now time.Time) (*Task, bool) {
	t, ok := m.tasks[id]
	switch {
	case !ok || t.Principal != principal:
		return nil, false
	case !now.Before(t.Expires):
		m.drop(id, t)
		return nil, false
	}
	return t, true
}

func (m *memoryTasks) Create(_ context.Context, t *Task) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.swept = time.Time{} // a full store must not refuse for tasks that expired
	m.sweep(now)
	if _, dup := m.tasks[t.ID]; dup {
		return fmt.Errorf("task %q exists", t.ID)
	}
	if n := m.held[t.Principal]; m.max >= 0 && n >= m.max {
		return fmt.Errorf("%w: the principal holds %d tasks that have not expired (NewMemoryTaskStore)", ErrTooManyTasks, n)
	}
	m.tasks[t.ID] = t.clone()
	m.held[t.Principal]++
	return nil
}

func (m *memoryTasks) Get(_ context.Context, principal, id string) (*Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.live(principal, id, time.Now())
	if !ok {
		return nil, ErrTaskNotFound
	}
	return t.clone(), nil
}

func (m *memoryTasks) Update(_ context.Context, principal, id string, change func(*Task) error) (*Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.live(principal, id, time.Now())
	if !ok {
		return nil, ErrTaskNotFound
	}
	c := t.clone()
	if err := change(c); err != nil {
		return nil, err
	}
	c.ID, c.Principal, c.Expires = t.ID, t.Principal, t.Expires // the binding does not change
	m.tasks[id] = c
	if c.Status != t.Status {
		// Told under m.mu, so that the watchers see the changes in order.
		for _, f := range m.watchers[id] {
			f(c.clone())
		}
	}
	return c.clone(), nil
}
