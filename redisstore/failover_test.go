package redisstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/server"
	"github.com/redis/go-redis/v9"
)

// matrixFailover runs the fleet on a primary, a replica and a Sentinel
// (redis-server --sentinel), kills the primary once its writes have
// reached the replica (WAIT), and lets Sentinel promote the replica: what
// was used stays used, a task started before is polled and cancelled
// after, and service resumes with the same replicas of the server once
// the old primary is back as the new one's replica (WaitReplicas 1).
func matrixFailover(t *testing.T, m *matrix) {
	const fault = "failed over"
	primary := startRedis(t, false)
	startRedisWith(t, false, func(port int) []string {
		// Once promoted, it syncs its own replica at once, not in 5 seconds.
		return []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--repl-diskless-sync-delay", "0", "--replicaof", "127.0.0.1", strconv.Itoa(primary.port)}
	})
	conf := filepath.Join(t.TempDir(), "sentinel.conf")
	sentinel := startRedisWith(t, false, func(port int) []string {
		c := fmt.Sprintf("port %d\nbind 127.0.0.1\nsentinel monitor m 127.0.0.1 %d 1\nsentinel down-after-milliseconds m 300\nsentinel failover-timeout m 3000\n", port, primary.port)
		if err := os.WriteFile(conf, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
		return []string{conf, "--sentinel"}
	})
	sc := redis.NewSentinelClient(&redis.Options{Addr: sentinel.addr()})
	defer sc.Close()
	ctx := testkit.Context(t)
	testkit.Poll(t, "Sentinel to see the replica in sync", func() bool {
		rs, err := sc.Replicas(ctx, "m").Result()
		return err == nil && len(rs) == 1 && rs[0]["master-link-status"] == "ok"
	})
	client := func(t testing.TB) *redis.Client {
		c := redis.NewFailoverClient(&redis.FailoverOptions{
			MasterName:    "m",
			SentinelAddrs: []string{sentinel.addr()},
			DialTimeout:   250 * time.Millisecond,
			ReadTimeout:   250 * time.Millisecond,
			WriteTimeout:  250 * time.Millisecond,
			MaxRetries:    -1,
			PoolTimeout:   250 * time.Millisecond,
		})
		t.Cleanup(func() { c.Close() })
		return c
	}
	// Sentinel takes 1 to 30 seconds to promote here: the leases outlast it.
	f := newFleet(t, &fleetOptions{Client: client, Store: Options{WaitReplicas: 1, Lease: 2 * time.Minute}})
	used := f.ask("A")
	if r, err := f.resume("B", used); err != nil || !accepted(r) {
		t.Fatalf("continuation before the failover: %+v %v", r, err)
	}
	running := f.start("A", "alice", "gated")
	if n, err := f.replicas[0].client.Do(ctx, "WAIT", 1, 2000).Int(); err != nil || n != 1 {
		t.Fatalf("WAIT for the replica: %d, %v", n, err)
	}
	primary.kill()
	killed := time.Now()
	// Until Sentinel has promoted the replica, what needs Redis is refused.
	r, err := f.resume("C", used)
	m.check(t, "continuation replayed", "used at B, replay C", fault, err == nil && !accepted(r), "%+v %v, want refused", r, err)
	// The promoted replica has no replica of its own: every use is
	// refused (WaitReplicas) until the old primary, restarted empty once
	// Sentinel has moved on, is its replica.
	var promoted []string
	testkit.Poll(t, "Sentinel to promote the replica", func() bool {
		addr, err := sc.GetMasterAddrByName(ctx, "m").Result()
		promoted = addr
		return err == nil && addr[1] != strconv.Itoa(primary.port)
	})
	t.Logf("Sentinel promoted the replica %v after the primary was killed", time.Since(killed).Round(time.Millisecond))
	r, err = f.resume("C", f.ask("A"))
	m.check(t, "continuation without a replica", "ask A, continue C", fault, err == nil && refused(r, codeInternal, "reached 0 of 1 replicas"), "%+v %v, want -32603 reached 0 of 1 replicas", r, err)
	primary.args = func(port int) []string {
		return []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--replicaof", promoted[0], promoted[1]}
	}
	if err := primary.start(); err != nil {
		t.Fatal(err)
	}
	testkit.Poll(t, "a continuation accepted after the failover", func() bool {
		r, err := f.resume("B", f.ask("A"))
		return err == nil && accepted(r)
	})
	m.check(t, "service resumes", "ask A, continue B", fault, true, "")
	r, err = f.resume("C", used)
	m.check(t, "continuation replayed after", "used at B, replay C", fault, err == nil && refused(r, codeInvalidParams, "used before"), "%+v %v, want -32602 used before", r, err)
	tk := f.get("B", "alice", running)
	m.check(t, "task across the fault", "start A before, get B after", fault, tk.Status == server.TaskWorking, "%+v", tk)
	if r := f.must("C", "alice", "tasks/cancel", running, fmt.Sprintf(`"taskId":%q`, running)); r.Error != nil {
		t.Fatalf("tasks/cancel after the failover: %+v", r.Error)
	}
	testkit.Poll(t, "the handler at A to see the cancellation sent to C after the failover", func() bool { return f.replicas[0].cancelled.Load() == 1 })
	m.check(t, "cancel after", "start A before, cancel C after", fault, true, "")
	id := f.start("C", "alice", "quick")
	tk = f.await("A", "alice", id, server.TaskCompleted)
	m.check(t, "task after", "start C, get A", fault, tk.Result != nil && tk.Result.Content[0].Text == "done at C", "%+v", tk.Result)
}
