package hostileclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds of the targets, small so that the cases at their edges are cheap.
const (
	maxBody     = 64 << 10
	maxSessions = 3
)

// A target is one server under attack, served on a loopback port, with
// the executions of its tools counted.
type target struct {
	kind      string // "server" (this module's) or "go-sdk"
	mode      string // "default" or "stateless"
	h         http.Handler
	ts        *httptest.Server
	execs     atomic.Int64 // executions of every tool
	completed atomic.Int64 // executions of rm that completed its call
	base      int64        // execs at the mark
}

// tools are the tools every target serves: echo returns its text; rm asks
// "Delete it?" and completes when answered with the state it set; level
// mirrors its integer argument n in the Mcp-Param-N header.
var tools = []struct {
	tool *mcp.Tool
}{
	{&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)}},
	{&mcp.Tool{Name: "rm", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
	{&mcp.Tool{Name: "level", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}}`)}},
}

// handle is the tools' handler, for both kinds of target.
func (tg *target) handle(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	tg.execs.Add(1)
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	if req.Params.Name != "rm" {
		return text("ok " + string(req.Params.Arguments)), nil
	}
	if _, ok := req.Params.InputResponses["confirm"]; ok && req.Params.RequestState == "asked" {
		tg.completed.Add(1)
		return text("deleted"), nil
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Message: "Delete it?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)}},
		RequestState:  "asked",
	}, nil
}

// newTarget starts a target of kind in mode; edit, if set, changes this
// module's options first, and wrap the handler.
func newTarget(t *testing.T, kind, mode string, edit func(*server.Options, *server.HTTPOptions), wrap func(http.Handler) http.Handler) *target {
	t.Helper()
	tg := &target{kind: kind, mode: mode}
	switch kind {
	case "server":
		o, ho := &server.Options{}, &server.HTTPOptions{Stateless: mode == "stateless", MaxBodyBytes: maxBody, MaxSessions: maxSessions}
		if edit != nil {
			edit(o, ho)
		}
		o.Tasks = &server.TaskOptions{Store: server.NewMemoryTaskStore(maxTasks)}
		s, err := server.New("hostile", "v1", o)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range tools {
			if err := s.RegisterTool(tl.tool, tg.handle); err != nil {
				t.Fatal(err)
			}
		}
		tg.registerTaskTools(t, s)
		h, err := s.HTTPHandler(ho)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close(); s.Close() })
		tg.h = h
	case "go-sdk":
		s := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "v1"}, nil)
		for _, tl := range tools {
			s.AddTool(tl.tool, tg.handle)
		}
		opts := &mcp.StreamableHTTPOptions{Stateless: mode == "stateless", MaxRequestBodyBytes: maxBody}
		if mode != "stateless" {
			opts.EventStore = mcp.NewMemoryEventStore(nil)
		}
		tg.h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, opts)
	}
	h := tg.h
	if wrap != nil {
		h = wrap(h)
	}
	tg.ts = httptest.NewServer(h)
	t.Cleanup(tg.ts.Close)
	return tg
}

// header lists request headers, a name and a value at a time; a name
// given twice is sent twice.
type header []string

// An answer is what a request got: its status, the JSON-RPC error code
// (0: none) and the reply's id as written.
type answer struct {
	status int
	code   int64
	isErr  bool // the reply is a JSON-RPC error (whose code may be 0)
	id     string
	body   string
}

// String is the answer as the table shows it: "200", "400/-32600", and
// "200/0" for an error whose code is 0, which is no JSON-RPC code.
func (a answer) String() string {
	if a.isErr {
		return fmt.Sprintf("%d/%d", a.status, a.code)
	}
	return fmt.Sprint(a.status)
}

// post sends body with the headers every Streamable HTTP client sends
// plus hs, editing the request with edit if set.
func (tg *target) post(t *testing.T, body string, hs header, edit func(*http.Request)) answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, tg.ts.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i < len(hs); i += 2 {
		req.Header.Add(hs[i], hs[i+1])
	}
	if edit != nil {
		edit(req)
	}
	resp, err := tg.ts.Client().Do(req)
	if err != nil {
		return answer{body: err.Error()}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return parse(resp.StatusCode, string(b))
}

// parse reads the JSON-RPC reply of a body: the body, or the data of its
// last event that holds one.
func parse(status int, body string) answer {
	a := answer{status: status, body: strings.TrimSpace(body)}
	raw := a.body
	for line := range strings.Lines(body) {
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data:"); ok && strings.Contains(d, `"jsonrpc"`) {
			raw = strings.TrimSpace(d)
		}
	}
	var r struct {
		ID    json.RawMessage `json:"id"`
		Error *jsonrpc.Error  `json:"error"`
	}
	if json.Unmarshal([]byte(raw), &r) == nil {
		a.id = string(r.ID)
		if r.Error != nil {
			a.code, a.isErr = r.Error.Code, true
		}
	}
	return a
}

// meta is the _meta of a 2026-07-28 request; eliciting declares the
// elicitation capability.
const (
	meta      = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"hostile","version":"v0"}}`
	version26 = "2026-07-28"
)

// call26 is a 2026-07-28 tools/call of tool with arguments args (a JSON
// object), more params members (",…" or ""), and its headers.
func call26(id, tool, args, more string) (string, header) {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + more + `,` + meta + `}}`,
		header{"Mcp-Protocol-Version", version26, "Mcp-Method", "tools/call", "Mcp-Name", tool}
}

// ask calls rm on 2026-07-28 and returns the requestState of its
// input-required result.
func (tg *target) ask(t *testing.T) string {
	t.Helper()
	body, hs := call26("1", "rm", `{"path":"/a"}`, "")
	a := tg.post(t, body, hs, nil)
	var r struct {
		Result struct {
			RequestState string `json:"requestState"`
		} `json:"result"`
	}
	for line := range strings.Lines(a.body) {
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data:"); ok {
			json.Unmarshal([]byte(d), &r)
		}
	}
	if r.Result.RequestState == "" {
		json.Unmarshal([]byte(a.body), &r)
	}
	if r.Result.RequestState == "" {
		t.Fatalf("rm did not ask: %s", a.body)
	}
	return r.Result.RequestState
}

