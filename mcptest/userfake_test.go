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
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// revisions are the protocol revisions every transport serves.
var revisions = []string{"2025-11-25", "2026-07-28"}

// fakeTransports start the user-defined fake weather with faults on each
// transport mcptest offers.
var fakeTransports = []struct {
	name  string
	start func(t testing.TB, faults []fakeserver.Fault) *mcptest.Fake
	where func(fakeserver.Fault) bool // which faults act there
}{
	{"inprocess", func(t testing.TB, f []fakeserver.Fault) *mcptest.Fake {
		return mcptest.InProcess(t, &mcptest.InProcessOptions{Custom: weather, Faults: f})
	}, inProcessFault},
	{"stdio", func(t testing.TB, f []fakeserver.Fault) *mcptest.Fake {
		return mcptest.Stdio(t, &mcptest.StdioOptions{Custom: weather, Faults: f})
	}, func(f fakeserver.Fault) bool { return !f.HTTPOnly() }},
	{"http", func(t testing.TB, f []fakeserver.Fault) *mcptest.Fake {
		return mcptest.HTTP(t, &mcptest.HTTPOptions{Custom: weather, Faults: f})
	}, func(f fakeserver.Fault) bool { return !f.StdioOnly() }},
	{"http-stateless", func(t testing.TB, f []fakeserver.Fault) *mcptest.Fake {
		return mcptest.HTTP(t, &mcptest.HTTPOptions{Custom: weather, Faults: f, Stateless: true})
	}, func(f fakeserver.Fault) bool { return !f.StdioOnly() }},
}

func inProcessFault(f fakeserver.Fault) bool { return !f.StdioOnly() && !f.HTTPOnly() }

// connectAt connects a go-sdk client to fake at the given revision, with
// an elicitation handler, closed at cleanup.
func connectAt(t testing.TB, fake *mcptest.Fake, version string) *mcp.ClientSession {
	t.Helper()
	c := testkit.NewClient(&mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		},
	})
	return testkit.Connect(t, testkit.Transport(t, fake.Factory()), &testkit.ConnectOptions{Client: c, Version: version})
}

// callText calls tool within d and returns its text, whether it was an
// isError result, and the error.
func callText(cs *mcp.ClientSession, tool string, args map[string]any, d time.Duration) (string, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", false, err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError, nil
}

// TestUserFakeFaultsOnEveryTransport runs every fault kind against a
// user-defined tool on every transport and both revisions, and counts the
// tool's executions at the fake: each call that reached the tool ran
// exactly once, whatever the fault did to its reply; a call refused in
// front of the protocol never ran.
func TestUserFakeFaultsOnEveryTransport(t *testing.T) {
	mcptest.LeakCheck(t)
	type want struct {
		Text       string // "" for a call that fails (error or isError)
		Executions int
	}
	const tool = "get_weather"
	faults := []struct {
		fault fakeserver.Fault
		want  want
	}{
		{fakeserver.Fault{}, want{"sunny in Oslo", 1}},
		{fakeserver.Fault{Kind: fakeserver.FaultDelay, Tool: tool, Delay: time.Millisecond}, want{"sunny in Oslo", 1}},
		{fakeserver.Fault{Kind: fakeserver.FaultHang, Tool: tool}, want{"", 1}},
		{fakeserver.Fault{Kind: fakeserver.FaultError, Tool: tool, Message: "down"}, want{"", 1}},
		{fakeserver.Fault{Kind: fakeserver.FaultPanic, Tool: tool}, want{"", 1}},
		{fakeserver.Fault{Kind: fakeserver.FaultOversize, Tool: tool, Bytes: 8}, want{"xxxxxxxx", 1}},
		{fakeserver.Fault{Kind: fakeserver.FaultCrash, Tool: tool, Code: 3}, want{"", 1}},
		{fakeserver.Fault{Kind: fakeserver.FaultFloodStderr, Tool: tool, Bytes: 4096}, want{"sunny in Oslo", 1}},
		{fakeserver.Fault{Kind: fakeserver.FaultFloodNotifications, Tool: tool, Count: 100}, want{"sunny in Oslo", 1}},
		{fakeserver.Fault{Kind: fakeserver.FaultMalformed, Tool: tool}, want{"", 1}},
		{fakeserver.Fault{Kind: fakeserver.FaultDrop, Tool: tool, Events: 0}, want{"", 1}}, // resumed where there is a session: see below
		{fakeserver.Fault{Kind: fakeserver.FaultDropNoID, Tool: tool, Events: 0}, want{"", 1}},
		{fakeserver.Fault{Kind: fakeserver.FaultDelayHeaders, Tool: tool, Delay: time.Millisecond}, want{"sunny in Oslo", 1}},
		{fakeserver.Fault{Kind: fakeserver.FaultUnauthorized, Tool: tool}, want{"", 0}},
		{fakeserver.Fault{Kind: fakeserver.FaultForbidden, Tool: tool}, want{"", 0}},
		{fakeserver.Fault{Kind: fakeserver.FaultGone, Tool: tool}, want{"", 0}},
		{fakeserver.Fault{Kind: fakeserver.FaultServerError, Tool: tool, Status: 503}, want{"", 0}},
		{fakeserver.Fault{Kind: fakeserver.FaultRedirect, Tool: tool}, want{"", 0}},
	}
	for _, tr := range fakeTransports {
		for _, version := range revisions {
			for _, ft := range faults {
				if ft.fault.Kind != "" && !tr.where(ft.fault) {
					continue
				}
				var script []fakeserver.Fault
				if ft.fault.Kind != "" {
					script = []fakeserver.Fault{ft.fault}
				}
				w := ft.want
				if ft.fault.Kind == fakeserver.FaultDrop && tr.name == "http" && version == "2025-11-25" {
					// A 2025-11-25 session resumes the dropped stream with
					// Last-Event-ID and reads the reply of the one execution.
					w.Text = "sunny in Oslo"
				}
				t.Run(fmt.Sprintf("%s/%s/%s", tr.name, version, ft.fault), func(t *testing.T) {
					fake := tr.start(t, script)
					cs := connectAt(t, fake, version)
					d := 10 * time.Second
					if ft.fault.Kind == fakeserver.FaultHang {
						d = 100 * time.Millisecond // the call never returns: give up on it
					}
					text, isError, err := callText(cs, tool, map[string]any{"city": "Oslo"}, d)
					got := want{Executions: fake.Counts().Executions[tool]}
					if err == nil && !isError {
						got.Text = text
					}
					if diff := cmp.Diff(w, got); diff != "" {
						t.Errorf("call (err %v) mismatch (-want +got):\n%s", err, diff)
					}
				})
			}
		}
	}
}

