package redisstore

import (
	"context"
	"errors"
	"time"

	"github.com/looprig/mcp/server"
	"github.com/redis/go-redis/v9"
)

// StateStore is a server.StateStore over Redis: each state is used once
// across every replica that shares the Redis and the prefix.
type StateStore struct {
	c      redis.UniversalClient
	prefix string
}

var _ server.StateStore = (*StateStore)(nil)

// NewStateStore returns a StateStore on c. The replicas that share
// server.Options.StateKey must share it: the same Redis, the same prefix.
func NewStateStore(c redis.UniversalClient, o *Options) *StateStore {
	return &StateStore{c: c, prefix: o.prefix() + "state:"}
}

// Use records the use of the state id with SET NX, expiring when the
// state does (server.Options.StateTTL) and a minute later, for clocks that
// differ: one round trip. When Redis cannot
// be asked it returns an error wrapping ErrUnavailable, and the server
// refuses the continuation without recording a use.
func (s *StateStore) Use(ctx context.Context, id string, expires time.Time) (bool, error) {
	args := redis.SetArgs{Mode: "NX"}
	if !expires.IsZero() {
		args.ExpireAt = expires.Add(skew)
	}
	err := s.c.SetArgs(ctx, s.prefix+id, 1, args).Err()
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, redis.Nil):
		return false, nil
	}
	return false, unavailable(err)
}
