package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// modes are the two ways HTTPHandler serves: the default, and Stateless.
var modes = []struct {
	name string
	opts *HTTPOptions
}{
	{"default", nil},
	{"stateless", &HTTPOptions{Stateless: true}},
}

// connectVersion connects a go-sdk client to ts on protocol revision
// version ("" for the go-sdk's default, which offers 2026-07-28). The
// server must negotiate that revision. It closes the session at cleanup
// (c nil: a plain client).
func connectVersion(t testing.TB, ts *httptest.Server, c *mcp.Client, version string) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: ts.Client(), MaxRetries: -1}
	return testkit.Connect(t, tr, &testkit.ConnectOptions{Client: c, Version: version})
}

// postCounter counts the POSTs that reach the handler.
func postCounter(h http.Handler, n *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost {
			n.Add(1)
		}
		h.ServeHTTP(w, req)
	})
}

// TestHTTPServesBothRevisions connects real go-sdk clients on both
// revisions to both modes, and counts what the server saw.
func TestHTTPServesBothRevisions(t *testing.T) {
	for _, mode := range modes {
		for _, version := range []string{"", "2025-11-25"} {
			t.Run(fmt.Sprintf("%s/%q", mode.name, version), func(t *testing.T) {
				leakcheck.Check(t)
				s, runs := countingServer(t, nil)
				h := httpHandler(t, s, mode.opts)
				var posts atomic.Int64
				ts := httptest.NewServer(postCounter(h, &posts))
				defer ts.Close()
				defer h.Close()
				cs := connectVersion(t, ts, nil, version)

				wantVersion, wantSession := version, version != "" && mode.opts == nil
				if version == "" {
					wantVersion = "2026-07-28"
				}
				if got := cs.InitializeResult().ProtocolVersion; got != wantVersion {
					t.Errorf("negotiated %q, want %q", got, wantVersion)
				}
				if got := cs.ID() != ""; got != wantSession {
					t.Errorf("session id %q; want one: %v", cs.ID(), wantSession)
				}
				setup := posts.Load()
				for i := range 3 {
					q := fmt.Sprint("q", i)
					if got, isErr := call(t, cs, "lookup", `{"query":"`+q+`"}`); got != "docs: "+q || isErr {
						t.Errorf("CallTool = %q (isError %v), want %q", got, isErr, "docs: "+q)
					}
				}
				if got := runs.Load(); got != 3 {
					t.Errorf("the tool ran %d times, want 3", got)
				}
				if got := posts.Load() - setup; got != 3 {
					t.Errorf("%d POSTs for 3 calls, want 3", got)
				}
				if mode.opts != nil && sessionCount(s) != 0 {
					testkit.Poll(t, "the stateless server to keep no session", func() bool { return sessionCount(s) == 0 })
				}
			})
		}
	}
}

