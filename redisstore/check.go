package redisstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// ErrEvicts is returned by CheckConfig when Redis may evict keys to make
// room: an evicted state is a continuation accepted once more.
var ErrEvicts = errors.New("redis evicts keys (maxmemory-policy is not noeviction)")

// CheckConfig reads maxmemory-policy from Redis (from every master of a
// Cluster) and returns an error wrapping ErrEvicts unless it is
// noeviction. Call it at start; a Redis that refuses CONFIG GET (some
// managed services) gives an error wrapping ErrUnavailable, and its
// policy must be checked by other means.
func CheckConfig(ctx context.Context, c redis.UniversalClient) error {
	if cc, ok := c.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
			return checkNode(ctx, node)
		})
	}
	return checkNode(ctx, c)
}

func checkNode(ctx context.Context, c redis.Cmdable) error {
	cfg, err := c.ConfigGet(ctx, "maxmemory-policy").Result()
	if err != nil {
		return unavailable(err)
	}
	if policy := cfg["maxmemory-policy"]; policy != "noeviction" {
		return fmt.Errorf("%w: it is %q", ErrEvicts, policy)
	}
	return nil
}
