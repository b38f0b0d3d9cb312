package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// asker is a tool that needs the user, written once: it asks for a name
// (elicitation) in round 1, for a colour in round 2, and finishes. It
// counts its executions by outcome.
type asker struct {
	rounds    atomic.Int64 // executions that asked for input
	completed atomic.Int64 // executions that finished the call
	states    []string     // the requestState each execution saw
}

func (a *asker) handle(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	p := req.Params
	a.states = append(a.states, p.RequestState)
	switch p.RequestState {
	case "":
		a.rounds.Add(1)
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "Your name?", RequestedSchema: nameSchema}},
			RequestState:  "asked-name",
		}, nil
	case "asked-name":
		r, ok := ElicitResponse(p.InputResponses, "name")
		if !ok || r.Action != "accept" {
			return nil, fmt.Errorf("no name given")
		}
		a.rounds.Add(1)
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{"colour": &mcp.ElicitParams{Message: "Your colour?", RequestedSchema: colourSchema}},
			RequestState:  "name=" + r.Content["name"].(string),
		}, nil
	default:
		r, ok := ElicitResponse(p.InputResponses, "colour")
		if !ok {
			return nil, fmt.Errorf("no colour given")
		}
		a.completed.Add(1)
		name, _ := strings.CutPrefix(p.RequestState, "name=")
		return textResult(fmt.Sprintf("%s likes %v", name, r.Content["colour"])), nil
	}
}

var (
	nameSchema   = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
	colourSchema = json.RawMessage(`{"type":"object","properties":{"colour":{"type":"string"}},"required":["colour"]}`)
)

// answering is a go-sdk client whose user answers every elicitation, and
// counts the questions. On a revision before 2026-07-28 it does not know
// input-required results (as such a client does not): the go-sdk's client
// would otherwise fulfil one that reached it.
func answering(version string, asked *atomic.Int64) *mcp.Client {
	return testkit.NewClient(&mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: version < "2026-07-28"},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			if strings.Contains(req.Params.Message, "name") {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"colour": "green"}}, nil
		},
	})
}

func TestInputRequiredBothRevisions(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			leakcheck.Check(t)
			s := newServer(t, "docs", "v1", nil)
			var a asker
			mustRegister(t, s, &mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)}, a.handle)
			wire := countMethods(s)
			var asked atomic.Int64
			cs := testkit.Connect(t, testkit.Transport(t, s.Factory()), &testkit.ConnectOptions{Client: answering(version, &asked), Version: version})
			got, isErr := call(t, cs, "ask", `{}`)
			if got != "Ada likes green" || isErr {
				t.Errorf("CallTool = %q (isError %v), want %q", got, isErr, "Ada likes green")
			}
			if a.completed.Load() != 1 || a.rounds.Load() != 2 || asked.Load() != 2 {
				t.Errorf("completed %d, rounds %d, questions %d; want 1, 2, 2", a.completed.Load(), a.rounds.Load(), asked.Load())
			}
			if diff := cmp.Diff([]string{"", "asked-name", "name=Ada"}, a.states); diff != "" {
				t.Errorf("states the handler saw mismatch (-want +got):\n%s", diff)
			}
			// On 2026-07-28 the client continues the call twice; before it, the
			// server asks within the one call.
			want := map[string]int64{"tools/call": 3}
			if version < "2026-07-28" {
				want = map[string]int64{"tools/call": 1, "elicitation/create": 2}
			}
			if diff := cmp.Diff(want, wire.counts("tools/call", "elicitation/create")); diff != "" {
				t.Errorf("messages at the server mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// methodCounter counts the requests a server receives and sends, by method.
type methodCounter struct {
	mu sync.Mutex
	n  map[string]int64
}

// countMethods counts the requests s receives and sends from now on.
func countMethods(s *Server) *methodCounter {
	c := &methodCounter{n: make(map[string]int64)}
	mw := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			c.mu.Lock()
			c.n[method]++
			c.mu.Unlock()
			return next(ctx, method, req)
		}
	}
	s.MCP().AddReceivingMiddleware(mw)
	s.MCP().AddSendingMiddleware(mw)
	return c
}

