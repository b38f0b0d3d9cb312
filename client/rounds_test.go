package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tally counts, at the server, how often each handler was entered (a
// round) and how often it completed (an execution).
type tally struct {
	mu sync.Mutex
	n  map[string]int
}

func (t *tally) add(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n == nil {
		t.n = map[string]int{}
	}
	t.n[key]++
}

func (t *tally) get(key string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n[key]
}

var confirmSchema = &jsonschema.Schema{
	Type:       "object",
	Properties: map[string]*jsonschema.Schema{"confirmed": {Type: "boolean"}},
	Required:   []string{"confirmed"},
}

func confirmRequest(msg string) *mcp.ElicitParams {
	return &mcp.ElicitParams{Message: msg, RequestedSchema: confirmSchema}
}

// confirmed reports whether responses carry an accepted confirmation.
func confirmed(responses mcp.InputResponseMap, id string) bool {
	r, ok := responses[id].(*mcp.ElicitResult)
	return ok && r.Action == "accept" && r.Content["confirmed"] == true
}

type roundsIn struct {
	Rounds int `json:"rounds"` // input-required rounds before completing
	Shed   int `json:"shed"`   // of which, the first ones shed load (no requests)
}

// inputServer is a go-sdk v1.8.0 server whose tools, prompt and resource
// need the user, written once, the way the go-sdk has servers ask: by
// returning input requests. On 2026-07-28 the client answers them and
// continues; on 2025-11-25 the go-sdk server asks the client during the
// call and runs the handler again itself.
//
//   - confirm: asks for a confirmation, with requestState "s1", and
//     completes once it is accepted with that state echoed.
//   - rounds {rounds, shed}: needs input that many times (shedding load the
//     first shed times), counting rounds in its requestState, then completes.
//   - both: asks for a sample and a confirmation in one round.
//   - prompt greet and resource docs://secret ask for a confirmation.
func inputServer(t *tally) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "asks", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "confirm"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		t.add("confirm:round")
		if confirmed(req.Params.InputResponses, "ok") && req.Params.RequestState == "s1" {
			t.add("confirm:done")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "confirmed"}}}, nil, nil
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"ok": confirmRequest("Delete it?")}, RequestState: "s1"}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "rounds"}, func(ctx context.Context, req *mcp.CallToolRequest, in roundsIn) (*mcp.CallToolResult, any, error) {
		t.add("rounds:round")
		done, _ := strconv.Atoi(strings.TrimPrefix(req.Params.RequestState, "round-"))
		if done > 0 && done > in.Shed && !confirmed(req.Params.InputResponses, "ok") {
			return nil, nil, fmt.Errorf("round %d: no confirmation", done)
		}
		if done == in.Rounds {
			t.add("rounds:done")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("done after %d rounds", done)}}}, nil, nil
		}
		reqs := mcp.InputRequestMap{}
		if done >= in.Shed {
			reqs["ok"] = confirmRequest(fmt.Sprintf("round %d?", done+1))
		}
		return &mcp.CallToolResult{InputRequests: reqs, RequestState: fmt.Sprintf("round-%d", done+1)}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "both"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		t.add("both:round")
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageWithToolsResult
		if s, ok := req.Params.InputResponses["draft"].(*mcp.CreateMessageWithToolsResult); ok && confirmed(req.Params.InputResponses, "ok") {
			t.add("both:done")
			return &mcp.CallToolResult{Content: []mcp.Content{s.Content[0]}}, nil, nil
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
			//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageParams, mcp.SamplingMessage
			"draft": &mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "draft"}}}},
			"ok":    confirmRequest("Send the draft?"),
		}}, nil, nil
	})
	srv.AddPrompt(&mcp.Prompt{Name: "greet"}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		t.add("greet:round")
		if confirmed(req.Params.InputResponses, "ok") {
			t.add("greet:done")
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello"}}}}, nil
		}
		return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{"ok": confirmRequest("Greet?")}}, nil
	})
	srv.AddResource(&mcp.Resource{URI: "docs://secret", Name: "secret"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		t.add("secret:round")
		if confirmed(req.Params.InputResponses, "ok") {
			t.add("secret:done")
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "s3cr3t"}}}, nil
		}
		return &mcp.ReadResourceResult{InputRequests: mcp.InputRequestMap{"ok": confirmRequest("Read the secret?")}}, nil
	})
	return srv
}

