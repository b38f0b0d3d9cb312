package client_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type ctxKey struct{}

// sent is what a sending middleware saw of one tools/call.
type sent struct {
	Method   string
	CtxValue any
	MetaKeys []string
	Tasks    bool // the tasks extension declared in the capabilities: declareTasks ran first
}

// TestSendingMiddleware: Definition.SendingMiddleware sees each tools/call
// once, with the caller's context, innermost (the 2026-07-28 per-request
// _meta the client adds is there), and what it adds to _meta reaches the
// server.
func TestSendingMiddleware(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		profile   client.Profile
		wantKeys  []string
		wantTasks bool
	}{
		{client.Profile20260728, []string{"io.modelcontextprotocol/clientCapabilities", "io.modelcontextprotocol/clientInfo", "io.modelcontextprotocol/protocolVersion", "marker"}, true},
		{client.Profile20251125, []string{"marker"}, false},
	} {
		t.Run(tc.profile.String(), func(t *testing.T) {
			var mu sync.Mutex
			var got []sent
			mw := func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if method != "tools/call" {
						return next(ctx, method, req)
					}
					p := req.GetParams()
					m := p.GetMeta()
					if m == nil {
						m = map[string]any{}
					}
					caps, _ := json.Marshal(m[mcp.MetaKeyClientCapabilities])
					m["marker"] = "from-middleware"
					p.SetMeta(m)
					mu.Lock()
					got = append(got, sent{Method: method, CtxValue: ctx.Value(ctxKey{}), MetaKeys: sortedKeys(m), Tasks: strings.Contains(string(caps), "io.modelcontextprotocol/tasks")})
					mu.Unlock()
					return next(ctx, method, req)
				}
			}
			srv := docsServer(&counter{})
			var atServer any
			srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if method == "tools/call" {
						mu.Lock()
						atServer = req.GetParams().GetMeta()["marker"]
						mu.Unlock()
					}
					return next(ctx, method, req)
				}
			})
			c := connect(t, srv, client.Definition{Profile: tc.profile, Tasks: true, SendingMiddleware: []mcp.Middleware{mw}}, nil)
			ctx := context.WithValue(testkit.Context(t), ctxKey{}, "caller")
			if _, err := c.CallTool(ctx, "lookup", map[string]any{"query": "x"}); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			want := []sent{{Method: "tools/call", CtxValue: "caller", MetaKeys: tc.wantKeys, Tasks: tc.wantTasks}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("middleware saw mismatch (-want +got):\n%s", diff)
			}
			if atServer != "from-middleware" {
				t.Errorf("server saw _meta marker %v, want the middleware's", atServer)
			}
		})
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
