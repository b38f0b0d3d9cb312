package mcptest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/mcptest/oauthtest"
	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type searchIn struct {
	Q string `json:"q"`
}

func searchResult(q string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found " + q}}}
}

// mySDKServer is a server under test written with the go-sdk alone.
func mySDKServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mine", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "search"}, func(_ context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, any, error) {
		return searchResult(in.Q), nil, nil
	})
	return srv
}

// myServer is the same server written with this module's server package.
func myServer(t testing.TB) *server.Server {
	srv, err := server.New("mine", "v0", nil)
	if err != nil {
		t.Fatal(err)
	}
	err = server.RegisterToolFor(srv, &mcp.Tool{Name: "search"}, func(_ context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, any, error) {
		return searchResult(in.Q), nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// wrappers serve a server under test, wrapped, on each transport.
var wrappers = []struct {
	name string
	wrap func(t testing.TB, faults []fakeserver.Fault) *mcptest.Fake
}{
	{"go-sdk/inprocess", func(t testing.TB, f []fakeserver.Fault) *mcptest.Fake {
		return mcptest.Wrap(t, mySDKServer(), &mcptest.WrapOptions{Faults: f})
	}},
	{"go-sdk/http", func(t testing.TB, f []fakeserver.Fault) *mcptest.Fake {
		return mcptest.WrapHTTP(t, mySDKServer(), &mcptest.WrapHTTPOptions{Faults: f})
	}},
	{"go-sdk/http-stateless", func(t testing.TB, f []fakeserver.Fault) *mcptest.Fake {
		return mcptest.WrapHTTP(t, mySDKServer(), &mcptest.WrapHTTPOptions{Faults: f, Stateless: true})
	}},
	{"server/inprocess", func(t testing.TB, f []fakeserver.Fault) *mcptest.Fake {
		return mcptest.Wrap(t, myServer(t), &mcptest.WrapOptions{Faults: f})
	}},
	{"server/http", func(t testing.TB, f []fakeserver.Fault) *mcptest.Fake {
		return mcptest.WrapHTTP(t, myServer(t), &mcptest.WrapHTTPOptions{Faults: f})
	}},
	{"server/http-stateless", func(t testing.TB, f []fakeserver.Fault) *mcptest.Fake {
		return mcptest.WrapHTTP(t, myServer(t), &mcptest.WrapHTTPOptions{Faults: f, Stateless: true})
	}},
}

// Your own server, wrapped, with a connected client in one line: every
// fault that acts there acts on it, and every call that reached its tool
// is counted once.
func TestWrapYourOwnServer(t *testing.T) {
	mcptest.LeakCheck(t)
	faults := []struct {
		fault fakeserver.Fault
		text  string // "" for a call that fails
		execs int
	}{
		{fakeserver.Fault{}, "found x", 1},
		{fakeserver.Fault{Kind: fakeserver.FaultDelay, Tool: "search", Delay: time.Millisecond}, "found x", 1},
		{fakeserver.Fault{Kind: fakeserver.FaultError, Tool: "search"}, "", 1},
		{fakeserver.Fault{Kind: fakeserver.FaultPanic, Tool: "search"}, "", 1},
		{fakeserver.Fault{Kind: fakeserver.FaultHang, Tool: "search"}, "", 1},
		{fakeserver.Fault{Kind: fakeserver.FaultFloodNotifications, Tool: "search", Count: 50}, "found x", 1},
		{fakeserver.Fault{Kind: fakeserver.FaultOversize, Tool: "search", Bytes: 8}, "xxxxxxxx", 1},
		{fakeserver.Fault{Kind: fakeserver.FaultDelayHeaders, Tool: "search", Delay: time.Millisecond}, "found x", 1},
		{fakeserver.Fault{Kind: fakeserver.FaultUnauthorized, Tool: "search"}, "", 0},
		{fakeserver.Fault{Kind: fakeserver.FaultForbidden, Tool: "search"}, "", 0},
		{fakeserver.Fault{Kind: fakeserver.FaultRedirect, Tool: "search"}, "", 0},
		{fakeserver.Fault{Kind: fakeserver.FaultDrop, Tool: "search"}, "", 1},
		{fakeserver.Fault{Kind: fakeserver.FaultGone, Tool: "search"}, "", 0},
		{fakeserver.Fault{Kind: fakeserver.FaultServerError, Tool: "search"}, "", 0},
		{fakeserver.Fault{Kind: fakeserver.FaultDropNoID, Tool: "search"}, "", 1},
	}
	for _, w := range wrappers {
		for _, ft := range faults {
			if ft.fault.HTTPOnly() && !strings.Contains(w.name, "http") {
				continue
			}
			var script []fakeserver.Fault
			if ft.fault.Kind != "" {
				script = []fakeserver.Fault{ft.fault}
			}
			t.Run(w.name+"/"+ft.fault.String(), func(t *testing.T) {
				fake := w.wrap(t, script)
				c := fake.Client(nil)
				ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
				if ft.fault.Kind == fakeserver.FaultHang {
					ctx, cancel = context.WithTimeout(t.Context(), 100*time.Millisecond)
				}
				defer cancel()
				res, err := c.CallTool(ctx, "search", map[string]any{"q": "x"})
				got := ""
				if err == nil {
					got = res.Content[0].(*mcp.TextContent).Text
				}
				if diff := cmp.Diff([2]any{ft.text, ft.execs}, [2]any{got, fake.Counts().Executions["search"]}); diff != "" {
					t.Errorf("[text, executions] mismatch (-want +got), error %v:\n%s", err, diff)
				}
			})
		}
	}
}

// A wrapped server passes the protocol checks, and its catalog can be
// pinned in a golden file.
func TestWrappedServerChecks(t *testing.T) {
	mcptest.LeakCheck(t)
	fake := mcptest.Wrap(t, myServer(t), nil)
	if err := mcptest.CheckServer(t.Context(), fake.Factory()); err != nil {
		t.Errorf("CheckServer: %v", err)
	}
	c := fake.Client(nil)
	if diff := cmp.Diff([]string{"search"}, toolNames(c.Catalog())); diff != "" {
		t.Errorf("tools mismatch (-want +got):\n%s", diff)
	}
}

func toolNames(cat *client.Catalog) []string {
	var names []string
	for _, tl := range cat.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// Bad options fail the test at once, with what is wrong. (An option that
// cannot act where it is given cannot be written: TestOptionsHoldOnlyWhatActs.)
func TestBadOptionsRefused(t *testing.T) {
	cases := []struct {
		name string
		run  func(testing.TB)
		want string
	}{
		{"wrap a fault for a missing tool", func(tb testing.TB) {
			mcptest.Wrap(tb, mySDKServer(), &mcptest.WrapOptions{Faults: []fakeserver.Fault{{Kind: fakeserver.FaultHang, Tool: "nope"}}})
		}, `server "mine" has no tool "nope"`},
		{"wrap over HTTP, a fault for a missing tool", func(tb testing.TB) {
			mcptest.WrapHTTP(tb, mySDKServer(), &mcptest.WrapHTTPOptions{Faults: []fakeserver.Fault{{Kind: fakeserver.FaultDrop, Tool: "nope"}}})
		}, `server "mine" has no tool "nope"`},
		{"unknown revision", func(tb testing.TB) { mcptest.Stdio(tb, &mcptest.StdioOptions{Revision: "2025-11-26"}) }, `unknown protocol revision "2025-11-26"`},
		{"protected by no server", func(tb testing.TB) { mcptest.HTTP(tb, &mcptest.HTTPOptions{Auth: &oauthtest.Protection{}}) }, "mcptest.HTTP: Auth: oauthtest: Protection has no Server"},
		{"wrap protected by no server", func(tb testing.TB) {
			mcptest.WrapHTTP(tb, mySDKServer(), &mcptest.WrapHTTPOptions{Auth: &oauthtest.Protection{}})
		}, "mcptest.WrapHTTP: Auth: oauthtest: Protection has no Server"},
		{"stdio, a catalog name and a custom catalog", func(tb testing.TB) {
			mcptest.Stdio(tb, &mcptest.StdioOptions{Catalog: "rich", Custom: weather})
		}, `set Catalog ("rich") or Custom ("weather"), not both`},
		{"in-process, a catalog name and a custom catalog", func(tb testing.TB) {
			mcptest.InProcess(tb, &mcptest.InProcessOptions{Catalog: "rich", Custom: weather})
		}, "not both"},
		{"unknown catalog", func(tb testing.TB) { mcptest.InProcess(tb, &mcptest.InProcessOptions{Catalog: "huge"}) }, `unknown catalog "huge"`},
		{"bad custom catalog", func(tb testing.TB) {
			mcptest.HTTP(tb, &mcptest.HTTPOptions{Custom: &fakeserver.Catalog{Name: "x y"}})
		}, "invalid catalog"},
		{"unregistered custom catalog in a child", func(tb testing.TB) {
			mcptest.Stdio(tb, &mcptest.StdioOptions{Custom: &fakeserver.Catalog{Name: "unregistered"}})
		}, `catalog "unregistered" is not registered`},
		{"a registered name, another catalog", func(tb testing.TB) {
			d := *weather
			mcptest.Stdio(tb, &mcptest.StdioOptions{Custom: &d})
		}, `catalog "weather" is not registered`},
		{"bad fault for a child", func(tb testing.TB) {
			mcptest.Stdio(tb, &mcptest.StdioOptions{Faults: []fakeserver.Fault{{Kind: fakeserver.FaultHang, Tool: "nope"}}})
		}, `has no tool "nope"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &recT{TB: t}
			failures := r.run(tc.run)
			if len(failures) != 1 || !strings.Contains(failures[0], tc.want) {
				t.Errorf("failures = %q, want one containing %q", failures, tc.want)
			}
		})
	}
}
