package mcptest_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/server"
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
	shared := httptest.NewServer(server.New("shared", "v0", nil).HTTPHandler(nil))
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
			call(tb, mcptest.HTTP(tb, &mcptest.FakeOptions{Stateless: true}).Client(nil))
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
