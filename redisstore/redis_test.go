package redisstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/redis/go-redis/v9"
)

func TestMain(m *testing.M) {
	redis.SetLogger(quiet{}) // the client logs each failed dial of a fault test
	os.Exit(leakcheck.Main(m))
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// redisProc is a redis-server the test started on a loopback port.
type redisProc struct {
	t       testing.TB
	bin     string
	port    int
	dir     string // its working directory, the test's own
	persist bool   // it keeps an append-only file there
	// args makes the command line for a port; nil: a plain server.
	args   func(port int) []string
	cmd    *exec.Cmd
	exited chan struct{}
}

// startRedis starts redis-server on a free loopback port, stopped at the
// test's end; it skips the test if redis-server is not installed. With
// persist, it keeps an append-only file (fsync on every write), so that
// a restart keeps what was written.
func startRedis(t testing.TB, persist bool) *redisProc {
	t.Helper()
	return startRedisWith(t, persist, nil)
}

// startRedisWith starts redis-server with the command line args makes
// (nil: startRedis's), in a directory of its own.
func startRedisWith(t testing.TB, persist bool, args func(port int) []string) *redisProc {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed (apt-get install redis-server): the Redis tests need a real Redis")
	}
	r := &redisProc{t: t, bin: bin, dir: t.TempDir(), persist: persist, args: args}
	t.Cleanup(r.kill)
	for attempt := 0; ; attempt++ {
		r.port = freePort(t)
		err := r.start()
		if err == nil {
			return r
		}
		if attempt == 4 {
			t.Fatalf("redis-server: no free port after 5 attempts: %v", err)
		}
	}
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (r *redisProc) addr() string { return "127.0.0.1:" + strconv.Itoa(r.port) }

// start runs redis-server on r.port and waits until it answers PING;
// an error if it exits first (the port was taken).
func (r *redisProc) start() error {
	args := []string{"--port", strconv.Itoa(r.port), "--bind", "127.0.0.1", "--save", "", "--protected-mode", "yes"}
	if r.persist {
		args = append(args, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		args = append(args, "--appendonly", "no")
	}
	if r.args != nil {
		args = r.args(r.port)
	}
	// A replica keeps the data it syncs in its directory, which any
	// later server started there would load: each has its own.
	args = append(args, "--dir", r.dir)
	cmd := exec.Command(r.bin, args...)
	if err := cmd.Start(); err != nil {
		r.t.Fatalf("redis-server: %v", err)
	}
	r.cmd, r.exited = cmd, make(chan struct{})
	go func(exited chan struct{}) { cmd.Wait(); close(exited) }(r.exited)
	c := redis.NewClient(&redis.Options{Addr: r.addr(), MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer c.Close()
	ctx := testkit.Context(r.t)
	for {
		pctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		err := c.Ping(pctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-r.exited:
			return fmt.Errorf("redis-server on port %d exited: %w", r.port, err)
		case <-ctx.Done():
			r.t.Fatalf("redis-server on port %d: no PONG within the test's deadline: %v", r.port, err)
		case <-time.After(testkit.PollInterval):
		}
	}
}

// kill stops the process at once (SIGKILL ends a paused one too).
func (r *redisProc) kill() {
	if r.cmd == nil {
		return
	}
	r.cmd.Process.Kill()
	<-r.exited
	r.cmd = nil
}

// restart kills the process and starts another on the same port.
func (r *redisProc) restart() {
	r.t.Helper()
	r.kill()
	if err := r.start(); err != nil {
		r.t.Fatal(err)
	}
}

// pause stops the process (SIGSTOP): connections stay open, nothing is
// answered; resume continues it.
func (r *redisProc) pause()  { r.signal(syscall.SIGSTOP) }
func (r *redisProc) resume() { r.signal(syscall.SIGCONT) }

func (r *redisProc) signal(sig syscall.Signal) {
	r.t.Helper()
	if err := r.cmd.Process.Signal(sig); err != nil {
		r.t.Fatalf("redis-server: %v: %v", sig, err)
	}
}

// client returns a client of r with short timeouts, so that a fault is
// seen within the test's time, closed at the test's end.
func (r *redisProc) client(t testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{
		Addr:         r.addr(),
		DialTimeout:  250 * time.Millisecond,
		ReadTimeout:  250 * time.Millisecond,
		WriteTimeout: 250 * time.Millisecond,
		MaxRetries:   -1,
		PoolTimeout:  250 * time.Millisecond,
	})
	t.Cleanup(func() { c.Close() })
	return c
}

// TestRedisHelper: the helper's server answers, and is gone once killed.
func TestRedisHelper(t *testing.T) {
	r := startRedis(t, false)
	c := r.client(t)
	ctx := testkit.Context(t)
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	r.kill()
	if err := c.Ping(ctx).Err(); err == nil || errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		t.Errorf("PING after kill: %v, want a connection error", err)
	}
}
