package server

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Default bounds of continuations, used when the corresponding [Options]
// field is zero (or NewMemoryStateStore's bound).
const (
	// DefaultStateTTL bounds how long a sealed requestState may be
	// continued after it was issued: 15 minutes.
	DefaultStateTTL = 15 * time.Minute
	// DefaultMaxStates bounds the used states a memory store remembers
	// at once: 100,000 (about 11 MiB at most; BenchmarkMemoryStateStore).
	DefaultMaxStates = 100_000
)

// errTooManyStates is returned by a memory store's Use when it remembers
// its bound of used states that have not expired. The continuation is
// refused (the server is busy, as for any error of Use) rather than a
// replay let through.
var errTooManyStates = errors.New("too many continuations to remember")

// A StateStore remembers which sealed requestStates have been used, so
// that each is accepted once (Options.StateStore). The server asks it
// before a continuation's handler runs, after the state passed its
// integrity check and its StateTTL.
//
// A store sees only the continuations of the servers that share it.
// Servers may share Options.StateKey, so that any of them continues a call
// another one began. Examples are replicas behind a load balancer, and
// stateless serving across restarts. Such servers must share a store too,
// one over shared storage: a database, or Redis' SET NX with an expiry
// (the module github.com/looprig/mcp/redisstore). Otherwise a state used
// at one of them is accepted once more at each of the others, within its
// StateTTL.
type StateStore interface {
	// Use records the use of the state named id (at most 64 bytes) and
	// reports whether it is the first. The state is refused anyway from
	// expires on (the zero time: never), so the store may forget it then.
	// An error refuses the continuation with -32603, the server busy,
	// without recording a use. Use is called concurrently.
	Use(ctx context.Context, id string, expires time.Time) (first bool, err error)
}

// NewMemoryStateStore returns a StateStore in memory, for the servers of
// one process. It remembers at most max used states at once (zero:
// DefaultMaxStates; negative: no bound), each until it expires. Past its
// bound it refuses new uses with an error ("too many continuations to
// remember"), and the server answers that it is busy. States that never
// expire (Options.StateTTL negative) are remembered until the store is
// full.
func NewMemoryStateStore(max int) StateStore {
	return &memoryStore{max: bound(max, DefaultMaxStates), used: make(map[string]int64)}
}

type memoryStore struct {
	max int // -1: no bound

	// mu guards the fields below.
	mu     sync.Mutex
	used   map[string]int64 // id → expiry, Unix nanoseconds (0: never)
	expiry expiries         // the used states that expire, soonest first
}

func (m *memoryStore) Use(_ context.Context, id string, expires time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now().UnixNano()
	for len(m.expiry) > 0 && m.expiry[0].at <= now {
		delete(m.used, heap.Pop(&m.expiry).(expiring).id)
	}
	if _, ok := m.used[id]; ok {
		return false, nil
	}
	if m.max >= 0 && len(m.used) >= m.max {
		return false, fmt.Errorf("%w: %d used states not yet expired (NewMemoryStateStore)", errTooManyStates, len(m.used))
	}
	if expires.IsZero() {
		m.used[id] = 0
		return true, nil
	}
	m.used[id] = expires.UnixNano()
	heap.Push(&m.expiry, expiring{id, expires.UnixNano()})
	return true, nil
}

// expiries is a min-heap of used states by expiry.
type expiries []expiring

type expiring struct {
	id string
	at int64 // Unix nanoseconds
}

func (e expiries) Len() int           { return len(e) }
func (e expiries) Less(i, j int) bool { return e[i].at < e[j].at }
func (e expiries) Swap(i, j int)      { e[i], e[j] = e[j], e[i] }
func (e *expiries) Push(x any)        { *e = append(*e, x.(expiring)) }
func (e *expiries) Pop() any {
	old := *e
	x := old[len(old)-1]
	*e = old[:len(old)-1]
	return x
}
