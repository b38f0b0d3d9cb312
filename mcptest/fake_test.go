package mcptest_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestInProcessCountsEveryExecution(t *testing.T) {
	mcptest.LeakCheck(t)
	f := mcptest.InProcess(t, nil)
	c := mcptest.Connect(t, f.Definition(), nil)
	for i := 1; i <= 2; i++ {
		if _, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "x"}); err != nil {
			t.Fatal(err)
		}
		if got := f.Executions("lookup"); got != i {
			t.Fatalf("after %d calls, Executions = %d", i, got)
		}
	}
}

func TestStdioCrashRunsOnceAndIsReaped(t *testing.T) {
	mcptest.LeakCheck(t)
	f := mcptest.Stdio(t, &mcptest.FakeOptions{
		Faults: []fakeserver.Fault{{Kind: fakeserver.FaultCrash, Tool: "lookup", Code: 3}},
	})
	c := mcptest.Connect(t, f.Definition(), nil)
	_, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "x"})
	e, ok := err.(*client.Error)
	if !ok || e.Class != client.ClassServer || e.Diagnosis == nil || e.Diagnosis.ExitCode != 3 {
		t.Fatalf("CallTool error = %v, want a server-class *client.Error with exit status 3", err)
	}
	if got := f.Executions("lookup"); got != 1 {
		t.Errorf("Executions = %d, want 1", got)
	}
}

// recT is a testing.TB that records failures and runs its cleanups when
// told, so that a test can check what a helper reports.
type recT struct {
	testing.TB // the real test: TempDir, Name
	mu         sync.Mutex
	failures   []string
	cleanups   []func()
}

func (r *recT) Helper() {}
func (r *recT) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}
func (r *recT) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *recT) Fatalf(format string, args ...any) { r.Errorf(format, args...); runtime.Goexit() }
func (r *recT) Fatal(args ...any)                 { r.Errorf("%s", fmt.Sprint(args...)); runtime.Goexit() }
func (r *recT) Logf(string, ...any)               {}

// run runs f as a test body on its own goroutine, then the cleanups, and
// returns the failures.
func (r *recT) run(f func(testing.TB)) []string {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
	return r.failures
}

// runWithin runs r.run(f) and fails t if it takes longer than d: a leak
// report that waits for a timeout it need not wait for.
func runWithin(t *testing.T, d time.Duration, r *recT, f func(testing.TB)) []string {
	t.Helper()
	done := make(chan []string, 1)
	go func() { done <- r.run(f) }()
	select {
	case failures := <-done:
		return failures
	case <-time.After(d):
		t.Fatalf("the leak report took longer than %v", d)
		return nil
	}
}

// Leaks are reported, and at once: a client never closed leaves a child
// running, or a session open, that will not end by itself, so the checks
// do not wait for GroupTimeout (an hour here).
func TestLeaksAreReported(t *testing.T) {
	mcptest.LeakCheck(t)
	mcptest.SetGroupTimeout(t, time.Hour)

	t.Run("child process", func(t *testing.T) {
		var leaked *client.Client
		r := &recT{TB: t}
		failures := runWithin(t, 30*time.Second, r, func(tb testing.TB) {
			f := mcptest.Stdio(tb, &mcptest.FakeOptions{Faults: []fakeserver.Fault{{Kind: fakeserver.FaultGrandchild}}})
			c, err := client.Connect(t.Context(), f.Definition(), nil) // not mcptest.Connect: nobody closes it
			if err != nil {
				t.Fatal(err)
			}
			leaked = c
		})
		defer leaked.Close()
		if len(failures) != 1 || !strings.Contains(failures[0], "process group") || strings.Count(failures[0], "\n    ") != 2 {
			t.Errorf("failures = %q, want one report naming the child and its grandchild", failures)
		}
		if stdio.GroupAlive(leaked.Conn().(*stdio.Conn).Pid()) {
			t.Errorf("the leaked group was not killed after the report")
		}
	})

	t.Run("in-process session", func(t *testing.T) {
		var leaked *client.Client
		r := &recT{TB: t}
		failures := runWithin(t, 30*time.Second, r, func(tb testing.TB) {
			f := mcptest.InProcess(tb, nil)
			c, err := client.Connect(t.Context(), f.Definition(), nil)
			if err != nil {
				t.Fatal(err)
			}
			leaked = c
		})
		leaked.Close()
		if len(failures) != 1 || !strings.Contains(failures[0], "1 open session") {
			t.Errorf("failures = %q, want one report of an open session", failures)
		}
	})
}

// The rich profile's log tool honours the client's level on every
// transport and both revisions: on 2025-11-25 the client sets it with
// logging/setLevel, on 2026-07-28 it carries it in every request's _meta.
// A 2025-11-25 client served statelessly has no session to hold the level,
// and the go-sdk logs at "info" for it.
func TestRichLogOnEveryTransport(t *testing.T) {
	mcptest.LeakCheck(t)
	rich := &mcptest.FakeOptions{Profile: fakeserver.ProfileRich}
	for _, tr := range []struct {
		name  string
		start func(testing.TB) *mcptest.Fake
	}{
		{"inprocess", func(t testing.TB) *mcptest.Fake { return mcptest.InProcess(t, rich) }},
		{"stdio", func(t testing.TB) *mcptest.Fake { return mcptest.Stdio(t, rich) }},
		{"http", func(t testing.TB) *mcptest.Fake { return mcptest.HTTP(t, rich) }},
		{"http-stateless", func(t testing.TB) *mcptest.Fake {
			return mcptest.HTTP(t, &mcptest.FakeOptions{Profile: fakeserver.ProfileRich, Stateless: true})
		}},
	} {
		for _, profile := range []client.Profile{client.Profile20260728, client.Profile20251125} {
			t.Run(tr.name+"/"+profile.String(), func(t *testing.T) {
				logs := make(chan string, 8)
				h := &client.Handlers{LogLevel: "notice", Logging: func(_ context.Context, m *mcp.LoggingMessageParams) {
					logs <- fmt.Sprintf("%s %v", m.Level, m.Data)
				}}
				def := tr.start(t).Definition()
				def.Profile = profile
				c := mcptest.Connect(t, def, h)
				if _, err := c.CallTool(t.Context(), "log", map[string]any{"count": 5}); err != nil {
					t.Fatal(err)
				}
				// In order, so once "error" has come, nothing below the
				// level can still come.
				want := []string{"notice message 3 of 5", "warning message 4 of 5", "error message 5 of 5"}
				if tr.name == "http-stateless" && profile == client.Profile20251125 {
					want = append([]string{"info message 2 of 5"}, want...)
				}
				var got []string
				for range want {
					select {
					case m := <-logs:
						got = append(got, m)
					case <-time.After(5 * time.Second):
						t.Fatalf("log messages = %q, want %q", got, want)
					}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("log messages mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}
