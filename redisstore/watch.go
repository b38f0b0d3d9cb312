package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/looprig/mcp/server"
	"github.com/redis/go-redis/v9"
)

// Status changes. Each write that gives a task another status publishes
// the task, in the same script and so in the order of the writes, on the
// task's status channel: a shard channel (SPUBLISH, Redis 7) whose name is
// tagged {id} as the task's keys are, so that in a Cluster it stays in
// their slot. WatchTask subscribes to it (SSUBSCRIBE).

// statusChannel names the channel of the status changes of task id.
func (s *TaskStore) statusChannel(id string) string {
	return s.prefix + "task:{" + id + "}:status"
}

// WatchTask calls f with the task id each time a replica gives it another
// status, until stop is called (server.TaskWatcher). It returns once Redis
// has confirmed the subscription, or an error wrapping ErrUnavailable when
// it has not by the end of ctx. A standalone or Sentinel client holds one
// subscribing connection for every watch of the store; another client
// (Cluster, Ring) one for each watch, on the node of the task's slot. A
// change published while the subscription reconnects is lost: tasks/get
// still reads it.
func (s *TaskStore) WatchTask(ctx context.Context, id string, f func(*server.Task)) (stop func(), err error) {
	if len(id) > maxIDBytes {
		return func() {}, nil // no such task: nothing to tell
	}
	h := s.sharedHub()
	if h == nil { // a hub of its own, on the node of the task's slot
		h = newHub(s.c)
		defer func() {
			if err != nil {
				h.close()
			}
		}()
	}
	unwatch, err := h.watch(ctx, s.statusChannel(id), f)
	if err != nil {
		return nil, err
	}
	if h == s.hub {
		return unwatch, nil
	}
	return sync.OnceFunc(func() { unwatch(); h.close() }), nil
}

// sharedHub returns the store's hub, made at its first use, or nil when
// the client cannot hold the channels of every slot on one connection.
func (s *TaskStore) sharedHub() *hub {
	if _, ok := s.c.(*redis.Client); !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hub == nil {
		s.hub = newHub(s.c)
	}
	return s.hub
}

// A hub is one subscribing connection and the watches it serves, by
// channel.
type hub struct {
	ps *redis.PubSub

	// mu guards the fields below; subscribing and unsubscribing hold it,
	// so that Redis sees them in the order of the watches.
	mu      sync.Mutex
	subs    map[string]*hubSub
	n       int  // watches so far
	reading bool // the read loop runs
	closed  bool
	done    chan struct{} // closed when the read loop returns
}

// hubSub is the watches of one channel.
type hubSub struct {
	fs    map[int]func(*server.Task)
	acked chan struct{} // closed when Redis confirms the subscription
}

func newHub(c redis.UniversalClient) *hub {
	return &hub{ps: c.SSubscribe(context.Background()), subs: make(map[string]*hubSub), done: make(chan struct{})}
}

// watch adds f to the watches of channel, subscribing to it if it is the
// first, and waits for Redis to confirm the subscription.
func (h *hub) watch(ctx context.Context, channel string, f func(*server.Task)) (func(), error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, unavailable(errors.New("the store is closed"))
	}
	h.n++
	n := h.n
	sub := h.subs[channel]
	if sub == nil {
		if err := h.ps.SSubscribe(ctx, channel); err != nil {
			h.mu.Unlock()
			return nil, unavailable(err)
		}
		sub = &hubSub{fs: make(map[int]func(*server.Task)), acked: make(chan struct{})}
		h.subs[channel] = sub
		if !h.reading {
			h.reading = true
			go h.read()
		}
	}
	sub.fs[n] = f
	h.mu.Unlock()
	unwatch := sync.OnceFunc(func() { h.unwatch(channel, n) })
	select {
	case <-sub.acked:
		return unwatch, nil
	case <-ctx.Done():
		unwatch()
		return nil, unavailable(ctx.Err())
	}
}

// unwatch drops the watch n of channel, and the subscription with the
// last.
func (h *hub) unwatch(channel string, n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	sub := h.subs[channel]
	if sub == nil {
		return
	}
	delete(sub.fs, n)
	if len(sub.fs) > 0 {
		return
	}
	delete(h.subs, channel)
	if !h.closed {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.ps.SUnsubscribe(ctx, channel) // best effort: a message after it finds no watch
	}
}

// read receives until close: confirmations and changes, the latter told
// to the watches of their channel in the order received.
func (h *hub) read() {
	defer close(h.done)
	for {
		msg, err := h.ps.Receive(context.Background())
		h.mu.Lock()
		closed := h.closed
		h.mu.Unlock()
		if closed {
			return
		}
		if err != nil {
			// The connection failed: the next Receive reconnects and
			// subscribes again. Pause so that a Redis that is down is not
			// dialled in a tight loop.
			time.Sleep(100 * time.Millisecond)
			continue
		}
		switch m := msg.(type) {
		case *redis.Subscription:
			h.acked(m)
		case *redis.Message:
			h.tell(m)
		}
	}
}

// acked notes Redis' confirmation of a subscription.
func (h *hub) acked(m *redis.Subscription) {
	if m.Kind != "ssubscribe" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if sub := h.subs[m.Channel]; sub != nil {
		select {
		case <-sub.acked:
		default:
			close(sub.acked)
		}
	}
}

// tell calls the watches of the message's channel with its task.
func (h *hub) tell(m *redis.Message) {
	var t server.Task
	if json.Unmarshal([]byte(m.Payload), &t) != nil {
		return
	}
	t.Result, t.Error = notNull(t.Result), notNull(t.Error)
	h.mu.Lock()
	sub := h.subs[m.Channel]
	var fs []func(*server.Task)
	if sub != nil {
		for _, f := range sub.fs {
			fs = append(fs, f)
		}
	}
	h.mu.Unlock()
	for _, f := range fs {
		c := t
		f(&c)
	}
}

// close ends the hub's subscriptions and its read loop.
func (h *hub) close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	reading := h.reading
	h.mu.Unlock()
	h.ps.Close()
	if reading {
		<-h.done
	}
}
