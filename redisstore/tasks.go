package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/looprig/mcp/server"
	"github.com/redis/go-redis/v9"
)

// errContended is returned by Update when other replicas changed the task
// between each of its reads and writes.
var errContended = errors.New("task changed by others too often")

// maxAttempts bounds the reads and writes of one Update.
const maxAttempts = 16

// lapsedError is the error of a task whose lease lapsed.
var lapsedError = json.RawMessage(`{"code":-32603,"message":"the replica running the task stopped: its lease lapsed"}`)

// TaskStore is a server.TaskStore over Redis, shared by replicas: a task
// started at one is read, answered and cancelled through any other, and
// the bound of tasks per principal holds across them. It implements
// server.TaskSignals over Redis pub/sub and server.TaskWatcher over
// sharded pub/sub (status pushes reach a listen stream at any replica),
// and refreshes the leases of the tasks its replica runs until Close.
type TaskStore struct {
	c       redis.UniversalClient
	prefix  string
	channel string
	max     int // -1: no bound
	lease   time.Duration

	// mu guards the fields below.
	mu       sync.Mutex
	running  map[string]bool      // tasks created here and not seen terminal
	watchers map[int]func(string) // WatchSignals's
	watched  int                  // WatchSignals calls so far
	hub      *hub                 // WatchTask's subscriptions; nil until the first

	stop chan struct{} // closed by Close
	done chan struct{} // closed when the lease loop returns
	once sync.Once
}

var (
	_ server.TaskStore   = (*TaskStore)(nil)
	_ server.TaskSignals = (*TaskStore)(nil)
	_ server.TaskWatcher = (*TaskStore)(nil)
)

// NewTaskStore returns a TaskStore on c, which refreshes the leases of
// the tasks created through it until Close. Each replica makes its own;
// replicas share tasks when they share the Redis and the prefix.
func NewTaskStore(c redis.UniversalClient, o *Options) *TaskStore {
	var opts Options
	if o != nil {
		opts = *o
	}
	s := &TaskStore{
		c:        c,
		prefix:   opts.prefix(),
		channel:  opts.prefix() + "signals",
		max:      opts.MaxTasks,
		lease:    opts.Lease,
		running:  make(map[string]bool),
		watchers: make(map[int]func(string)),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	switch {
	case s.max == 0:
		s.max = server.DefaultMaxTasks
	case s.max < 0:
		s.max = -1
	}
	if s.lease <= 0 {
		s.lease = DefaultLease
	}
	go s.leases()
	return s
}

// Close stops refreshing leases (the tasks this replica still runs read
// failed once their leases lapse) and ends the watches of WatchTask. It
// does not close the client.
func (s *TaskStore) Close() error {
	s.once.Do(func() { close(s.stop) })
	<-s.done
	s.mu.Lock()
	h := s.hub
	s.mu.Unlock()
	if h != nil {
		h.close()
	}
	return nil
}

func (s *TaskStore) taskKeys(id string) []string {
	k := s.prefix + "task:{" + id + "}"
	return []string{k, k + ":lease"}
}

// principalKey names the set of a principal's tasks by a digest, which
// bounds its length whatever the principal.
func (s *TaskStore) principalKey(principal string) string {
	d := sha256.Sum256([]byte(principal))
	return s.prefix + "principal:{" + hex.EncodeToString(d[:16]) + "}"
}

// Create records t and counts it against its principal's bound, across
// every replica: two round trips.
func (s *TaskStore) Create(ctx context.Context, t *server.Task) error {
	if len(t.ID) > maxIDBytes {
		return fmt.Errorf("task id of %d bytes; at most %d", len(t.ID), maxIDBytes)
	}
	pk := s.principalKey(t.Principal)
	expires := t.Expires.UnixMilli()
	n, err := holdScript.Run(ctx, s.c, []string{pk}, time.Now().UnixMilli(), s.max, t.ID, expires).Int64()
	if err != nil {
		return unavailable(err)
	}
	if n < 0 {
		return fmt.Errorf("%w: the principal holds %d tasks that have not expired (redisstore)", server.ErrTooManyTasks, -n)
	}
	data, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("task %q: encoding: %w", t.ID, err)
	}
	created, err := createScript.Run(ctx, s.c, s.taskKeys(t.ID), data, string(t.Status), expires, s.lease.Milliseconds()).Int()
	if err != nil || created == 0 {
		s.c.ZRem(context.WithoutCancel(ctx), pk, t.ID) // best effort: else it counts until it expires
		if err != nil {
			return unavailable(err)
		}
		return fmt.Errorf("task %q exists", t.ID)
	}
	s.mu.Lock()
	s.running[t.ID] = true
	s.mu.Unlock()
	return nil
}