// TestHTTPInputRequired calls a tool that needs the user twice in one call
// over HTTP, from each revision in each mode: one completed execution per
// call; on 2026-07-28 the client continues the call, before it the server
// asks within the call, and a stateless server cannot ask an older client.
func TestHTTPInputRequired(t *testing.T) {
	for _, mode := range modes {
		for _, version := range []string{"2026-07-28", "2025-11-25"} {
			t.Run(mode.name+"/"+version, func(t *testing.T) {
				leakcheck.Check(t)
				s := newServer(t, "docs", "v1", nil)
				var a asker
				mustRegister(t, s, &mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)}, a.handle)
				wire := countMethods(s)
				ts := serveHTTP(t, httpHandler(t, s, mode.opts))
				var asked atomic.Int64
				cs := connectVersion(t, ts, answering(version, &asked), version)

				got, isErr := call(t, cs, "ask", `{}`)
				counts := wire.counts("tools/call", "elicitation/create")
				if version == "2025-11-25" && mode.opts != nil {
					want := "input from the client unavailable: ask needs elicitation, and a client on protocol revision 2025-11-25 can be asked only in a session, which stateless HTTP serving does not keep"
					if got != want || !isErr {
						t.Errorf("CallTool = %q (isError %v), want the isError result %q", got, isErr, want)
					}
					if diff := cmp.Diff(map[string]int64{"tools/call": 1}, counts); diff != "" {
						t.Errorf("messages at the server mismatch (-want +got):\n%s", diff)
					}
					return
				}
				if got != "Ada likes green" || isErr {
					t.Errorf("CallTool = %q (isError %v), want %q", got, isErr, "Ada likes green")
				}
				if a.completed.Load() != 1 || a.rounds.Load() != 2 || asked.Load() != 2 {
					t.Errorf("completed %d, rounds %d, questions %d; want 1, 2, 2", a.completed.Load(), a.rounds.Load(), asked.Load())
				}
				want := map[string]int64{"tools/call": 3}
				if version < "2026-07-28" {
					want = map[string]int64{"tools/call": 1, "elicitation/create": 2}
				}
				if diff := cmp.Diff(want, counts); diff != "" {
					t.Errorf("messages at the server mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// meta is the _meta of a 2026-07-28 request from a client with no
// capabilities.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"v0"}}`

// rawRequest is a 2026-07-28 request: a JSON-RPC body whose params are
// params (an object's members, without braces) plus _meta, and the
// headers that go with it.
func rawRequest(ts *httptest.Server, id int, method, name, params string) *http.Request {
	if params != "" {
		params += ","
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s%s}}`, id, method, params, meta)
	url := "http://127.0.0.1/"
	if ts != nil {
		url = ts.URL
	}
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	return req
}

// rpcReply is the JSON-RPC response in a body (JSON, or the last data line
// of an event stream).
type rpcReply struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func parseReply(t testing.TB, body string) rpcReply {
	t.Helper()
	raw := body
	for line := range strings.Lines(body) {
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data:"); ok && strings.Contains(d, `"id"`) {
			raw = d
		}
	}
	var r rpcReply
	if err := json.Unmarshal([]byte(strings.TrimSpace(raw)), &r); err != nil {
		t.Fatalf("no JSON-RPC response in %q: %v", body, err)
	}
	return r
}

func TestHTTPDiscover(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			leakcheck.Check(t)
			s, _ := countingServer(t, &Options{Instructions: "Ask for docs."})
			ts := serveHTTP(t, httpHandler(t, s, mode.opts))
			status, body := do(t, ts, rawRequest(ts, 1, "server/discover", "", ""))
			r := parseReply(t, body)
			if status != http.StatusOK || r.Error != nil {
				t.Fatalf("server/discover: status %d, body %s", status, body)
			}
			var res struct {
				SupportedVersions []string        `json:"supportedVersions"`
				Capabilities      map[string]any  `json:"capabilities"`
				Instructions      string          `json:"instructions"`
				Meta              map[string]any  `json:"_meta"`
				TTLMs             *int            `json:"ttlMs"`
				CacheScope        string          `json:"cacheScope"`
				Extra             json.RawMessage `json:"-"`
			}
			if err := json.Unmarshal(r.Result, &res); err != nil {
				t.Fatal(err)
			}
			for _, v := range []string{"2026-07-28", "2025-11-25"} {
				if !slices.Contains(res.SupportedVersions, v) {
					t.Errorf("supportedVersions %v lacks %s", res.SupportedVersions, v)
				}
			}
			if _, ok := res.Capabilities["tools"]; !ok || res.Instructions != "Ask for docs." {
				t.Errorf("discover result %s; want the tools capability and the instructions", r.Result)
			}
			if info, _ := res.Meta[mcp.MetaKeyServerInfo].(map[string]any); info["name"] != "docs" || info["version"] != "v1" {
				t.Errorf("discover _meta %v; want the server's name and version", res.Meta)
			}
			if res.TTLMs == nil || res.CacheScope != "public" {
				t.Errorf("discover result %s; want the caching hints", r.Result)
			}
			// What the go-sdk's client learns from it.
			cs := connectVersion(t, ts, nil, "")
			if got := cs.InitializeResult().ServerInfo; got == nil || got.Name != "docs" {
				t.Errorf("the client's server info = %+v, want docs", got)
			}
		})
	}
}

// headerTool has an argument mirrored into the Mcp-Param-Region header.
func headerTool() *mcp.Tool {
	return &mcp.Tool{Name: "where", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"level":{"type":"integer"}}}`)}
}

// TestHTTPHeaderValidation gives every header rule of 2026-07-28 its
// accepted and refused cases, in both modes: a refused request gets 400
// and -32020 (header mismatch) and runs nothing.
func TestHTTPHeaderValidation(t *testing.T) {
	call := func(args string) string { return `"name":"where","arguments":` + args }
	set := func(kv ...string) func(*http.Request) {
		return func(r *http.Request) {
			for i := 0; i < len(kv); i += 2 {
				if kv[i+1] == "" {
					r.Header.Del(kv[i])
				} else {
					r.Header.Set(kv[i], kv[i+1])
				}
			}
		}
	}
	withBody := func(body string) func(*http.Request) {
		return func(r *http.Request) {
			r.ContentLength = int64(len(body))
			r.Body = io.NopCloser(strings.NewReader(body))
		}
	}
	tests := []struct {
		name           string
		method, tname  string
		params         string
		edit           func(*http.Request)
		accept         bool
		wantInResponse string // for a refusal, in the error message
	}{
		{"tools/list, matching", "tools/list", "", "", nil, true, ""},
		{"Mcp-Method lower-case name", "tools/list", "", "", set("Mcp-Method", "", "mcp-method", "tools/list"), true, ""},
		{"Mcp-Method differs", "tools/list", "", "", set("Mcp-Method", "prompts/list"), false, "Mcp-Method"},
		{"Mcp-Method missing", "tools/list", "", "", set("Mcp-Method", ""), false, "Mcp-Method"},
		{"Mcp-Method case differs", "tools/list", "", "", set("Mcp-Method", "TOOLS/LIST"), false, "Mcp-Method"},
		{"tools/call, matching", "tools/call", "where", call(`{"region":"eu"}`), set("Mcp-Param-Region", "eu"), true, ""},
		{"Mcp-Name with white space", "tools/call", "where", call(`{}`), set("Mcp-Name", "  where  "), true, ""},
		{"Mcp-Name differs", "tools/call", "where", call(`{}`), set("Mcp-Name", "lookup"), false, "Mcp-Name"},
		{"Mcp-Name missing", "tools/call", "where", call(`{}`), set("Mcp-Name", ""), false, "Mcp-Name"},
		{"Mcp-Param differs", "tools/call", "where", call(`{"region":"eu"}`), set("Mcp-Param-Region", "us"), false, "Mcp-Param-Region"},
		{"Mcp-Param missing", "tools/call", "where", call(`{"region":"eu"}`), nil, false, "Mcp-Param-Region"},
		{"Mcp-Param for an absent argument", "tools/call", "where", call(`{}`), set("Mcp-Param-Region", "eu"), false, "Mcp-Param-Region"},
		{"Mcp-Param in Base64", "tools/call", "where", call(`{"region":"Hello"}`), set("Mcp-Param-Region", "=?base64?SGVsbG8=?="), true, ""},
		{"Mcp-Param, bad Base64 padding", "tools/call", "where", call(`{"region":"Hello"}`), set("Mcp-Param-Region", "=?base64?SGVsbG8?="), false, "Base64"},
		{"Mcp-Param, bad Base64 characters", "tools/call", "where", call(`{"region":"Hello"}`), set("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?="), false, "Base64"},
		{"Mcp-Protocol-Version differs from _meta", "tools/list", "", "", set("Mcp-Protocol-Version", "2026-08-01"), false, "does not match"},
		{"Mcp-Protocol-Version missing", "tools/list", "", "", set("Mcp-Protocol-Version", ""), false, "Mcp-Protocol-Version header is required"},
		{"batch: Mcp-Protocol-Version missing", "tools/list", "", "", func(r *http.Request) {
			set("Mcp-Protocol-Version", "")(r)
			withBody(`[{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}]`)(r)
		}, false, "Mcp-Protocol-Version header is required"},
	}
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			leakcheck.Check(t)
			s := newServer(t, "docs", "v1", nil)
			var runs atomic.Int64
			mustRegister(t, s, headerTool(), func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				runs.Add(1)
				return textResult(string(req.Params.Arguments)), nil
			})
			ts := serveHTTP(t, httpHandler(t, s, mode.opts))
			for i, tt := range tests {
				req := rawRequest(ts, i+1, tt.method, tt.tname, tt.params)
				if tt.edit != nil {
					tt.edit(req)
				}
				before := runs.Load()
				status, body := do(t, ts, req)
				r := parseReply(t, body)
				ran := runs.Load() - before
				if tt.accept {
					if status != http.StatusOK || r.Error != nil {
						t.Errorf("%s: status %d, body %s; want it accepted", tt.name, status, body)
					}
					if tt.method == "tools/call" && ran != 1 {
						t.Errorf("%s: the tool ran %d times, want 1", tt.name, ran)
					}
					continue
				}
				if status != http.StatusBadRequest || r.Error == nil || r.Error.Code != mcp.CodeHeaderMismatch || !strings.Contains(r.Error.Message, tt.wantInResponse) {
					t.Errorf("%s: status %d, body %s; want 400 and error -32020 naming %s", tt.name, status, body, tt.wantInResponse)
				}
				if ran != 0 {
					t.Errorf("%s: the tool ran %d times for a refused request", tt.name, ran)
				}
			}
		})
	}
}

