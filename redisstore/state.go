package redisstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/looprig/mcp/server"
	"github.com/redis/go-redis/v9"
)

// StateStore is a server.StateStore over Redis: each state is used once
// across every replica that shares the Redis and the prefix.
type StateStore struct {
	c       redis.UniversalClient
	prefix  string
	waitFor int           // replicas; 0: none
	wait    time.Duration // the bound of WAIT
}

var _ server.StateStore = (*StateStore)(nil)

// NewStateStore returns a StateStore on c. The replicas that share
// server.Options.StateKey must share it: the same Redis, the same prefix.
func NewStateStore(c redis.UniversalClient, o *Options) *StateStore {
	s := &StateStore{c: c, prefix: o.prefix() + "state:"}
	if o != nil && o.WaitReplicas > 0 {
		s.waitFor, s.wait = o.WaitReplicas, o.WaitTimeout
		if s.wait <= 0 {
			s.wait = DefaultWaitTimeout
		}
	}
	return s
}

// Use records the use of the state id with SET NX, expiring when the
// state does (server.Options.StateTTL) and a minute later, for clocks that
// differ: one round trip, WAIT for Options.WaitReplicas in it. When Redis
// cannot be asked it returns an error wrapping ErrUnavailable, and the
// server refuses the continuation.
func (s *StateStore) Use(ctx context.Context, id string, expires time.Time) (bool, error) {
	key := s.prefix + id
	args := redis.SetArgs{Mode: "NX"}
	if !expires.IsZero() {
		args.ExpireAt = expires.Add(skew)
	}
	if s.waitFor > 0 {
		return s.useReplicated(ctx, key, args)
	}
	err := s.c.SetArgs(ctx, key, 1, args).Err()
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, redis.Nil):
		return false, nil
	}
	return false, unavailable(err)
}

// useReplicated sends SET NX and WAIT in one pipeline to the primary that
// holds key.
func (s *StateStore) useReplicated(ctx context.Context, key string, args redis.SetArgs) (bool, error) {
	var node redis.Cmdable = s.c
	if cc, ok := s.c.(*redis.ClusterClient); ok {
		n, err := cc.MasterForKey(ctx, key)
		if err != nil {
			return false, unavailable(err)
		}
		node = n
	}
	pipe := node.Pipeline()
	set := pipe.SetArgs(ctx, key, 1, args)
	wait := pipe.Do(ctx, "wait", s.waitFor, s.wait.Milliseconds())
	pipe.Exec(ctx) // each command's error is read below
	switch err := set.Err(); {
	case errors.Is(err, redis.Nil):
		return false, nil
	case err != nil:
		return false, unavailable(err)
	}
	n, err := wait.Int64()
	if err != nil {
		return false, unavailable(err)
	}
	if int(n) < s.waitFor {
		return false, fmt.Errorf("%w: the use reached %d of %d replicas within %v (Options.WaitReplicas)", ErrUnavailable, n, s.waitFor, s.wait)
	}
	return true, nil
}
