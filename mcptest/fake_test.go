package mcptest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
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
		if got := f.Counts().Executions["lookup"]; got != i {
			t.Fatalf("after %d calls, Executions = %d", i, got)
		}
	}
}

func TestStdioCrashRunsOnceAndIsReaped(t *testing.T) {
	mcptest.LeakCheck(t)
	f := mcptest.Stdio(t, &mcptest.StdioOptions{
		Faults: []fakeserver.Fault{{Kind: fakeserver.FaultCrash, Tool: "lookup", Code: 3}},
	})
	c := mcptest.Connect(t, f.Definition(), nil)
	_, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "x"})
	e, ok := err.(*client.Error)
	if !ok || e.Class != client.ClassServer || e.Diagnosis == nil || e.Diagnosis.ExitCode != 3 {
		t.Fatalf("CallTool error = %v, want a server-class *client.Error with exit status 3", err)
	}
	if got := f.Counts().Executions["lookup"]; got != 1 {
		t.Errorf("Executions = %d, want 1", got)
	}
}

// The rich catalog's log tool honours the client's level on every
// transport and both revisions: on 2025-11-25 the client sets it with
// logging/setLevel, on 2026-07-28 it carries it in every request's _meta.
// A 2025-11-25 client served statelessly has no session to hold the level,
// and the go-sdk logs at "info" for it.
func TestRichLogOnEveryTransport(t *testing.T) {
	mcptest.LeakCheck(t)
	for _, tr := range []struct {
		name  string
		start func(testing.TB) *mcptest.Fake
	}{
		{"inprocess", func(t testing.TB) *mcptest.Fake {
			return mcptest.InProcess(t, &mcptest.InProcessOptions{Catalog: fakeserver.CatalogRich})
		}},
		{"stdio", func(t testing.TB) *mcptest.Fake {
			return mcptest.Stdio(t, &mcptest.StdioOptions{Catalog: fakeserver.CatalogRich})
		}},
		{"http", func(t testing.TB) *mcptest.Fake {
			return mcptest.HTTP(t, &mcptest.HTTPOptions{Catalog: fakeserver.CatalogRich})
		}},
		{"http-stateless", func(t testing.TB) *mcptest.Fake {
			return mcptest.HTTP(t, &mcptest.HTTPOptions{Catalog: fakeserver.CatalogRich, Stateless: true})
		}},
	} {
		for _, profile := range []client.Profile{client.Profile20260728, client.Profile20251125} {
			t.Run(tr.name+"/"+profile.String(), func(t *testing.T) {
				logs := make(chan string, 8)
				//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.LoggingMessageParams
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

// A fault a fake cannot act on where it is served fails the test at once,
// saying what to use, rather than doing nothing (in-process) or failing
// the child at start (stdio).
func TestFakesRefuseFaultsTheyCannotServe(t *testing.T) {
	mcptest.LeakCheck(t)
	drop := []fakeserver.Fault{{Kind: fakeserver.FaultDrop, Tool: "lookup"}}
	crash := []fakeserver.Fault{{Kind: fakeserver.FaultCrash, Tool: "lookup"}}
	for _, tc := range []struct {
		name  string
		start func(testing.TB)
		want  string
	}{
		{"InProcess with an HTTP fault", func(tb testing.TB) { mcptest.InProcess(tb, &mcptest.InProcessOptions{Faults: drop}) }, "does not act in-process, only over Streamable HTTP (Server.HTTPHandler, Server.StartHTTP, --http): use mcptest.HTTP"},
		{"Stdio with an HTTP fault", func(tb testing.TB) { mcptest.Stdio(tb, &mcptest.StdioOptions{Faults: drop}) }, "does not act in a stdio child, only over Streamable HTTP (Server.HTTPHandler, Server.StartHTTP, --http): use mcptest.HTTP"},
		{"Wrap with an HTTP fault", func(tb testing.TB) {
			fs, err := fakeserver.New(nil)
			if err != nil {
				tb.Fatal(err)
			}
			mcptest.Wrap(tb, fs.Server(), &mcptest.WrapOptions{Faults: drop})
		}, "use mcptest.WrapHTTP"},
		{"InProcess with a process fault", func(tb testing.TB) { mcptest.InProcess(tb, &mcptest.InProcessOptions{Faults: crash}) }, "does not act in-process, only in a child process (fakeserver.Main)"},
		{"HTTP with a process fault", func(tb testing.TB) { mcptest.HTTP(tb, &mcptest.HTTPOptions{Faults: crash}) }, "does not act in this process, only in a child process (fakeserver.Main)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recT{TB: t}
			failures := r.run(tc.start)
			if len(failures) != 1 || !strings.Contains(failures[0], tc.want) {
				t.Errorf("failures = %q, want one containing %q", failures, tc.want)
			}
		})
	}
}