// TestHTTPStatelessBodyBound sends one 2026-07-28 body to handlers whose
// bound is its length (served) and one byte less (refused with 413 before
// anything runs), with a declared length and chunked, with and without the
// version header (then the handler reads the body to find the version).
func TestHTTPStatelessBodyBound(t *testing.T) {
	for _, mode := range modes {
		for _, chunked := range []bool{false, true} {
			for _, header := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/chunked=%v/header=%v", mode.name, chunked, header), func(t *testing.T) {
					leakcheck.Check(t)
					probe := rawRequest(nil, 1, "tools/call", "lookup", `"name":"lookup","arguments":{"query":"edge"}`)
					body, _ := io.ReadAll(probe.Body)
					n := int64(len(body))
					for _, limit := range []int64{n, n - 1} {
						s, runs := countingServer(t, nil)
						o := HTTPOptions{MaxBodyBytes: limit}
						if mode.opts != nil {
							o.Stateless = true
						}
						ts := serveHTTP(t, httpHandler(t, s, &o))
						req := rawRequest(ts, 1, "tools/call", "lookup", `"name":"lookup","arguments":{"query":"edge"}`)
						if !header {
							req.Header.Del("Mcp-Protocol-Version") // and so the version rule refuses it, once read
						}
						if chunked {
							req.ContentLength = -1
							req.Body = io.NopCloser(hideLength{strings.NewReader(string(body))})
						}
						status, got := do(t, ts, req)
						switch {
						case limit < n:
							if status != http.StatusRequestEntityTooLarge || runs.Load() != 0 {
								t.Errorf("body of %d bytes, bound %d: status %d (%q), %d runs; want 413 and none", n, limit, status, got, runs.Load())
							}
						case header:
							if status != http.StatusOK || !strings.Contains(got, "docs: edge") || runs.Load() != 1 {
								t.Errorf("body of %d bytes, bound %d: status %d (%q), %d runs; want the result, once", n, limit, status, got, runs.Load())
							}
						default: // read within the bound, then refused for its missing header
							if r := parseReply(t, got); status != http.StatusBadRequest || r.Error == nil || r.Error.Code != mcp.CodeHeaderMismatch {
								t.Errorf("body of %d bytes, bound %d, no header: status %d (%q); want 400 and -32020", n, limit, status, got)
							}
						}
					}
				})
			}
		}
	}
}

