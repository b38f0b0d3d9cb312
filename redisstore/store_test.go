package redisstore

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/server"
)

func TestStateStoreUse(t *testing.T) {
	r := startRedis(t, false)
	c := r.client(t)
	ctx := testkit.Context(t)
	s := NewStateStore(c, nil)
	expires := time.Now().Add(time.Minute)
	var got []bool
	for range 3 {
		first, err := s.Use(ctx, "state-1", expires)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, first)
	}
	if diff := cmp.Diff([]bool{true, false, false}, got); diff != "" {
		t.Errorf("uses of one state (-want +got):\n%s", diff)
	}
	// The key lives until the state expires, and a minute more for clocks.
	ttl := c.PTTL(ctx, "mcp:state:state-1").Val()
	if ttl <= time.Minute || ttl > 2*time.Minute {
		t.Errorf("TTL of a used state: %v, want (1m, 2m]", ttl)
	}
	// A state without a time bound is remembered without expiry.
	if first, err := s.Use(ctx, "state-2", time.Time{}); err != nil || !first {
		t.Fatalf("Use without expiry: %v, %v", first, err)
	}
	if ttl := c.PTTL(ctx, "mcp:state:state-2").Val(); ttl != -1 {
		t.Errorf("TTL of a state without expiry: %v, want none (-1)", ttl)
	}
	// Another prefix is another fleet.
	if first, err := NewStateStore(c, &Options{Prefix: "other:"}).Use(ctx, "state-1", expires); err != nil || !first {
		t.Errorf("Use under another prefix: %v, %v; want first", first, err)
	}
	// At Redis' memory bound (noeviction), a use is refused, not recorded.
	for _, kv := range [][2]string{{"maxmemory-policy", "noeviction"}, {"maxmemory", "1"}} {
		if err := c.ConfigSet(ctx, kv[0], kv[1]).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if first, err := s.Use(ctx, "state-4", expires); first || !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "OOM") {
		t.Errorf("Use at the memory bound: %v, %v; want false and ErrUnavailable (OOM)", first, err)
	}
	if err := c.ConfigSet(ctx, "maxmemory", "0").Err(); err != nil {
		t.Fatal(err)
	}
	if first, err := s.Use(ctx, "state-4", expires); !first || err != nil {
		t.Errorf("Use below the bound of a state refused at it: %v, %v; want first", first, err)
	}
	r.kill()
	first, err := s.Use(ctx, "state-3", expires)
	if first || !errors.Is(err, ErrUnavailable) {
		t.Errorf("Use with Redis down: %v, %v; want false and ErrUnavailable", first, err)
	}
}

func TestTaskStoreBinding(t *testing.T) {
	r := startRedis(t, false)
	c := r.client(t)
	ctx := testkit.Context(t)
	s := NewTaskStore(c, &Options{MaxTasks: 2})
	defer s.Close()
	now := time.Now().UTC().Truncate(time.Millisecond)
	task := func(id, principal string, ttl time.Duration) *server.Task {
		return &server.Task{ID: id, Principal: principal, Tool: "t", Status: server.TaskWorking, Created: now, Updated: now, Expires: now.Add(ttl)}
	}
	if err := s.Create(ctx, task("t1", "alice", time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, task("t1", "bob", time.Hour)); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("Create of a taken id: %v", err)
	}
	got, err := s.Get(ctx, "alice", "t1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(task("t1", "alice", time.Hour), got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	for _, tc := range []struct{ principal, id string }{{"bob", "t1"}, {"alice", "t2"}, {"alice", strings.Repeat("x", maxIDBytes+1)}} {
		if _, err := s.Get(ctx, tc.principal, tc.id); !errors.Is(err, server.ErrTaskNotFound) {
			t.Errorf("Get(%q, %.10q): %v, want ErrTaskNotFound", tc.principal, tc.id, err)
		}
		if _, err := s.Update(ctx, tc.principal, tc.id, func(*server.Task) error { return nil }); !errors.Is(err, server.ErrTaskNotFound) {
			t.Errorf("Update(%q, %.10q): %v, want ErrTaskNotFound", tc.principal, tc.id, err)
		}
	}
	// An update cannot move the task to another principal or id.
	up, err := s.Update(ctx, "alice", "t1", func(tk *server.Task) error {
		tk.Principal, tk.ID, tk.Status = "bob", "t9", server.TaskCompleted
		return nil
	})
	if err != nil || up.Principal != "alice" || up.ID != "t1" || up.Status != server.TaskCompleted {
		t.Errorf("Update: %+v, %v", up, err)
	}
	// The bound: 2 tasks of alice pass (t1 and a short one), the 3rd is
	// refused until the short one expires.
	if err := s.Create(ctx, task("t2", "alice", 300*time.Millisecond)); err != nil {
		t.Fatalf("2nd task of a bound of 2: %v", err)
	}
	if err := s.Create(ctx, task("t3", "alice", time.Hour)); !errors.Is(err, server.ErrTooManyTasks) {
		t.Errorf("3rd task of a bound of 2: %v, want ErrTooManyTasks", err)
	}
	if err := s.Create(ctx, task("b1", "bob", time.Hour)); err != nil {
		t.Errorf("another principal's task: %v", err)
	}
	testkit.Poll(t, "a 3rd task of alice's accepted once her 2nd expired", func() bool {
		return s.Create(ctx, task("t3", "alice", time.Hour)) == nil
	})
	if _, err := s.Get(ctx, "alice", "t2"); !errors.Is(err, server.ErrTaskNotFound) {
		t.Errorf("Get of an expired task: %v, want ErrTaskNotFound", err)
	}
	r.kill()
	if err := s.Create(ctx, task("t4", "carol", time.Hour)); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Create with Redis down: %v, want ErrUnavailable", err)
	}
	if _, err := s.Get(ctx, "alice", "t1"); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Get with Redis down: %v, want ErrUnavailable", err)
	}
}

