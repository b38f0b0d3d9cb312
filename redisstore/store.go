package redisstore

import (
	"errors"
	"fmt"
	"time"
)

// ErrUnavailable wraps every error of Redis itself (unreachable, timed
// out, out of memory): the store could not be asked, and the server
// refuses what it was asked for rather than guess.
var ErrUnavailable = errors.New("redis unavailable")

// DefaultLease is how long a task outlives the last lease refresh of the
// replica running it (Options.Lease): 15 seconds.
const DefaultLease = 15 * time.Second

// skew is how long a key outlives the expiry the server gave it, for
// clocks of replicas and Redis that differ.
const skew = time.Minute

// maxIDBytes bounds a task id the store looks up: a server's are 22
// bytes. A longer one reads as an unknown task.
const maxIDBytes = 64

// Options configures a store. The zero value gives the documented
// defaults.
type Options struct {
	// Prefix starts every key and the signal channel; "mcp:" if empty.
	// Fleets that share one Redis but not their tasks use different
	// prefixes.
	Prefix string
	// MaxTasks bounds the tasks one principal holds at once, across every
	// replica, finished or not, until they expire: as
	// server.NewMemoryTaskStore's bound (zero: server.DefaultMaxTasks;
	// negative: no bound).
	MaxTasks int
	// Lease is how long a task that is not terminal outlives the last
	// refresh by the replica running it; a replica refreshes the leases
	// of its tasks every Lease/3. A tasks/get after the lease lapsed (the
	// replica stopped, or could not reach Redis for that long) finds the
	// task failed. If zero, defaults to [DefaultLease].
	Lease time.Duration
	// WaitReplicas is how many replicas must hold the use of a state
	// before StateStore accepts it (Redis' WAIT, sent in the same round
	// trip), so that a failover does not lose it. A use that reaches
	// fewer within WaitTimeout is refused with ErrUnavailable, and stays
	// recorded. Zero: the primary's word is enough.
	WaitReplicas int
	// WaitTimeout bounds the wait for WaitReplicas; if zero, defaults to
	// [DefaultWaitTimeout].
	WaitTimeout time.Duration
}

// DefaultWaitTimeout bounds the wait for Options.WaitReplicas: 100
// milliseconds.
const DefaultWaitTimeout = 100 * time.Millisecond

func (o *Options) prefix() string {
	if o == nil || o.Prefix == "" {
		return "mcp:"
	}
	return o.Prefix
}

// unavailable wraps err, an error of Redis or of the client, in
// ErrUnavailable.
func unavailable(err error) error {
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}