// TestHTTPStatelessToolBounds puts a tool's input and result bounds at
// their exact edge, called by the go-sdk's client on 2026-07-28 over
// stateless serving.
func TestHTTPStatelessToolBounds(t *testing.T) {
	leakcheck.Check(t)
	const in, out = 64, 128
	s := newServer(t, "docs", "v1", &Options{MaxInputBytes: in, MaxResultBytes: out})
	mustRegister(t, s, lookupTool(), func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct{ Query string }
		json.Unmarshal(req.Params.Arguments, &a)
		if n, err := fmt.Sscanf(a.Query, "result %d", new(int)); n == 1 && err == nil {
			var size int
			fmt.Sscanf(a.Query, "result %d", &size)
			// The result encodes as {"content":[{"type":"text","text":"…"}]}.
			return textResult(strings.Repeat("r", size-len(`{"content":[{"type":"text","text":""}]}`))), nil
		}
		return textResult("ok"), nil
	})
	ts := serveHTTP(t, httpHandler(t, s, &HTTPOptions{Stateless: true}))
	cs := connectVersion(t, ts, nil, "")
	query := func(n int) string { // arguments of exactly n bytes
		return `{"query":"` + strings.Repeat("q", n-len(`{"query":""}`)) + `"}`
	}
	for _, tt := range []struct {
		name, args string
		want       string
		isErr      bool
	}{
		{"input at its bound", query(in), "ok", false},
		{"input one byte over", query(in + 1), fmt.Sprintf("input too large: %d bytes of arguments exceed the %d-byte limit", in+1, in), true},
		{"result at its bound", fmt.Sprintf(`{"query":"result %d"}`, out), strings.Repeat("r", out-len(`{"content":[{"type":"text","text":""}]}`)), false},
		{"result one byte over", fmt.Sprintf(`{"query":"result %d"}`, out+1), fmt.Sprintf("result too large: %d bytes exceed the %d-byte limit", out+1, out), true},
	} {
		got, isErr := call(t, cs, "lookup", tt.args)
		if got != tt.want || isErr != tt.isErr {
			t.Errorf("%s: CallTool = %q (isError %v), want %q (isError %v)", tt.name, got, isErr, tt.want, tt.isErr)
		}
	}
}

