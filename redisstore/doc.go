// Package redisstore keeps the state of an MCP server in Redis, so that
// replicas behind a load balancer keep the guarantees one process keeps.
//
// It is a module of its own (github.com/looprig/mcp/redisstore), so that
// the core module has no Redis dependency. It takes any
// redis.UniversalClient of github.com/redis/go-redis/v9 (standalone,
// Sentinel or Cluster) and needs Redis 7 or Valkey; its tests run on
// Debian's redis-server, standalone and failed over by Sentinel.
//
// # What it gives
//
// [StateStore] is a server.StateStore: a sealed requestState is accepted
// once across the fleet. Use is one SET NX, whose key expires a minute
// after the state does (server.Options.StateTTL), for clocks that differ.
//
// [TaskStore] is a server.TaskStore, a server.TaskSignals and a
// server.TaskWatcher. A task
// started at one replica is read (tasks/get), answered (tasks/update) and
// cancelled (tasks/cancel) through any other. A cancellation reaches the
// handler at the replica running it over pub/sub, and answers wake it
// there. The bound of tasks per principal (Options.MaxTasks, as
// server.NewMemoryTaskStore's) holds across the fleet. A task's result is
// written once, by the replica that ran it, and read at every replica.
// A status change made at any replica reaches a subscriptions/listen
// stream held at any other (notifications/tasks): the write that changes
// the status publishes the task in the same script (SPUBLISH, so in the
// order of the writes), on a shard channel in the task's slot, and the
// replica holding the stream subscribes to it (SSUBSCRIBE) for as long as
// the stream watches the task. A standalone or Sentinel client holds one
// subscribing connection per store for every task watched; a Cluster
// client one per task watched. A change published while that connection
// reconnects is not pushed; tasks/get still reads it.
//
// Round trips to Redis, as BenchmarkFleet counts them: one per
// continuation, one per tasks/get, two per other change of a task (a read
// and a compare-and-set in a script, which also publishes a status
// change), two to create a task, one to signal, one to watch a task.
//
// # Keys
//
// Every key starts with Options.Prefix ("mcp:"): state:ID for a used
// state; task:{ID} (a hash) and task:{ID}:lease for a task, which share a
// Cluster slot by their hash tag; principal:{DIGEST} (a sorted set) for the
// tasks a principal holds. The signals use the channel Prefix+"signals";
// the status changes of a task the shard channel task:{ID}:status.
// A task's keys expire with the task (server.TaskOptions.TTL).
//
// # A replica that stops
//
// The replica running a task refreshes its lease every Options.Lease/3
// (DefaultLease, 15 seconds). If the replica stops, the first tasks/get
// after the lease lapsed, at any replica, records the task failed
// (-32603, "the replica running the task stopped: its lease lapsed"):
// within Lease after the replica stopped, not "working" until the TTL. A
// replica cut off from Redis for longer than Lease may have its tasks
// failed the same way; it then cancels their handlers at its next refresh.
//
// # Faults fail closed
//
// When Redis cannot be asked (down, paused, failing over, out of memory),
// every method returns an error wrapping [ErrUnavailable], and the server
// refuses: a continuation gets -32603 ("the server is busy, retry later")
// without its handler running, and a tools/call of a task tool starts no
// task. Nothing is accepted or run twice because Redis could not be asked.
// A write Redis applied after the client gave up (a paused Redis) leaves
// the continuation refused as used: its client starts the call again.
// The client's ReadTimeout and WriteTimeout bound how long a request waits
// on a Redis that does not answer. Service resumes when Redis does, with
// the same replicas: the client reconnects and the subscription to the
// signals resubscribes. A signal sent while a replica was cut off is made
// up for: a cancellation at its next lease refresh, answers within the
// server's poll interval. An outcome that could not be recorded is
// recorded once Redis answers again.
//
// # Configuring Redis
//
//   - maxmemory-policy noeviction ([CheckConfig] checks it). An evicted
//     state key is a state accepted once more; with noeviction, Redis full
//     refuses the write, and the store refuses the continuation.
//   - Persistence (appendonly yes; appendfsync always for no loss). A
//     Redis restarted without its data forgets which states were used
//     (each may be accepted once more within its StateTTL) and every task.
//   - Replication is asynchronous: a write acknowledged by a primary that
//     fails before its replica has it is lost at failover, with the same
//     consequence as a restart without data. Options.WaitReplicas makes a
//     use of a state wait for replicas (WAIT, in the same round trip),
//     and refuses it when they do not answer.
//
// # Sessions of 2025-11-25
//
// Clients before 2026-07-28 get stateful sessions from
// server.HTTPHandler, which live in the memory of the replica that began
// them, with their event store for Last-Event-ID: route each session's
// requests to that replica (sticky by the Mcp-Session-Id header, or by a
// cookie the load balancer sets). Behind plain round robin the next
// request of a session reaches a replica that answers "session not
// found" (TestStatefulSessionsNeedStickiness). Or serve them stateless
// (server.HTTPOptions.Stateless), without server-to-client requests.
//
// # Deployment
//
// Every replica runs the same code: one client, one StateStore and one
// TaskStore on the shared Redis, the same server.Options.StateKey, and
// server.HTTPOptions.Stateless for 2026-07-28 clients to reach any replica
// (see the example). Close the TaskStore after the server.
package redisstore
