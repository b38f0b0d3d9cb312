package mcptest_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A passing test is not held up by the leak checks: with every wait they
// make set to an hour, each kind of test that leaves nothing behind ends
// within runWithin's deadline, and reports nothing. The servers of the
// keep-alive cases outlive the test, as a server shared by a package's
// tests does: the idle connections to them are not the test's leak.
func TestNothingLeftIsReportedAtOnce(t *testing.T) {
	mcptest.LeakCheck(t)
	mcptest.SetGroupTimeout(t, time.Hour)
	mcptest.SetLeakTimeout(t, time.Hour)
	// The cassette cases record where no cassette is, whatever the
	// environment: CI=true alone would make them refuse to record.
	t.Setenv("CI", "")
	t.Setenv(cassette.EnvRecord, "")
	srv, err := server.New("shared", "v0", nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	shared := httptest.NewServer(h)
	t.Cleanup(shared.Close)

	call := func(tb testing.TB, c *client.Client) {
		if _, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "x"}); err != nil {
			tb.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		body func(testing.TB)
	}{
		{"in-process", func(tb testing.TB) { call(tb, mcptest.InProcess(tb, nil).Client(nil)) }},
		{"stdio child", func(tb testing.TB) { call(tb, mcptest.Stdio(tb, nil).Client(nil)) }},
		{"HTTP 2026-07-28", func(tb testing.TB) { call(tb, mcptest.HTTP(tb, nil).Client(nil)) }},
		{"HTTP 2025-11-25", func(tb testing.TB) {
			def := mcptest.HTTP(tb, nil).Definition()
			def.Profile = client.Profile20251125
			call(tb, mcptest.Connect(tb, def, nil))
		}},
		{"HTTP stateless", func(tb testing.TB) {
			call(tb, mcptest.HTTP(tb, &mcptest.HTTPOptions{Stateless: true}).Client(nil))
		}},
		{"idle keep-alive of the go-sdk's client", func(tb testing.TB) {
			newConnections()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "sdk", Version: "v0"}, nil).
				Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: shared.URL}, nil)
			if err != nil {
				tb.Fatal(err)
			}
			if _, err := cs.ListTools(context.Background(), nil); err != nil {
				tb.Error(err)
			}
			cs.Close()
		}},
		{"idle keep-alive of http.Get", func(tb testing.TB) {
			newConnections()
			getShared(tb, shared.URL)
		}},
		{"cassette", func(tb testing.TB) {
			path := filepath.Join(tb.TempDir(), "lookup.jsonl")
			for range 2 { // record, then replay
				call(tb, mcptest.Connect(tb, mcptest.Cassette(tb, path, mcptest.InProcess(tb, nil).Definition(), nil), nil))
			}
		}},
		{"HTTP cassette", func(tb testing.TB) {
			def := mcptest.HTTP(tb, nil).Definition()
			call(tb, mcptest.Connect(tb, mcptest.Cassette(tb, filepath.Join(tb.TempDir(), "lookup.jsonl"), def, nil), nil))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recT{TB: t}
			failures := runWithin(t, 30*time.Second, r, func(tb testing.TB) {
				mcptest.LeakCheck(tb)
				tc.body(tb)
			})
			for _, f := range failures {
				t.Errorf("reported: %s", f)
			}
		})
	}
}

func getShared(tb testing.TB, url string) {
	resp, err := http.Get(url) // 405 or 400: only the connection matters
	if err != nil {
		tb.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// newConnections makes the next requests of http.DefaultClient dial anew,
// as they do in a package's first test.
func newConnections() { http.DefaultTransport.(*http.Transport).CloseIdleConnections() }

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
			f := mcptest.Stdio(tb, &mcptest.StdioOptions{Faults: []fakeserver.Fault{{Kind: fakeserver.FaultGrandchild}}})
			c, err := client.Connect(t.Context(), f.Definition(), nil) // not mcptest.Connect: nobody closes it
			if err != nil {
				tb.Fatal(err)
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

	// A grandchild that left the group is reported and killed too: the
	// group's SIGKILL does not reach it.
	t.Run("descendant outside the group", func(t *testing.T) {
		var leaked *client.Client
		r := &recT{TB: t}
		failures := runWithin(t, 30*time.Second, r, func(tb testing.TB) {
			f := mcptest.Stdio(tb, &mcptest.StdioOptions{Faults: []fakeserver.Fault{{Kind: fakeserver.FaultGrandchild, Setsid: true}}})
			c, err := client.Connect(t.Context(), f.Definition(), nil) // not mcptest.Connect: nobody closes it
			if err != nil {
				tb.Fatal(err)
			}
			// The connection's scans find the grandchild once it is
			// started: before the first call the child has started it.
			if _, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "x"}); err != nil {
				tb.Fatal(err)
			}
			deadline := time.Now().Add(10 * time.Second)
			for len(c.Conn().(*stdio.Conn).Descendants()) == 0 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond) // polling with a deadline: the connection scans on its own
			}
			leaked = c
		})
		defer leaked.Close()
		if len(failures) != 1 || !strings.Contains(failures[0], "a descendant outside the group") {
			t.Errorf("failures = %q, want one report naming the grandchild outside the group", failures)
		}
		if d := leaked.Conn().(*stdio.Conn).Descendants(); len(d) != 0 {
			t.Errorf("descendants %v still running after the report", d)
		}
	})

	t.Run("in-process session", func(t *testing.T) {
		var leaked *client.Client
		r := &recT{TB: t}
		failures := runWithin(t, 30*time.Second, r, func(tb testing.TB) {
			f := mcptest.InProcess(tb, nil)
			c, err := client.Connect(t.Context(), f.Definition(), nil)
			if err != nil {
				tb.Fatal(err)
			}
			leaked = c
		})
		leaked.Close()
		if len(failures) != 1 || !strings.Contains(failures[0], "1 open session") {
			t.Errorf("failures = %q, want one report of an open session", failures)
		}
	})
}