// answer continues rm with the confirmation and state.
func (tg *target) answer(t *testing.T, state string, edit func(*http.Request)) answer {
	t.Helper()
	body, hs := call26("2", "rm", `{"path":"/a"}`, `,"inputResponses":{"confirm":{"action":"accept","content":{}}},"requestState":`+quote(state))
	return tg.post(t, body, hs, edit)
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// initialize is a 2025-11-25 initialize request.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hostile","version":"v0"}}}`

// open opens a 2025-11-25 session and returns its id.
func (tg *target) open(t *testing.T, edit func(*http.Request)) (string, answer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, tg.ts.URL, strings.NewReader(initialize))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if edit != nil {
		edit(req)
	}
	resp, err := tg.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	id := resp.Header.Get("Mcp-Session-Id")
	if id != "" {
		tg.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header{"Mcp-Session-Id", id, "Mcp-Protocol-Version", "2025-11-25"}, edit)
	}
	return id, parse(resp.StatusCode, string(b))
}

// call25 is a 2025-11-25 tools/call of echo in session id.
func call25(id string) (string, header) {
	return `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		header{"Mcp-Session-Id", id, "Mcp-Protocol-Version", "2025-11-25"}
}

// bearer is the go-sdk's bearer-token middleware, each token its own
// principal.
func bearer(h http.Handler) http.Handler {
	return auth.RequireBearerToken(func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: token, Expiration: time.Now().Add(time.Hour)}, nil
	}, nil)(h)
}

func as(user string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+user) }
}

var _ = leakcheck.Check