// Get returns the task id of principal: one round trip. A task whose
// lease lapsed is recorded failed first (two more).
func (s *TaskStore) Get(ctx context.Context, principal, id string) (*server.Task, error) {
	r, err := s.read(ctx, principal, id)
	if err != nil {
		return nil, err
	}
	if r.lapsed {
		return s.Update(ctx, principal, id, func(*server.Task) error { return nil })
	}
	return r.t, nil
}

// record is a task as read: the task, its version and its JSON, and
// whether its lease lapsed while it is not terminal.
type record struct {
	t      *server.Task
	v, d   string
	lapsed bool
}

// read returns the task id of principal.
func (s *TaskStore) read(ctx context.Context, principal, id string) (record, error) {
	if len(id) > maxIDBytes {
		return record{}, server.ErrTaskNotFound
	}
	res, err := readScript.Run(ctx, s.c, s.taskKeys(id)).Slice()
	if errors.Is(err, redis.Nil) {
		return record{}, server.ErrTaskNotFound
	} else if err != nil {
		return record{}, unavailable(err)
	}
	r := record{t: new(server.Task)}
	r.v, _ = res[0].(string)
	r.d, _ = res[1].(string)
	lapsed, _ := res[2].(int64)
	r.lapsed = lapsed == 1
	if err := json.Unmarshal([]byte(r.d), r.t); err != nil {
		return record{}, fmt.Errorf("task %q: its record: %w", id, err)
	}
	r.t.Result, r.t.Error = notNull(r.t.Result), notNull(r.t.Error) // JSON keeps nil as null
	if r.t.Principal != principal || !time.Now().Before(r.t.Expires) {
		return record{}, server.ErrTaskNotFound
	}
	return r, nil
}

// Update applies change to the task id of principal and writes it if no
// other replica changed it meanwhile, else reads it again: two round
// trips when uncontended, one when change changed nothing. A write that
// changes the status publishes the task to WatchTask's watches, in the
// same round trip. change may so
// run more than once, each time on the task as read.
func (s *TaskStore) Update(ctx context.Context, principal, id string, change func(*server.Task) error) (*server.Task, error) {
	for range maxAttempts {
		r, err := s.read(ctx, principal, id)
		if err != nil {
			return nil, err
		}
		t := r.t
		if r.lapsed {
			t.Status, t.Updated, t.InputRequests, t.Answers, t.Result, t.Error = server.TaskFailed, time.Now().UTC(), nil, nil, nil, lapsedError
		}
		bound := *t
		if err := change(t); err != nil {
			return nil, err
		}
		t.ID, t.Principal, t.Expires = bound.ID, bound.Principal, bound.Expires // the binding does not change
		data, err := json.Marshal(t)
		if err != nil {
			return nil, fmt.Errorf("task %q: encoding: %w", id, err)
		}
		if string(data) == r.d {
			return t, nil // nothing to write
		}
		ok, err := casScript.Run(ctx, s.c, s.taskKeys(id), r.v, data, string(t.Status), s.statusChannel(id)).Int()
		if err != nil {
			return nil, unavailable(err)
		}
		if ok == 1 {
			if t.Status.Terminal() {
				s.mu.Lock()
				delete(s.running, id)
				s.mu.Unlock()
			}
			return t, nil
		}
	}
	return nil, fmt.Errorf("task %q: %w", id, errContended)
}

// notNull returns raw, or nil for the JSON null.
func notNull(raw json.RawMessage) json.RawMessage {
	if string(raw) == "null" {
		return nil
	}
	return raw
}