// asker counts the handler calls of a client that confirms everything.
type asker struct {
	mu                sync.Mutex
	elicited, sampled []string
	elicitErr         error
}

func (a *asker) handlers() *client.Handlers {
	return &client.Handlers{
		Elicitation: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			a.mu.Lock()
			defer a.mu.Unlock()
			a.elicited = append(a.elicited, p.Message)
			if a.elicitErr != nil {
				return nil, a.elicitErr
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirmed": true}}, nil
		},
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageParams, mcp.CreateMessageResult
		Sampling: func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			a.mu.Lock()
			defer a.mu.Unlock()
			a.sampled = append(a.sampled, p.Messages[0].Content.(*mcp.TextContent).Text)
			//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageResult
			return &mcp.CreateMessageResult{Role: "assistant", Model: "scripted", Content: &mcp.TextContent{Text: "a draft"}}, nil
		},
	}
}

func (a *asker) asked() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append(append([]string(nil), a.elicited...), a.sampled...)
}

// peer is one way of reaching inputServer.
type peer struct {
	name    string
	profile client.Profile
	http    string // "", "stateless" or "stateful"
	version string // the revision it negotiates
}

var peers = []peer{
	{"in-process", client.ProfileDefault, "", "2026-07-28"},
	{"http stateless", client.ProfileDefault, "stateless", "2026-07-28"},
	{"http stateful", client.ProfileDefault, "stateful", "2025-11-25"},
	{"in-process 2025-11-25", client.Profile20251125, "", "2025-11-25"},
}

// connectPeer connects to srv as p says, with h and limits; rec is nil
// in-process.
func connectPeer(t *testing.T, p peer, srv *mcp.Server, h *client.Handlers, l client.Limits) (*client.Client, *recorder) {
	t.Helper()
	var f transport.Factory = inprocess.New(srv)
	var rec *recorder
	if p.http != "" {
		hh := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: p.http == "stateless"})
		rec = newRecorder(hh)
		ts := httptest.NewServer(rec)
		t.Cleanup(ts.Close)
		hf, err := streamablehttp.New(ts.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		f = hf
	}
	c, err := client.Connect(context.Background(), client.Definition{Name: "asks", Profile: p.profile, Limits: l, Transport: f}, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if got := c.ProtocolVersion(); got != p.version {
		t.Fatalf("negotiated %s, want %s", got, p.version)
	}
	return c, rec
}

// A go-sdk v1.8.0 tool that asks for confirmation through an
// input-required result is callable on every peer: the elicitation handler
// runs once, the tool completes once at the server. On 2026-07-28 the
// client sent exactly one continuation (a second tools/call, with a new id,
// the answer and the requestState echoed); on 2025-11-25 the server asked
// during the one tools/call.
func TestInputRequiredToolCompletes(t *testing.T) {
	for _, p := range peers {
		t.Run(p.name, func(t *testing.T) {
			leakcheck.Check(t)
			n, a := &tally{}, &asker{}
			c, rec := connectPeer(t, p, inputServer(n), a.handlers(), client.Limits{})
			res, err := c.CallTool(context.Background(), "confirm", map[string]any{})
			if err != nil {
				t.Fatal(err)
			}
			if got := textOf(res); got != "confirmed" {
				t.Errorf("result %q, want confirmed", got)
			}
			if diff := cmp.Diff([]string{"Delete it?"}, a.asked()); diff != "" {
				t.Errorf("handler calls mismatch (-want +got):\n%s", diff)
			}
			if got := n.get("confirm:done"); got != 1 {
				t.Errorf("the tool completed %d times, want 1", got)
			}
			if got := n.get("confirm:round"); got != 2 {
				t.Errorf("the tool handler ran %d times, want 2 (ask, complete)", got)
			}
			if rec == nil {
				return
			}
			calls := callPosts(rec, "confirm")
			want := map[string]int{"2026-07-28": 2, "2025-11-25": 1}[p.version]
			if len(calls) != want {
				t.Fatalf("the server received %d tools/call POSTs, want %d", len(calls), want)
			}
			if want == 2 {
				first, cont := string(calls[0].Body), string(calls[1].Body)
				if calls[0].ID == calls[1].ID {
					t.Errorf("the continuation reused id %s", calls[0].ID)
				}
				if strings.Contains(first, "inputResponses") || strings.Contains(first, "requestState") {
					t.Errorf("the first call carries continuation fields: %s", first)
				}
				if !strings.Contains(cont, `"requestState":"s1"`) || !strings.Contains(cont, `"inputResponses":{"ok":`) {
					t.Errorf("the continuation lacks the answer or the echoed state: %s", cont)
				}
			}
		})
	}
}

