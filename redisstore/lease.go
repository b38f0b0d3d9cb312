package redisstore

import (
	"context"
	"time"
)

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