// TestRoundTrips counts the round trips to Redis of each method, the
// scripts loaded first (a fresh Redis loads each on its first use).
func TestRoundTrips(t *testing.T) {
	r := startRedis(t, false)
	c := r.client(t)
	ctx := testkit.Context(t)
	for _, sc := range scripts {
		if err := sc.Load(ctx, c).Err(); err != nil {
			t.Fatal(err)
		}
	}
	trips := &tripCounter{}
	c.AddHook(trips)
	states := NewStateStore(c, nil)
	tasks := NewTaskStore(c, nil)
	defer tasks.Close()
	now := time.Now().UTC()
	count := func(op func() error) int64 {
		before := trips.n.Load()
		if err := op(); err != nil {
			t.Fatal(err)
		}
		return trips.n.Load() - before
	}
	got := map[string]int64{
		"continuation": count(func() error { _, err := states.Use(ctx, "s1", now.Add(time.Minute)); return err }),
		"create": count(func() error {
			return tasks.Create(ctx, &server.Task{ID: "t1", Status: server.TaskWorking, Created: now, Updated: now, Expires: now.Add(time.Hour)})
		}),
		"get": count(func() error { _, err := tasks.Get(ctx, "", "t1"); return err }),
		"update": count(func() error {
			_, err := tasks.Update(ctx, "", "t1", func(tk *server.Task) error { tk.Status = server.TaskCompleted; return nil })
			return err
		}),
		"update changing nothing": count(func() error {
			_, err := tasks.Update(ctx, "", "t1", func(*server.Task) error { return nil })
			return err
		}),
		"signal": count(func() error { return tasks.Signal(ctx, "t1") }),
	}
	want := map[string]int64{"continuation": 1, "create": 2, "get": 1, "update": 2, "update changing nothing": 1, "signal": 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trips (-want +got):\n%s", diff)
	}
}

func TestCheckConfig(t *testing.T) {
	r := startRedis(t, false)
	c := r.client(t)
	ctx := testkit.Context(t)
	for _, tc := range []struct {
		policy string
		want   error
	}{{"noeviction", nil}, {"volatile-lru", ErrEvicts}, {"allkeys-lru", ErrEvicts}} {
		if err := c.ConfigSet(ctx, "maxmemory-policy", tc.policy).Err(); err != nil {
			t.Fatal(err)
		}
		if err := CheckConfig(ctx, c); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("CheckConfig with %s: %v, want %v", tc.policy, err, tc.want)
		}
	}
	r.kill()
	if err := CheckConfig(ctx, c); !errors.Is(err, ErrUnavailable) {
		t.Errorf("CheckConfig with Redis down: %v, want ErrUnavailable", err)
	}
}

// TestStateStoreWaitReplicas: with WaitReplicas a use is accepted once a
// replica holds it, in one round trip; with the replica gone, it is
// refused, and stays recorded.
func TestStateStoreWaitReplicas(t *testing.T) {
	primary := startRedis(t, false)
	replica := startRedisWith(t, false, func(port int) []string {
		return []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--replicaof", "127.0.0.1", strconv.Itoa(primary.port)}
	})
	c := primary.client(t)
	ctx := testkit.Context(t)
	testkit.Poll(t, "the replica in sync", func() bool {
		info, err := c.Info(ctx, "replication").Result()
		return err == nil && strings.Contains(info, "connected_slaves:1") && strings.Contains(info, "state=online")
	})
	trips := &tripCounter{}
	c.AddHook(trips)
	s := NewStateStore(c, &Options{WaitReplicas: 1})
	expires := time.Now().Add(time.Minute)
	if _, err := s.Use(ctx, "warm", expires); err != nil { // the connection's own set-up is not counted
		t.Fatal(err)
	}
	trips.n.Store(0)
	if first, err := s.Use(ctx, "w1", expires); !first || err != nil {
		t.Fatalf("Use with a replica: %v, %v", first, err)
	}
	if n := trips.n.Load(); n != 1 {
		t.Errorf("round trips of a use with WAIT: %d, want 1", n)
	}
	if first, err := s.Use(ctx, "w1", expires); first || err != nil {
		t.Errorf("second Use: %v, %v; want false", first, err)
	}
	replica.kill()
	first, err := s.Use(ctx, "w2", expires)
	if first || !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "reached 0 of 1 replicas") {
		t.Errorf("Use without its replica: %v, %v; want ErrUnavailable, reached 0 of 1", first, err)
	}
	if first, err := s.Use(ctx, "w2", expires); first || err != nil {
		t.Errorf("Use of a state refused for want of a replica: %v, %v; want false (recorded)", first, err)
	}
}