// TestHTTPStatelessRefusesRebinding sends 2026-07-28 requests with a
// foreign Host or Origin to both modes: refused with 403 before anything
// runs; the same request with proper headers runs the tool.
func TestHTTPStatelessRefusesRebinding(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			leakcheck.Check(t)
			s, runs := countingServer(t, nil)
			ts := serveHTTP(t, httpHandler(t, s, mode.opts))
			lookupCall := func(id int, edit func(*http.Request)) (int, string) {
				req := rawRequest(ts, id, "tools/call", "lookup", `"name":"lookup","arguments":{"query":"x"}`)
				edit(req)
				return do(t, ts, req)
			}
			for i, tc := range []struct {
				name, wantBody string
				edit           func(*http.Request)
			}{
				{"host", `Host "evil.example:80" is not a loopback name`, func(r *http.Request) { r.Host = "evil.example:80" }},
				{"origin", `Origin "http://evil.example" is not a loopback origin`, func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }},
				{"null origin", `Origin "null" is not a valid origin`, func(r *http.Request) { r.Header.Set("Origin", "null") }},
			} {
				status, body := lookupCall(i+1, tc.edit)
				if status != http.StatusForbidden || !strings.Contains(body, tc.wantBody) {
					t.Errorf("%s: status %d, body %q; want 403 and a body containing %q", tc.name, status, body, tc.wantBody)
				}
			}
			if got := runs.Load(); got != 0 {
				t.Fatalf("the tool ran %d times for refused requests", got)
			}
			status, body := lookupCall(9, func(r *http.Request) { r.Header.Set("Origin", ts.URL) })
			if status != http.StatusOK || !strings.Contains(body, "docs: x") || runs.Load() != 1 {
				t.Errorf("control request: status %d, body %q, %d runs; want 200, the result, 1 run", status, body, runs.Load())
			}
		})
	}
}