// Prompts and resources that need input complete the same way. (A go-sdk
// v1.8.0 server cannot ask for input from a resource handler on
// 2025-11-25: it refuses the handler's result as "nil information" before
// its multi round-trip middleware sees it; so resources are read on
// 2026-07-28 peers only.)
func TestInputRequiredPromptAndResource(t *testing.T) {
	for _, p := range peers {
		t.Run(p.name, func(t *testing.T) {
			leakcheck.Check(t)
			n, a := &tally{}, &asker{}
			c, _ := connectPeer(t, p, inputServer(n), a.handlers(), client.Limits{})
			pr, err := c.GetPrompt(context.Background(), "greet", nil)
			if err != nil || len(pr.Messages) != 1 {
				t.Fatalf("GetPrompt = %v, %v", pr, err)
			}
			want := []string{"Greet?"}
			if p.version == "2026-07-28" {
				rr, err := c.ReadResource(context.Background(), "docs://secret")
				if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "s3cr3t" {
					t.Fatalf("ReadResource = %v, %v", rr, err)
				}
				if n.get("secret:done") != 1 {
					t.Errorf("the resource completed %d times, want 1", n.get("secret:done"))
				}
				want = append(want, "Read the secret?")
			}
			if n.get("greet:done") != 1 {
				t.Errorf("the prompt completed %d times, want 1", n.get("greet:done"))
			}
			if diff := cmp.Diff(want, a.asked()); diff != "" {
				t.Errorf("handler calls mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// Limits.MaxInputRounds bounds the continuations of one request, load
// shedding included, at its exact edge: a tool that needs N rounds
// completes with N continuations; one that needs N+1 fails with
// ReasonInputRounds after the Nth, and no further tools/call is sent.
func TestInputRoundsBound(t *testing.T) {
	p := peer{"http stateless", client.ProfileDefault, "stateless", "2026-07-28"}
	for _, tc := range []struct {
		name  string
		max   int // Limits.MaxInputRounds
		in    roundsIn
		ok    bool
		posts int // tools/call POSTs at the server
		asked int // elicitation handler calls
	}{
		{"default bound passes", 0, roundsIn{Rounds: 10}, true, 11, 10},
		{"default bound + 1 fails", 0, roundsIn{Rounds: 11}, false, 11, 10},
		{"3 rounds within 3", 3, roundsIn{Rounds: 3}, true, 4, 3},
		{"4 rounds past 3", 3, roundsIn{Rounds: 4}, false, 4, 3},
		{"load shedding counts: 2 shed + 1 within 3", 3, roundsIn{Rounds: 3, Shed: 2}, true, 4, 1},
		{"load shedding counts: 3 shed + 1 past 3", 3, roundsIn{Rounds: 4, Shed: 3}, false, 4, 0},
		{"shedding only, past 3", 3, roundsIn{Rounds: 4, Shed: 4}, false, 4, 0},
		{"negative: none", -1, roundsIn{Rounds: 1}, false, 1, 0},
		{"negative: a complete call passes", -1, roundsIn{Rounds: 0}, true, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			n, a := &tally{}, &asker{}
			c, rec := connectPeer(t, p, inputServer(n), a.handlers(), client.Limits{MaxInputRounds: tc.max})
			_, err := c.CallTool(context.Background(), "rounds", tc.in)
			if tc.ok && err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if !tc.ok {
				assertClass(t, err, client.ClassPolicy, &client.ReasonError{Reason: client.ReasonInputRounds})
			}
			if got := len(callPosts(rec, "rounds")); got != tc.posts {
				t.Errorf("the server received %d tools/call POSTs, want %d", got, tc.posts)
			}
			if got := len(a.asked()); got != tc.asked {
				t.Errorf("the elicitation handler ran %d times, want %d", got, tc.asked)
			}
			if want := map[bool]int{true: 1, false: 0}[tc.ok]; n.get("rounds:done") != want {
				t.Errorf("the tool completed %d times, want %d", n.get("rounds:done"), want)
			}
		})
	}
}

// A request for input the handlers do not serve fails at once, classified,
// before any handler runs: the sampling handler that exists is not asked
// either, and no continuation is sent.
func TestInputWithoutHandler(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tool  string
		h     func(*asker) *client.Handlers
		asked int
	}{
		{"no handlers", "confirm", func(*asker) *client.Handlers { return nil }, 0},
		{"no elicitation, sampling present", "both", func(a *asker) *client.Handlers {
			h := a.handlers()
			h.Elicitation = nil
			return h
		}, 0},
		{"no sampling, elicitation present", "both", func(a *asker) *client.Handlers {
			h := a.handlers()
			h.Sampling = nil
			return h
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			n, a := &tally{}, &asker{}
			p := peer{"http stateless", client.ProfileDefault, "stateless", "2026-07-28"}
			c, rec := connectPeer(t, p, inputServer(n), tc.h(a), client.Limits{})
			_, err := c.CallTool(context.Background(), tc.tool, map[string]any{})
			assertClass(t, err, client.ClassPolicy, client.ErrNoHandler)
			if got := len(a.asked()); got != tc.asked {
				t.Errorf("handlers ran %d times, want %d", got, tc.asked)
			}
			if got := len(callPosts(rec, tc.tool)); got != 1 {
				t.Errorf("the server received %d tools/call POSTs, want 1", got)
			}
			if n.get(tc.tool+":done") != 0 {
				t.Errorf("the tool completed without its input")
			}
		})
	}
}

// A request for roots with no roots configured is a missing handler too.
func TestRootsWithoutRoots(t *testing.T) {
	leakcheck.Check(t)
	srv := mcp.NewServer(&mcp.Implementation{Name: "roots", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "roots"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ListRootsResult
		if r, ok := req.Params.InputResponses["r"].(*mcp.ListRootsResult); ok {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.Roots[0].URI}}}, nil, nil
		}
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ListRootsParams
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"r": &mcp.ListRootsParams{}}}, nil, nil
	})
	c := connect(t, srv, client.Definition{Name: "roots"}, nil)
	_, err := c.CallTool(context.Background(), "roots", map[string]any{})
	assertClass(t, err, client.ClassPolicy, client.ErrNoHandler)

	//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.Root
	c2 := connect(t, srv, client.Definition{Name: "roots"}, &client.Handlers{Roots: []*mcp.Root{{URI: "file:///work"}}})
	res, err := c2.CallTool(context.Background(), "roots", map[string]any{})
	if err != nil || textOf(res) != "file:///work" {
		t.Errorf("CallTool = %q, %v; want file:///work", textOf(res), err)
	}
}

