package mcptest_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawServer answers at the JSON-RPC level, so that it can break the rules a
// go-sdk server keeps: each call gets what reply returns for its method
// (a *jsonrpc.Error, or a result to encode).
type rawServer struct {
	reply func(method string, params json.RawMessage) any
	done  chan struct{} // closed when the serving goroutine ends
}

func (rawServer) Kind() transport.Kind { return transport.KindInProcess }

func (r *rawServer) Transport() (mcp.Transport, error) {
	ct, st := inprocess.Pipe()
	conn, err := st.Connect(context.Background())
	if err != nil {
		return nil, err
	}
	r.done = make(chan struct{})
	go func() {
		defer close(r.done)
		defer conn.Close()
		for {
			msg, err := conn.Read(context.Background())
			if err != nil {
				return
			}
			req, ok := msg.(*jsonrpc.Request)
			if !ok || !req.IsCall() {
				continue
			}
			resp := &jsonrpc.Response{ID: req.ID}
			if e, ok := r.reply(req.Method, req.Params).(*jsonrpc.Error); ok {
				resp.Error = e
			} else {
				resp.Result, _ = json.Marshal(r.reply(req.Method, req.Params))
			}
			if conn.Write(context.Background(), resp) != nil {
				return
			}
		}
	}()
	return ct, nil
}

// wellBehaved answers like a correct server with the tool lookup, and
// lets override replace the answer to some methods.
func wellBehaved(override func(method, cursor string) any) func(string, json.RawMessage) any {
	return func(method string, params json.RawMessage) any {
		var p struct {
			Cursor string `json:"cursor"`
		}
		json.Unmarshal(params, &p)
		if override != nil {
			if r := override(method, p.Cursor); r != nil {
				return r
			}
		}
		switch method {
		case "initialize":
			return map[string]any{
				"protocolVersion": "2025-11-25",
				"capabilities":    map[string]any{"tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": "raw", "version": "v0"},
			}
		case "tools/list":
			return map[string]any{"tools": []any{map[string]any{"name": "lookup", "inputSchema": map[string]any{"type": "object"}}}}
		case "tools/call":
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown tool"}
		default:
			return map[string]any{}
		}
	}
}

func checks(err error) []string {
	var names []string
	for _, e := range unjoin(err) {
		var ce *mcptest.CheckError
		if errors.As(e, &ce) {
			names = append(names, ce.Check)
		} else {
			names = append(names, "not a CheckError: "+e.Error())
		}
	}
	slices.Sort(names)
	return names
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err == nil {
		return nil
	}
	return []error{err}
}

