package redisstore

import (
	"context"
	"sync"
	"time"
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

// leases refreshes the leases of the tasks running here every lease/3,
// until Close.
func (s *TaskStore) leases() {
	defer close(s.done)
	tick := time.NewTicker(s.lease / 3)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
			s.refresh()
		}
	}
}

// refresh refreshes the lease of each task running here, and tells the
// watchers of those found terminal or gone.
func (s *TaskStore) refresh() {
	s.mu.Lock()
	ids := make([]string, 0, len(s.running))
	for id := range s.running {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
	defer cancel()
	var ended []string
	for _, id := range ids {
		status, err := leaseScript.Run(ctx, s.c, s.taskKeys(id), s.lease.Milliseconds()).Text()
		if err != nil {
			return // Redis cannot be asked: the next tick tries again
		}
		switch status {
		case "gone", "completed", "failed", "cancelled":
			ended = append(ended, id)
		}
	}
	s.mu.Lock()
	for _, id := range ended {
		delete(s.running, id)
	}
	fs := make([]func(string), 0, len(s.watchers))
	for _, f := range s.watchers {
		fs = append(fs, f)
	}
	s.mu.Unlock()
	for _, id := range ended {
		for _, f := range fs {
			f(id)
		}
	}
}