// A handler that fails, or whose accepted content does not match the
// requested schema, fails the call as ReasonHandler; nothing more is sent.
func TestInputHandlerFails(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    *client.Handlers
	}{
		{"error", &client.Handlers{Elicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return nil, errors.New("the user closed the dialog")
		}}},
		{"no result", &client.Handlers{Elicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return nil, nil
		}}},
		{"content against the schema", &client.Handlers{Elicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirmed": "yes"}}, nil
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			n := &tally{}
			p := peer{"http stateless", client.ProfileDefault, "stateless", "2026-07-28"}
			c, rec := connectPeer(t, p, inputServer(n), tc.h, client.Limits{})
			_, err := c.CallTool(context.Background(), "confirm", map[string]any{})
			assertClass(t, err, client.ClassPolicy, &client.ReasonError{Reason: client.ReasonHandler})
			if got := len(callPosts(rec, "confirm")); got != 1 {
				t.Errorf("the server received %d tools/call POSTs, want 1", got)
			}
		})
	}
}

// A caller that gives up while its handler answers the server's input
// request (the handler sees its context end, and returns its error) gets
// the cancellation's class, not a failed handler's; nothing more is sent.
func TestInputHandlerOfAGivenUpCall(t *testing.T) {
	leakcheck.Check(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	h := &client.Handlers{Elicitation: func(hctx context.Context, _ *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		cancel() // the caller gives up while the user is being asked
		<-hctx.Done()
		return nil, hctx.Err()
	}}
	n := &tally{}
	p := peer{"http stateless", client.ProfileDefault, "stateless", "2026-07-28"}
	c, rec := connectPeer(t, p, inputServer(n), h, client.Limits{})
	_, err := c.CallTool(ctx, "confirm", map[string]any{})
	assertClass(t, err, client.ClassTimeout, context.Canceled)
	if errors.Is(err, &client.ReasonError{Reason: client.ReasonHandler}) {
		t.Errorf("error %q wraps ReasonHandler: the handler only saw the caller give up", err)
	}
	if got := len(callPosts(rec, "confirm")); got != 1 {
		t.Errorf("the server received %d tools/call POSTs, want 1", got)
	}
}

// An accepted elicitation gets the requested schema's defaults for what the
// handler left out (SEP-1034), on 2026-07-28 as the go-sdk does on
// 2025-11-25.
func TestElicitationDefaults(t *testing.T) {
	for _, p := range []client.Profile{client.ProfileDefault, client.Profile20251125} {
		t.Run(p.String(), func(t *testing.T) {
			leakcheck.Check(t)
			srv := mcp.NewServer(&mcp.Implementation{Name: "defaults", Version: "v1"}, nil)
			schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
				"name": {Type: "string", Default: []byte(`"John Doe"`)},
				"age":  {Type: "integer", Default: []byte(`30`)},
			}}
			mcp.AddTool(srv, &mcp.Tool{Name: "who"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				if r, ok := req.Params.InputResponses["who"].(*mcp.ElicitResult); ok {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(r.Content["name"], " ", r.Content["age"])}}}, nil, nil
				}
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"who": &mcp.ElicitParams{Message: "who?", RequestedSchema: schema}}}, nil, nil
			})
			h := &client.Handlers{Elicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"age": 41}}, nil
			}}
			c := connect(t, srv, client.Definition{Name: "defaults", Profile: p}, h)
			res, err := c.CallTool(context.Background(), "who", map[string]any{})
			if err != nil {
				t.Fatal(err)
			}
			if got := textOf(res); got != "John Doe 41" {
				t.Errorf("result %q, want the default name and the handler's age", got)
			}
		})
	}
}