func TestCheckServerFindsEveryProblem(t *testing.T) {
	for _, tc := range []struct {
		name     string
		override func(method, cursor string) any
		want     []string // the checks that fail
		text     string   // in the error's text
	}{
		{name: "correct"},
		{
			name: "cursor loop",
			override: func(method, cursor string) any {
				if method == "tools/list" {
					return map[string]any{"tools": []any{}, "nextCursor": "again"}
				}
				return nil
			},
			want: []string{"tools/list"}, text: `cursor "again" repeated`,
		},
		{
			name: "duplicate and badly named tools",
			override: func(method, cursor string) any {
				if method == "tools/list" {
					tool := map[string]any{"name": "look up!", "inputSchema": map[string]any{"type": "object"}}
					return map[string]any{"tools": []any{tool, tool}}
				}
				return nil
			},
			want: []string{"tools/list", "tools/list"}, text: "listed twice",
		},
		{
			name: "inconsistent pages",
			override: func() func(string, string) any {
				n := 0
				return func(method, cursor string) any {
					if method != "tools/list" {
						return nil
					}
					n++
					return map[string]any{"tools": []any{map[string]any{"name": strings.Repeat("t", n), "inputSchema": map[string]any{"type": "object"}}}}
				}
			}(),
			want: []string{"tools/list"}, text: "listing twice gave different items",
		},
		{
			name: "schemas",
			override: func(method, cursor string) any {
				if method == "tools/list" {
					return map[string]any{"tools": []any{
						map[string]any{"name": "a", "inputSchema": map[string]any{"type": "string"}},
						map[string]any{"name": "b", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"$ref": "#/nowhere"}}}},
						map[string]any{"name": "c", "inputSchema": map[string]any{"type": "object"}, "outputSchema": map[string]any{"type": "array"}},
					}}
				}
				return nil
			},
			want: []string{"tool schemas", "tool schemas", "tool schemas"}, text: `type is string, want "object"`,
		},
		{
			name: "unknown tool succeeds",
			override: func(method, cursor string) any {
				if method == "tools/call" {
					return map[string]any{"content": []any{}}
				}
				return nil
			},
			want: []string{"tools/call unknown"}, text: "succeeded",
		},
		{
			name: "no ping",
			override: func(method, cursor string) any {
				if method == "ping" {
					return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "no ping"}
				}
				return nil
			},
			want: []string{"ping"}, text: "no ping",
		},
		{
			name: "nameless",
			override: func(method, cursor string) any {
				if method == "initialize" {
					return map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "serverInfo": map[string]any{}}
				}
				return nil
			},
			want: []string{"initialize"}, text: "serverInfo has no name",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mcptest.LeakCheck(t)
			srv := &rawServer{reply: wellBehaved(tc.override)}
			err := mcptest.CheckServer(t.Context(), srv)
			if diff := cmp.Diff(tc.want, checks(err)); diff != "" {
				t.Errorf("CheckServer failing checks mismatch (-want +got):\n%s\nerror: %v", diff, err)
			}
			if tc.text != "" && (err == nil || !strings.Contains(err.Error(), tc.text)) {
				t.Errorf("CheckServer error %v lacks %q", err, tc.text)
			}
			<-srv.done
		})
	}
}

func TestCheckServerPassesTheFakeServers(t *testing.T) {
	for _, profile := range []string{"docs", "rich"} {
		t.Run(profile, func(t *testing.T) {
			mcptest.LeakCheck(t)
			f := mcptest.InProcess(t, &mcptest.InProcessOptions{Catalog: profile})
			if err := mcptest.CheckServer(t.Context(), f.Factory()); err != nil {
				t.Errorf("CheckServer: %v", err)
			}
		})
	}
	t.Run("stdio", func(t *testing.T) {
		mcptest.LeakCheck(t)
		mcptest.RunServerChecks(t, mcptest.Stdio(t, nil).Factory())
	})
}

// A server is checked at each revision it serves, each in its own session:
// a problem it has only on 2026-07-28 is found, and named with that
// revision; a server without server/discover is checked at 2025-11-25
// alone (the raw servers above).
func TestCheckServerChecksEachRevision(t *testing.T) {
	mcptest.LeakCheck(t)
	tool := map[string]any{"name": "lookup", "inputSchema": map[string]any{"type": "object"}}
	srv := &rawServer{reply: func(method string, params json.RawMessage) any {
		var p struct {
			Meta map[string]any `json:"_meta"`
		}
		json.Unmarshal(params, &p)
		current := p.Meta[mcp.MetaKeyProtocolVersion] == "2026-07-28"
		switch {
		case method == "server/discover":
			return map[string]any{
				"supportedVersions": []string{"2026-07-28", "2025-11-25"},
				"capabilities":      map[string]any{"tools": map[string]any{}},
				"_meta":             map[string]any{mcp.MetaKeyServerInfo: map[string]any{"name": "raw", "version": "v0"}},
			}
		case method == "tools/list" && current:
			return map[string]any{"tools": []any{tool, tool}}
		}
		return wellBehaved(nil)(method, params)
	}}
	err := mcptest.CheckServer(t.Context(), srv)
	var revs []string
	for _, e := range unjoin(err) {
		var ce *mcptest.CheckError
		if errors.As(e, &ce) {
			revs = append(revs, ce.Check+" at "+ce.Revision)
		}
	}
	if diff := cmp.Diff([]string{"tools/list at 2026-07-28"}, revs); diff != "" {
		t.Errorf("CheckServer problems mismatch (-want +got):\n%s\nerror: %v", diff, err)
	}
	if err == nil || !strings.Contains(err.Error(), `tools/list at 2026-07-28: page 1: "lookup" listed twice`) {
		t.Errorf("CheckServer error %v does not say what, where and at which revision", err)
	}
	<-srv.done
}