// counts returns the counts of the given methods, leaving out zeros.
func (c *methodCounter) counts(methods ...string) map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int64)
	for _, m := range methods {
		if c.n[m] > 0 {
			out[m] = c.n[m]
		}
	}
	return out
}

// manual connects a go-sdk client on 2026-07-28 that hands input-required
// results to the test instead of fulfilling them, and declares caps.
func manual(t testing.TB, s *Server, caps *mcp.ClientCapabilities) *mcp.ClientSession {
	t.Helper()
	c := testkit.NewClient(&mcp.ClientOptions{
		Capabilities:   caps,
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	return testkit.Connect(t, testkit.Transport(t, s.Factory()), &testkit.ConnectOptions{Client: c})
}

var elicitCaps = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}}

// confirmer asks once for a confirmation and finishes with the arguments
// it was called with; it counts its executions.
type confirmer struct{ runs, completed atomic.Int64 }

func (c *confirmer) handle(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	c.runs.Add(1)
	if r, ok := ElicitResponse(req.Params.InputResponses, "ok"); ok && req.Params.RequestState == "confirm" {
		c.completed.Add(1)
		return textResult(fmt.Sprintf("%s %s: %s", r.Action, req.Params.Name, req.Params.Arguments)), nil
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{"ok": &mcp.ElicitParams{Message: "Sure?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)}},
		RequestState:  "confirm",
	}, nil
}

func confirmTool(name string) *mcp.Tool {
	return &mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"n":{"type":"number"}}}`)}
}

var accept = mcp.InputResponseMap{"ok": &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}}

// ask calls tool with args and returns the sealed state of its
// input-required result.
func ask(t testing.TB, cs *mcp.ClientSession, tool, args string) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("CallTool(%s): %v", tool, err)
	}
	if !res.NeedsInput() || res.RequestState == "" {
		t.Fatalf("CallTool(%s) = %+v; want an input-required result with a requestState", tool, res)
	}
	if res.RequestState == "confirm" {
		t.Fatalf("the requestState %q left the server as the handler wrote it", res.RequestState)
	}
	return res.RequestState
}

func continueCall(cs *mcp.ClientSession, tool, args, state string) (string, error) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{
		Name: tool, Arguments: json.RawMessage(args), InputResponses: accept, RequestState: state,
	})
	if err != nil {
		return "", err
	}
	return text(res.Content), nil
}

func TestRequestStateSealed(t *testing.T) {
	leakcheck.Check(t)
	key := []byte(strings.Repeat("k", 32))
	s := newServer(t, "docs", "v1", &Options{StateKey: key})
	var c confirmer
	mustRegister(t, s, confirmTool("rm"), c.handle)
	mustRegister(t, s, confirmTool("rm2"), c.handle)
	cs := manual(t, s, elicitCaps)
	const args = `{"path":"/tmp/a","n":1}`
	state := ask(t, cs, "rm", args)

	replica := newServer(t, "docs", "v1", &Options{StateKey: key})
	mustRegister(t, replica, confirmTool("rm"), c.handle)
	other := newServer(t, "docs", "v1", nil) // its own random key
	mustRegister(t, other, confirmTool("rm"), c.handle)

	flipped := []byte(state)
	flipped[len(flipped)/2] ^= 1
	refused := "invalid requestState"
	const fresh = "a fresh state" // ask again first
	for _, tt := range []struct {
		name       string
		cs         *mcp.ClientSession
		tool, args string
		state      string
		want       string // the text, or the start of the error
	}{
		{"suffix appended", cs, "rm", args, state + "-TAMPERED", refused},
		{"one bit flipped", cs, "rm", args, string(flipped), refused},
		{"truncated", cs, "rm", args, state[:len(state)-1], refused},
		{"the handler's own state", cs, "rm", args, "confirm", refused},
		{"another tool", cs, "rm2", args, state, refused},
		{"other arguments", cs, "rm", `{"path":"/etc","n":1}`, state, refused},
		{"another number", cs, "rm", `{"path":"/tmp/a","n":2}`, state, refused},
		{"a server with another key", manual(t, other, elicitCaps), "rm", args, state, refused},
		{"echoed", cs, "rm", args, state, `accept rm: {"path":"/tmp/a","n":1}`},
		{"echoed again", cs, "rm", args, state, refused},
		{"re-encoded arguments", cs, "rm", `{ "n": 1, "path": "/tmp/a" }`, fresh, `accept rm: {"n":1,"path":"/tmp/a"}`},
		{"a replica with the same key", manual(t, replica, elicitCaps), "rm", args, fresh, `accept rm: {"path":"/tmp/a","n":1}`},
	} {
		if tt.state == fresh {
			tt.state = ask(t, cs, "rm", args)
		}
		before := c.runs.Load()
		got, err := continueCall(tt.cs, tt.tool, tt.args, tt.state)
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s: continuation = %q, want %q", tt.name, got, tt.want)
		}
		ran := c.runs.Load() - before
		if tt.want == refused && ran != 0 {
			t.Errorf("%s: the handler ran %d times for a refused continuation", tt.name, ran)
		}
		if tt.want != refused && ran != 1 {
			t.Errorf("%s: the handler ran %d times, want 1", tt.name, ran)
		}
	}
	if got := c.completed.Load(); got != 3 {
		t.Errorf("completed executions = %d, want 3", got)
	}
}

func TestRequestStateRefusedWithInvalidParams(t *testing.T) {
	s := newServer(t, "docs", "v1", nil)
	var c confirmer
	mustRegister(t, s, confirmTool("rm"), c.handle)
	cs := manual(t, s, elicitCaps)
	_, err := continueCall(cs, "rm", `{}`, "forged")
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("continuation with a forged state = %v; want a JSON-RPC invalid-params error", err)
	}
}

// nagger asks for input in every execution, counting them.
type nagger struct{ runs atomic.Int64 }

func (n *nagger) handle(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	n.runs.Add(1)
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{"ok": &mcp.ElicitParams{Message: "Again?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)}},
	}, nil
}

func TestInputRoundsBound(t *testing.T) {
	const limit = 3
	want := fmt.Sprintf("too many input rounds: nag asked for input %d times in one call; the limit is %d (Options.MaxInputRounds)", limit+1, limit)
	t.Run("2026-07-28", func(t *testing.T) {
		s := newServer(t, "docs", "v1", &Options{MaxInputRounds: limit})
		var n nagger
		mustRegister(t, s, &mcp.Tool{Name: "nag", InputSchema: json.RawMessage(`{"type":"object"}`)}, n.handle)
		cs := manual(t, s, elicitCaps)
		state, answers := "", mcp.InputResponseMap(nil)
		for i := 1; i <= limit; i++ { // rounds 1..limit pass
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nag", InputResponses: answers, RequestState: state})
			if err != nil || !res.NeedsInput() {
				t.Fatalf("round %d: CallTool = %+v, %v; want input required", i, res, err)
			}
			state, answers = res.RequestState, accept
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nag", InputResponses: accept, RequestState: state})
		if err != nil || res.NeedsInput() || !res.IsError || text(res.Content) != want {
			t.Errorf("round %d: CallTool = %+v, %v; want the isError result %q", limit+1, res, err, want)
		}
	})
	t.Run("2025-11-25", func(t *testing.T) {
		s := newServer(t, "docs", "v1", &Options{MaxInputRounds: limit})
		var n nagger
		mustRegister(t, s, &mcp.Tool{Name: "nag", InputSchema: json.RawMessage(`{"type":"object"}`)}, n.handle)
		wire := countMethods(s)
		var asked atomic.Int64
		cs := testkit.Connect(t, testkit.Transport(t, s.Factory()), &testkit.ConnectOptions{Client: answering("2025-11-25", &asked), Version: "2025-11-25"})
		got, isErr := call(t, cs, "nag", `{}`)
		if got != want || !isErr {
			t.Errorf("CallTool = %q (isError %v), want the isError result %q", got, isErr, want)
		}
		if diff := cmp.Diff(map[string]int64{"tools/call": 1, "elicitation/create": limit}, wire.counts("tools/call", "elicitation/create")); diff != "" {
			t.Errorf("messages at the server mismatch (-want +got):\n%s", diff)
		}
		if n.runs.Load() != limit+1 {
			t.Errorf("executions = %d, want %d", n.runs.Load(), limit+1)
		}
	})
}

func TestInputNeedsDeclaredCapability(t *testing.T) {
	requests := map[string]mcp.InputRequest{
		"elicitation": &mcp.ElicitParams{Message: "name?", RequestedSchema: nameSchema},
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageParams, mcp.SamplingMessage
		"sampling": &mcp.CreateMessageParams{MaxTokens: 9, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}},
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ListRootsParams
		"roots": &mcp.ListRootsParams{},
	}
	declared := map[string]*mcp.ClientCapabilities{
		"elicitation": elicitCaps,
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.SamplingCapabilities
		"sampling": {Sampling: &mcp.SamplingCapabilities{}},
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.RootCapabilities
		"roots": {RootsV2: &mcp.RootCapabilities{}},
	}
	for kind, ir := range requests {
		s := newServer(t, "docs", "v1", nil)
		var runs atomic.Int64
		mustRegister(t, s, &mcp.Tool{Name: "needs", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			runs.Add(1)
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"x": ir}}, nil
		})
		// Declared: the request reaches the client.
		res, err := manual(t, s, declared[kind]).CallTool(context.Background(), &mcp.CallToolParams{Name: "needs"})
		if err != nil || !res.NeedsInput() {
			t.Errorf("%s declared: CallTool = %+v, %v; want input required", kind, res, err)
		}
		// Not declared (the client declares the other two): -32021 naming it.
		var others mcp.ClientCapabilities
		for k, c := range declared {
			if k != kind {
				others.Elicitation = cmpOr(others.Elicitation, c.Elicitation)
				//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.ClientCapabilities.Sampling
				others.Sampling = cmpOr(others.Sampling, c.Sampling)
				//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ClientCapabilities.RootsV2
				others.RootsV2 = cmpOr(others.RootsV2, c.RootsV2)
			}
		}
		_, err = manual(t, s, &others).CallTool(context.Background(), &mcp.CallToolParams{Name: "needs"})
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != mcp.CodeMissingRequiredClientCapabilities {
			t.Errorf("%s not declared: CallTool error = %v; want -32021", kind, err)
			continue
		}
		var data struct {
			RequiredCapabilities map[string]json.RawMessage `json:"requiredCapabilities"`
		}
		if err := json.Unmarshal(werr.Data, &data); err != nil {
			t.Fatal(err)
		}
		if _, ok := data.RequiredCapabilities[kind]; !ok || len(data.RequiredCapabilities) != 1 {
			t.Errorf("%s not declared: error data %s; want requiredCapabilities naming %s alone", kind, werr.Data, kind)
		}
	}
}

// A client that sets only the go-sdk's deprecated Roots field sends no
// "roots" over a wire; in process it declares no roots either: the tool's
// request for roots is refused with -32021, and the tool runs once.
func TestInputRootsOnlyThroughRootsV2(t *testing.T) {
	s := newServer(t, "docs", "v1", nil)
	var runs atomic.Int64
	mustRegister(t, s, &mcp.Tool{Name: "needs", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ListRootsParams
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"x": &mcp.ListRootsParams{}}}, nil
	})
	var caps mcp.ClientCapabilities
	caps.Roots.ListChanged = true //lint:ignore SA1019 the deprecated field this test shows is not read
	_, err := manual(t, s, &caps).CallTool(t.Context(), &mcp.CallToolParams{Name: "needs"})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != mcp.CodeMissingRequiredClientCapabilities {
		t.Errorf("CallTool error = %v; want -32021", err)
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("the tool ran %d times, want 1", n)
	}
}

func cmpOr[T any](a, b *T) *T {
	if a != nil {
		return a
	}
	return b
}

func TestInputRequiredPromptAndResource(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			s := newServer(t, "docs", "v1", nil)
			var completed atomic.Int64
			askName := func(responses mcp.InputResponseMap) (string, mcp.InputRequestMap) {
				if r, ok := ElicitResponse(responses, "name"); ok {
					completed.Add(1)
					return r.Content["name"].(string), nil
				}
				return "", mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "Your name?", RequestedSchema: nameSchema}}
			}
			err := s.RegisterPrompt(&mcp.Prompt{Name: "greet"}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				name, ask := askName(req.Params.InputResponses)
				if ask != nil {
					return &mcp.GetPromptResult{InputRequests: ask}, nil
				}
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello " + name}}}}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			err = s.RegisterResource(&mcp.Resource{Name: "card", URI: "test://card"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				name, ask := askName(req.Params.InputResponses)
				if ask != nil {
					return &mcp.ReadResourceResult{InputRequests: ask}, nil
				}
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "card of " + name}}}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var asked atomic.Int64
			cs := testkit.Connect(t, testkit.Transport(t, s.Factory()), &testkit.ConnectOptions{Client: answering(version, &asked), Version: version})
			p, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "greet"})
			if err != nil || len(p.Messages) != 1 || p.Messages[0].Content.(*mcp.TextContent).Text != "Hello Ada" {
				t.Errorf("GetPrompt = %+v, %v; want Hello Ada", p, err)
			}
			r, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "test://card"})
			if err != nil || len(r.Contents) != 1 || r.Contents[0].Text != "card of Ada" {
				t.Errorf("ReadResource = %+v, %v; want card of Ada", r, err)
			}
			if completed.Load() != 2 || asked.Load() != 2 {
				t.Errorf("completed %d, asked %d; want 2, 2", completed.Load(), asked.Load())
			}
		})
	}
}

func TestRegisterToolForInputRequired(t *testing.T) {
	type out struct {
		Greeting string `json:"greeting"`
	}
	s := newServer(t, "docs", "v1", nil)
	err := RegisterToolFor(s, &mcp.Tool{Name: "greet"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, out, error) {
		if r, ok := ElicitResponse(req.Params.InputResponses, "name"); ok {
			return nil, out{Greeting: "Hello " + r.Content["name"].(string)}, nil
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "Your name?", RequestedSchema: nameSchema}}}, out{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int64
	cs := testkit.Connect(t, testkit.Transport(t, s.Factory()), &testkit.ConnectOptions{Client: answering("2026-07-28", &asked)})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("CallTool = %+v, %v", res, err)
	}
	if got, _ := json.Marshal(res.StructuredContent); string(got) != `{"greeting":"Hello Ada"}` {
		t.Errorf("structured content = %s, want {\"greeting\":\"Hello Ada\"}", got)
	}
}

func TestLoadSheddingOlderClient(t *testing.T) {
	s := newServer(t, "docs", "v1", nil)
	mustRegister(t, s, &mcp.Tool{Name: "busy", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{}}, nil
	})
	var asked atomic.Int64
	cs := testkit.Connect(t, testkit.Transport(t, s.Factory()), &testkit.ConnectOptions{Client: answering("2025-11-25", &asked), Version: "2025-11-25"})
	if _, _, err := tryCall(cs, "busy", `{}`); err == nil || !strings.Contains(err.Error(), "busy") {
		t.Errorf("CallTool = %v; want a JSON-RPC error saying the server is busy", err)
	}
}

// TestOlderClientFailsToAnswer: when asking a 2025-11-25 client fails, the
// tool call ends with an isError result the model can read, and the
// handler does not run again.
func TestOlderClientFailsToAnswer(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "docs", "v1", nil)
	var c confirmer
	mustRegister(t, s, confirmTool("rm"), c.handle)
	cl := testkit.NewClient(&mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("the user closed the dialog")
		},
	})
	cs := testkit.Connect(t, testkit.Transport(t, s.Factory()), &testkit.ConnectOptions{Client: cl, Version: "2025-11-25"})
	got, isErr := call(t, cs, "rm", `{}`)
	if !isErr || !strings.HasPrefix(got, "input from the client unavailable: ") || !strings.Contains(got, "the user closed the dialog") {
		t.Errorf("CallTool = %q (isError %v); want an isError result saying the input is unavailable and why", got, isErr)
	}
	if c.runs.Load() != 1 || c.completed.Load() != 0 {
		t.Errorf("executions %d, completed %d; want 1 (the question), 0", c.runs.Load(), c.completed.Load())
	}
}