// Invariant 1 for continuations: a continuation whose reply is lost fails
// as outcome unknown and is not re-sent. The server saw the first call and
// the one continuation, and the tool completed once.
func TestLostContinuation(t *testing.T) {
	leakcheck.Check(t)
	n, a := &tally{}, &asker{}
	srv := inputServer(n)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})
	rec := newRecorder(&breaker{next: h, tool: "confirm", match: `"inputResponses"`})
	ts := httptest.NewServer(rec)
	t.Cleanup(ts.Close)
	c := connectURL(t, ts.URL, nil, a.handlers(), "2026-07-28")
	_, err := c.CallTool(context.Background(), "confirm", map[string]any{})
	assertClass(t, err, client.ClassTransport, client.ErrOutcomeUnknown)
	if got := n.get("confirm:done"); got != 1 {
		t.Errorf("the tool completed %d times, want 1", got)
	}
	calls := callPosts(rec, "confirm")
	if len(calls) != 2 {
		t.Fatalf("the server received %d tools/call POSTs, want 2 (the call, one continuation)", len(calls))
	}
	if diff := cmp.Diff([]string{"Delete it?"}, a.asked()); diff != "" {
		t.Errorf("handler calls mismatch (-want +got):\n%s", diff)
	}
}

// A server that checks the client's capabilities before it asks (this
// module's server does, on both revisions) refuses a request for input the
// client declared no handler for with -32021: that is the same missing
// handler, and fails the same way as the client's own check does, with
// ErrNoHandler and ClassPolicy (not a server failure worth retrying). The
// tool never completed.
func TestMissingCapabilityIsNoHandler(t *testing.T) {
	for _, p := range []client.Profile{client.ProfileDefault, client.Profile20251125} {
		t.Run(p.String(), func(t *testing.T) {
			leakcheck.Check(t)
			var done tally
			srv, err := server.New("asks", "v1", nil)
			if err != nil {
				t.Fatal(err)
			}
			err = srv.RegisterTool(&mcp.Tool{Name: "confirm", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if _, ok := server.ElicitResponse(req.Params.InputResponses, "ok"); ok {
					done.add("confirm")
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "confirmed"}}}, nil
				}
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"ok": confirmRequest("Delete it?")}}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			c, err := client.Connect(context.Background(), client.Definition{Name: "asks", Profile: p, Transport: srv.Factory()}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			_, err = c.CallTool(context.Background(), "confirm", map[string]any{})
			assertClass(t, err, client.ClassPolicy, client.ErrNoHandler)
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeMissingRequiredClientCapabilities {
				t.Errorf("error %v does not keep the server's -32021", err)
			}
			if got := done.get("confirm"); got != 0 {
				t.Errorf("the tool completed %d times without its input", got)
			}
		})
	}
}