// A user-defined tool that asks the user completes with one execution in
// two rounds, on every transport and both revisions, except where the
// revision cannot ask: a 2025-11-25 client served statelessly has no
// session for the server's request to travel on; the call then fails at
// once (server.CallInputUnavailable) with no completed execution.
func TestUserFakeInputRequiredOnEveryTransport(t *testing.T) {
	mcptest.LeakCheck(t)
	for _, tr := range fakeTransports {
		for _, version := range revisions {
			t.Run(tr.name+"/"+version, func(t *testing.T) {
				fake := tr.start(t, nil)
				cs := connectAt(t, fake, version)
				text, isError, err := callText(cs, "confirm", nil, 5*time.Second)
				if tr.name == "http-stateless" && version == "2025-11-25" {
					got := [2]int{fake.Counts().Executions["confirm"], fake.Counts().Rounds["confirm"]}
					if err != nil || !isError || !strings.Contains(text, "input from the client unavailable") || got != [2]int{0, 1} {
						t.Errorf("confirm = %q, isError %v, %v, [executions rounds] %v; want input unavailable and [0 1]", text, isError, err, got)
					}
					return
				}
				if err != nil || isError || text != "confirmed: accept" {
					t.Fatalf("confirm = %q, isError %v, %v; want confirmed: accept", text, isError, err)
				}
				got := [2]int{fake.Counts().Executions["confirm"], fake.Counts().Rounds["confirm"]}
				if diff := cmp.Diff([2]int{1, 2}, got); diff != "" {
					t.Errorf("[executions, rounds] mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// A flood of notifications before a user tool's reply reaches a client that
// asked for log messages, every one and in order, on every transport and
// both revisions; the call completes once.
func TestUserFakeFloodNotificationsOnEveryTransport(t *testing.T) {
	mcptest.LeakCheck(t)
	const n = 200
	flood := []fakeserver.Fault{{Kind: fakeserver.FaultFloodNotifications, Tool: "get_weather", Count: n}}
	for _, tr := range fakeTransports {
		for _, profile := range []client.Profile{client.Profile20260728, client.Profile20251125} {
			t.Run(tr.name+"/"+profile.String(), func(t *testing.T) {
				fake := tr.start(t, flood)
				logs := make(chan string, n)
				def := fake.Definition()
				def.Profile = profile
				//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.LoggingMessageParams
				c := mcptest.Connect(t, def, &client.Handlers{Logging: func(_ context.Context, m *mcp.LoggingMessageParams) {
					logs <- fmt.Sprint(m.Data)
				}})
				res, err := c.CallTool(t.Context(), "get_weather", map[string]any{"city": "Oslo"})
				if err != nil || res.IsError {
					t.Fatalf("get_weather = %v, %v", res, err)
				}
				for i := range n {
					select {
					case got := <-logs:
						if want := fmt.Sprintf("flood %d of %d", i+1, n); got != want {
							t.Fatalf("notification %d = %q, want %q", i+1, got, want)
						}
					case <-time.After(10 * time.Second):
						t.Fatalf("%d of %d notifications arrived", i, n)
					}
				}
				if got := fake.Counts().Executions["get_weather"]; got != 1 {
					t.Errorf("Executions = %d, want 1", got)
				}
				if d := c.DroppedNotifications(); d != 0 {
					t.Errorf("DroppedNotifications = %d, want 0", d)
				}
			})
		}
	}
}