// A server of one revision passes at the revision it serves: one from
// before 2026-07-28 is checked at 2025-11-25 alone, and one of 2026-07-28
// only (initialize unknown) at 2026-07-28 alone. A server that serves
// neither fails: refusing initialize passes only beside server/discover.
func TestCheckServerOneRevision(t *testing.T) {
	for _, rev := range []string{fakeserver.Revision20251125, fakeserver.Revision20260728} {
		t.Run(rev, func(t *testing.T) {
			mcptest.LeakCheck(t)
			f := mcptest.InProcess(t, &mcptest.InProcessOptions{Revision: rev})
			if err := mcptest.CheckServer(t.Context(), f.Factory()); err != nil {
				t.Errorf("CheckServer: %v", err)
			}
			mcptest.RunServerChecks(t, f.Factory())
		})
	}
	t.Run("neither", func(t *testing.T) {
		mcptest.LeakCheck(t)
		srv := mcp.NewServer(&mcp.Implementation{Name: "neither", Version: "v0"}, nil)
		srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "initialize" || method == "server/discover" {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "no"}
				}
				return next(ctx, method, req)
			}
		})
		if err := mcptest.CheckServer(t.Context(), inprocess.New(srv)); err == nil {
			t.Error("CheckServer passed a server that serves no revision")
		}
	})
}

// CheckServer passes servers of 2026-07-28 over Streamable HTTP, which the
// ping check reaches only through the transport's stand-in for ping (the
// go-sdk's ClientSession.Ping sends that revision a ping without its
// per-request _meta): the fake over HTTP, stateful and stateless, a
// wrapped server.Server and a plain one behind httptest, and a go-sdk
// server.
func TestCheckServerOverHTTPAt20260728(t *testing.T) {
	own := func() *server.Server {
		s, err := server.New("own", "v1", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := server.RegisterToolFor(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct{ Text string }) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		}); err != nil {
			t.Fatal(err)
		}
		return s
	}
	plain := func(t *testing.T, h http.Handler) transport.Factory {
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		f, err := streamablehttp.New(ts.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	for name, factory := range map[string]func(t *testing.T) transport.Factory{
		"fake": func(t *testing.T) transport.Factory { return mcptest.HTTP(t, nil).Factory() },
		"fake-stateless": func(t *testing.T) transport.Factory {
			return mcptest.HTTP(t, &mcptest.HTTPOptions{Stateless: true}).Factory()
		},
		"fake-20260728": func(t *testing.T) transport.Factory {
			return mcptest.HTTP(t, &mcptest.HTTPOptions{Revision: fakeserver.Revision20260728}).Factory()
		},
		"wrapped": func(t *testing.T) transport.Factory { return mcptest.WrapHTTP(t, own(), nil).Factory() },
		"server": func(t *testing.T) transport.Factory {
			h, err := own().HTTPHandler(nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { h.Close() })
			return plain(t, h)
		},
		"go-sdk": func(t *testing.T) transport.Factory {
			s := mcp.NewServer(&mcp.Implementation{Name: "sdk", Version: "v1"}, nil)
			mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, nil
			})
			return plain(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
		},
	} {
		t.Run(name, func(t *testing.T) {
			mcptest.LeakCheck(t)
			f := factory(t)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := mcptest.CheckServer(ctx, f); err != nil {
				t.Errorf("CheckServer: %v", err)
			}
			// The same through this module's client and the session it
			// exposes.
			c := mcptest.Connect(t, client.Definition{Name: name, Profile: client.Profile20260728, Transport: f}, nil)
			if err := c.Session().Ping(ctx, nil); err != nil {
				t.Errorf("c.Session().Ping at %s: %v", c.ProtocolVersion(), err)
			}
		})
	}
}
