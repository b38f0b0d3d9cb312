package cassette_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Protocol revisions the tests speak.
const (
	rev2025 = "2025-11-25"
	rev2026 = "2026-07-28"
)

// counter is a test server whose tools count their executions.
type counter struct {
	srv   *mcp.Server
	calls atomic.Int64 // executions of every tool
}

type countIn struct {
	Label string `json:"label"`
}

type echoIn struct {
	Text     string `json:"text"`
	Password string `json:"password,omitempty"` // accepted and ignored
}

func newCounter() *counter { return newCounterWith(nil) }

// newCounterWith is newCounter with server options. Its tools: count (its
// label and how many tools ran), echo, ask (roots, sampling and elicitation
// requests to the client during the call, 2025-11-25), and confirm (an
// input-required result, then the answer to its continuation, 2026-07-28).
func newCounterWith(opts *mcp.ServerOptions) *counter {
	c := &counter{srv: mcp.NewServer(&mcp.Implementation{Name: "counter", Version: "v1.0.0"}, opts)}
	mcp.AddTool(c.srv, &mcp.Tool{Name: "count", Description: "Counts its calls."}, func(ctx context.Context, req *mcp.CallToolRequest, in countIn) (*mcp.CallToolResult, any, error) {
		n := c.calls.Add(1)
		return text(fmt.Sprintf("%s #%d", in.Label, n)), nil, nil
	})
	mcp.AddTool(c.srv, &mcp.Tool{Name: "echo", Description: "Echoes its text."}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		c.calls.Add(1)
		return text("echo: " + in.Text), nil, nil
	})
	mcp.AddTool(c.srv, &mcp.Tool{Name: "ask", Description: "Asks the client: roots, sampling, elicitation."}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		c.calls.Add(1)
		ss := req.Session
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ServerSession.ListRoots
		roots, err := ss.ListRoots(ctx, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("roots: %w", err)
		}
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.ServerSession.CreateMessage, mcp.CreateMessageParams
		msg, err := ss.CreateMessage(ctx, &mcp.CreateMessageParams{
			MaxTokens: 10,
			//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.SamplingMessage
			Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "say hi"}}},
		})
		if err != nil {
			return nil, nil, fmt.Errorf("sampling: %w", err)
		}
		el, err := ss.Elicit(ctx, &mcp.ElicitParams{
			Message:         "name?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
		})
		if err != nil {
			return nil, nil, fmt.Errorf("elicitation: %w", err)
		}
		return text(fmt.Sprintf("roots=%d sampled=%q elicited=%v", len(roots.Roots), msg.Content.(*mcp.TextContent).Text, el.Content["name"])), nil, nil
	})
	mcp.AddTool(c.srv, &mcp.Tool{Name: "confirm", Description: "Asks the client to confirm, in a second round trip."}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		if len(req.Params.InputResponses) == 0 {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"ok": &mcp.ElicitParams{Message: "Deploy?"}}, RequestState: "round-1"}, nil, nil
		}
		c.calls.Add(1)
		return text(fmt.Sprintf("confirmed in %d answer(s), state %s", len(req.Params.InputResponses), req.Params.RequestState)), nil, nil
	})
	return c
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// newClient returns a go-sdk client that answers sampling, elicitation and
// roots requests.
func newClient() *mcp.Client {
	c := mcp.NewClient(&mcp.Implementation{Name: "tester", Version: "v1"}, &mcp.ClientOptions{
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.ClientOptions.CreateMessageHandler, mcp.CreateMessageResult
		CreateMessageHandler: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageResult
			return &mcp.CreateMessageResult{Model: "fake", Role: "assistant", Content: &mcp.TextContent{Text: "hi"}}, nil
		},
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
	})
	//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.Client.AddRoots, mcp.Root
	c.AddRoots(&mcp.Root{URI: "file:///work", Name: "work"})
	return c
}

// call is one tool call of a scripted session.
type call struct {
	Tool string
	Args map[string]any
}

// outcome is what a call returned: its text or its error.
type outcome struct {
	Text string
	Err  string
}

// script calls a counting tool, then a tool that asks the client things
// during the call, then the counting tool again.
var script = []call{
	{Tool: "count", Args: map[string]any{"label": "first"}},
	{Tool: "ask"},
	{Tool: "count", Args: map[string]any{"label": "second"}},
}

// script2026 is script for 2026-07-28, whose server asks through a
// continuation.
var script2026 = []call{
	{Tool: "count", Args: map[string]any{"label": "first"}},
	{Tool: "confirm"},
	{Tool: "count", Args: map[string]any{"label": "second"}},
}

