package redisstore

import (
	"context"
	"sync"
)

// Signal publishes id on the store's channel (Options.Prefix + "signals"),
// for the replica running the task: one round trip. A replica that misses
// it (Redis restarted, its subscription reconnecting) still finds a
// cancelled task at its next lease refresh, and answers within the
// server's poll interval.
func (s *TaskStore) Signal(ctx context.Context, id string) error {
	if err := s.c.Publish(ctx, s.channel, id).Err(); err != nil {
		return unavailable(err)
	}
	return nil
}

// WatchSignals subscribes to the store's channel and calls f with each id
// published, and with each task running here that a lease refresh found
// terminal or gone, until stop is called. The subscription reconnects by
// itself after a fault.
func (s *TaskStore) WatchSignals(f func(id string)) (stop func()) {
	ps := s.c.Subscribe(context.Background(), s.channel)
	ch := ps.Channel()
	s.mu.Lock()
	s.watched++
	n := s.watched
	s.watchers[n] = f
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m := range ch {
			f(m.Payload)
		}
	}()
	return sync.OnceFunc(func() {
		s.mu.Lock()
		delete(s.watchers, n)
		s.mu.Unlock()
		ps.Close()
		<-done
	})
}