// TestHTTPCloseEndsListenStream opens a 2026-07-28 subscriptions/listen
// stream, which lasts until the client leaves, and closes the handler:
// the stream ends and Close returns.
func TestHTTPCloseEndsListenStream(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			leakcheck.Check(t)
			s, _ := countingServer(t, nil)
			h := httpHandler(t, s, mode.opts)
			ts := httptest.NewServer(h)
			defer ts.Close()
			req := rawRequest(ts, 1, "subscriptions/listen", "", `"notifications":{"toolsListChanged":true}`)
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			first := make([]byte, 4096)
			n, err := resp.Body.Read(first)
			if err != nil || !strings.Contains(string(first[:n]), "notifications/subscriptions/acknowledged") {
				t.Fatalf("the listen stream began with %q, %v; want the acknowledgement", first[:n], err)
			}
			ended := make(chan error, 1)
			go func() {
				_, err := io.Copy(io.Discard, resp.Body)
				ended <- err
			}()
			closed := make(chan struct{})
			go func() { h.Close(); close(closed) }()
			for what, ch := range map[string]<-chan struct{}{"Close to return": closed, "the stream to end": done(ended)} {
				select {
				case <-ch:
				case <-time.After(5 * time.Second):
					t.Fatalf("timed out waiting for %s", what)
				}
			}
		})
	}
}

// done turns a channel of one error into one that closes when it arrives.
func done(errc <-chan error) <-chan struct{} {
	c := make(chan struct{})
	go func() { <-errc; close(c) }()
	return c
}

// TestHTTPCloseCancelsStatelessHandlers closes the handler while a
// stateless request's tool runs until its context ends: the context ends,
// and Close returns once the handler has.
func TestHTTPCloseCancelsStatelessHandlers(t *testing.T) {
	for _, tc := range []struct {
		mode    string
		opts    *HTTPOptions
		version string
	}{
		{"default", nil, "2026-07-28"},
		{"stateless", &HTTPOptions{Stateless: true}, "2026-07-28"},
		{"stateless", &HTTPOptions{Stateless: true}, "2025-11-25"},
	} {
		t.Run(tc.mode+"/"+tc.version, func(t *testing.T) {
			leakcheck.Check(t)
			s := newServer(t, "docs", "v1", nil)
			entered, cancelled := make(chan struct{}), make(chan struct{})
			mustRegister(t, s, &mcp.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				close(entered)
				select {
				case <-ctx.Done():
					close(cancelled)
				case <-time.After(10 * time.Second): // the test's own deadline
				}
				return textResult("done"), nil
			})
			h := httpHandler(t, s, tc.opts)
			ts := httptest.NewServer(h)
			defer ts.Close()
			cs := connectVersion(t, ts, nil, tc.version)
			called := make(chan error, 1)
			go func() { _, _, err := tryCall(cs, "wait", `{}`); called <- err }()
			<-entered
			closed := make(chan struct{})
			go func() { h.Close(); close(closed) }()
			for _, w := range []struct {
				what string
				ch   <-chan struct{}
			}{{"the handler's context to end", cancelled}, {"Close to return", closed}, {"the call to end", done(called)}} {
				select {
				case <-w.ch:
				case <-time.After(5 * time.Second):
					t.Fatalf("timed out waiting for %s", w.what)
				}
			}
		})
	}
}