// session connects a go-sdk client to f at revision rev ("" for the
// go-sdk's default), makes the calls in order and closes. It returns the
// outcomes and the error the session's Close returned.
func session(t testing.TB, f transport.Factory, rev string, calls ...call) ([]outcome, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr, err := f.Transport()
	if err != nil {
		t.Fatalf("Transport: %v", err)
	}
	cs, err := newClient().Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rev})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	var outs []outcome
	for _, c := range calls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args})
		switch {
		case err != nil:
			outs = append(outs, outcome{Err: err.Error()})
		case res.IsError:
			outs = append(outs, outcome{Err: res.Content[0].(*mcp.TextContent).Text})
		default:
			outs = append(outs, outcome{Text: res.Content[0].(*mcp.TextContent).Text})
		}
	}
	return outs, cs.Close()
}

// open is cassette.Open that fails the test on error and closes the factory
// at cleanup.
func open(t testing.TB, path string, live transport.Factory, opts *cassette.Options) *cassette.Factory {
	t.Helper()
	f, err := cassette.Open(path, live, opts)
	if err != nil {
		t.Fatalf("cassette.Open: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// withMode returns a copy of opts (nil: defaults) in mode m.
func withMode(opts *cassette.Options, m cassette.Mode) *cassette.Options {
	var o cassette.Options
	if opts != nil {
		o = *opts
	}
	o.Mode = m
	return &o
}

// record records a session of calls against live at revision rev and
// returns the cassette's bytes and the outcomes.
func record(t testing.TB, path string, live transport.Factory, opts *cassette.Options, rev string, calls ...call) ([]byte, []outcome) {
	t.Helper()
	f := open(t, path, live, withMode(opts, cassette.ModeRecord))
	outs, err := session(t, f, rev, calls...)
	if err != nil {
		t.Fatalf("recorded session Close: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("recording Close: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data, outs
}

// replay replays the cassette at path with the calls and returns the
// outcomes; a mismatch or (opts.Strict) an unused line fails the test.
func replay(t testing.TB, path string, live transport.Factory, opts *cassette.Options, rev string, calls ...call) []outcome {
	t.Helper()
	f := open(t, path, live, withMode(opts, cassette.ModeReplay))
	outs, err := session(t, f, rev, calls...)
	if err != nil {
		t.Fatalf("replayed session Close: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("replaying Close: %v", err)
	}
	return outs
}

// stdioCounter returns a factory of the test binary serving the counter
// over stdio.
func stdioCounter(t testing.TB, opts *stdio.Options) *stdio.Factory {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var o stdio.Options
	if opts != nil {
		o = *opts
	}
	if o.Env == nil {
		o.Env = map[string]string{}
	}
	o.Env[childEnv] = "counter"
	f, err := stdio.New(exe, []string{"-test.run=^$"}, &o)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// httpServer serves srv over Streamable HTTP on loopback, stateful (with an
// event store, so streams carry event ids and can be resumed, and session
// ids that count from "session-1", so recordings are deterministic) or
// stateless. It counts the requests that reach it.
type httpServer struct {
	*httptest.Server
	mu       sync.Mutex // guards requests
	requests []string   // "METHOD Last-Event-ID" of every request
}

func newHTTPServer(t testing.TB, c *counter, stateless bool, middleware func(http.Handler) http.Handler) *httpServer {
	t.Helper()
	opts := &mcp.StreamableHTTPOptions{Stateless: stateless}
	if !stateless {
		opts.EventStore = mcp.NewMemoryEventStore(nil)
	}
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return c.srv }, opts)
	if middleware != nil {
		h = middleware(h)
	}
	s := &httpServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, req.Method+" "+req.Header.Get("Last-Event-ID"))
		s.mu.Unlock()
		h.ServeHTTP(w, req)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *httpServer) url() string { return s.URL + "/mcp" }

func (s *httpServer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// statefulCounter is the counter with session ids "session-1", ….
func statefulCounter() *counter {
	var sessions atomic.Int64
	return newCounterWith(&mcp.ServerOptions{GetSessionID: func() string { return fmt.Sprintf("session-%d", sessions.Add(1)) }})
}

// httpLive returns a streamablehttp factory of the server at url.
func httpLive(t testing.TB, url string, opts *streamablehttp.Options) *streamablehttp.Factory {
	t.Helper()
	f, err := streamablehttp.New(url, opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func tempPath(t testing.TB, name string) string { return filepath.Join(t.TempDir(), name) }

func mustContain(t testing.TB, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s does not contain %q:\n%s", what, sub, s)
		}
	}
}

// newSSEServer serves c over the legacy 2024-11-05 HTTP+SSE transport.
func newSSEServer(t testing.TB, c *counter) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return c.srv }, nil))
	t.Cleanup(s.Close)
	return s
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// isToolCall reports whether r is a POST carrying a tools/call, leaving its
// body readable.
func isToolCall(r *http.Request) bool {
	if r.Method != http.MethodPost || r.Body == nil {
		return false
	}
	data, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(data))
	return strings.Contains(string(data), `"tools/call"`)
}

// mustRequest decodes a JSON-RPC message.
func mustRequest(s string) jsonrpc.Message {
	m, err := jsonrpc.DecodeMessage([]byte(s))
	if err != nil {
		panic(err)
	}
	return m
}
