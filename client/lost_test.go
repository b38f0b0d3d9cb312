package client_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// breaker is an http.Handler in front of a go-sdk handler that loses the
// reply to the first tools/call of one tool (whose body contains match): when the server writes it, the
// TCP connection is cut instead, before or after the response headers went
// out. The tool has run by then.
type breaker struct {
	next          http.Handler
	tool          string
	method        string // if set, the first request of this method instead
	match         string // if set, only a call whose body contains it
	beforeHeaders bool

	mu   sync.Mutex // guards done
	done bool
}

func (b *breaker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		b.next.ServeHTTP(w, r)
		return
	}
	body := readBody(r)
	b.mu.Lock()
	hit := !b.done && bytes.Contains(body, []byte(`"method":"tools/call"`)) && bytes.Contains(body, []byte(`"name":"`+b.tool+`"`)) &&
		bytes.Contains(body, []byte(b.match))
	if b.method != "" {
		hit = !b.done && bytes.Contains(body, []byte(`"method":"`+b.method+`"`))
	}
	b.done = b.done || hit
	b.mu.Unlock()
	if !hit {
		b.next.ServeHTTP(w, r)
		return
	}
	b.next.ServeHTTP(&cutWriter{w: w, beforeHeaders: b.beforeHeaders}, r)
}

// cutWriter cuts the connection when the handler writes a result.
type cutWriter struct {
	w             http.ResponseWriter
	beforeHeaders bool
	status        int
	cut           bool
}

func (c *cutWriter) Header() http.Header { return c.w.Header() }

func (c *cutWriter) WriteHeader(status int) {
	if c.beforeHeaders {
		c.status = status
		return
	}
	c.w.WriteHeader(status)
	http.NewResponseController(c.w).Flush()
}

func (c *cutWriter) Write(p []byte) (int, error) {
	if c.cut {
		return 0, http.ErrHijacked
	}
	if !bytes.Contains(p, []byte(`"result"`)) {
		if c.beforeHeaders && c.status == 0 {
			c.status = http.StatusOK
		}
		if c.beforeHeaders {
			return len(p), nil // held back with the headers, then lost
		}
		return c.w.Write(p)
	}
	c.cut = true
	if !c.beforeHeaders {
		// The headers and half the reply go out first.
		c.w.Write(p[:len(p)/2])
		http.NewResponseController(c.w).Flush()
	}
	conn, _, err := http.NewResponseController(c.w).Hijack()
	if err == nil {
		conn.Close()
	}
	return 0, http.ErrHijacked
}

func (c *cutWriter) Flush() {
	if !c.cut && !c.beforeHeaders {
		http.NewResponseController(c.w).Flush()
	}
}

// lostServer serves docsServer(n) over Streamable HTTP behind a recorder
// and a breaker that loses the first reply of lookup.
func lostServer(t *testing.T, n *counter, opts *mcp.StreamableHTTPOptions, beforeHeaders bool) (*recorder, string) {
	t.Helper()
	srv := docsServer(n)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts)
	rec := newRecorder(&breaker{next: h, tool: "lookup", beforeHeaders: beforeHeaders})
	ts := httptest.NewServer(rec)
	t.Cleanup(ts.Close)
	return rec, ts.URL
}

// TestLostReplyIsOutcomeUnknown loses the reply of one tools/call on
// protocol 2026-07-28 (a stateless go-sdk server: no sessions, no
// Last-Event-ID): the call fails at once as outcome unknown, the tool ran
// once, and exactly one POST of that call reached the server; nothing
// resumed it. The connection stays usable for the next call.
func TestLostReplyIsOutcomeUnknown(t *testing.T) {
	for _, tc := range []struct {
		name          string
		json          bool
		beforeHeaders bool
	}{
		{"stream cut after headers", false, false},
		{"stream cut before headers", false, true},
		{"json body cut", true, false},
		{"json cut before headers", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			n := &counter{}
			rec, url := lostServer(t, n, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: tc.json}, tc.beforeHeaders)
			c := connectURL(t, url, nil, nil, "2026-07-28")
			_, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "lost"})
			assertClass(t, err, client.ClassTransport, client.ErrOutcomeUnknown)
			if !errors.Is(err, &jsonrpc.Error{Code: streamablehttp.CodeStreamDropped}) {
				t.Errorf("error %v does not wrap ErrStreamDropped", err)
			}
			if got := n.get("lookup"); got != 1 {
				t.Errorf("lookup ran %d times, want 1", got)
			}
			calls := callPosts(rec, "lookup")
			if len(calls) != 1 {
				t.Errorf("the server received %d POSTs of tools/call lookup, want 1: %v", len(calls), calls)
			}
			for _, p := range rec.all() {
				if p.Header.Get("Last-Event-ID") != "" {
					t.Errorf("a request resumed a stream: %+v", p)
				}
			}
			// The next call is a new call of the user's, and goes through.
			if _, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "next"}); err != nil {
				t.Errorf("the call after the lost one: %v", err)
			}
			if got := n.get("lookup"); got != 2 {
				t.Errorf("lookup ran %d times after two calls, want 2", got)
			}
		})
	}
}

// A resources/read or prompts/get whose reply is lost on 2026-07-28 may
// have run something at the server too: it fails as outcome unknown, with
// one POST of it, and is not re-sent.
func TestLostReadAndPromptAreOutcomeUnknown(t *testing.T) {
	for _, tc := range []struct {
		method string
		op     func(*client.Client) error
	}{
		{"resources/read", func(c *client.Client) error {
			_, err := c.ReadResource(context.Background(), "docs://readme")
			return err
		}},
		{"prompts/get", func(c *client.Client) error {
			_, err := c.GetPrompt(context.Background(), "summarize", nil)
			return err
		}},
	} {
		t.Run(tc.method, func(t *testing.T) {
			leakcheck.Check(t)
			srv := docsServer(&counter{})
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})
			rec := newRecorder(&breaker{next: h, method: tc.method})
			ts := httptest.NewServer(rec)
			t.Cleanup(ts.Close)
			c := connectURL(t, ts.URL, nil, nil, "2026-07-28")
			assertClass(t, tc.op(c), client.ClassTransport, client.ErrOutcomeUnknown)
			posts := 0
			for _, p := range rec.all() {
				if p.Method == tc.method {
					posts++
				}
			}
			if posts != 1 {
				t.Errorf("the server received %d POSTs of %s, want 1", posts, tc.method)
			}
			if err := tc.op(c); err != nil {
				t.Errorf("the next %s: %v", tc.method, err)
			}
		})
	}
}

// On 2025-11-25 a stream with event ids is resumed as before: the GET with
// Last-Event-ID reads the committed reply, the tool ran once and its
// tools/call was POSTed once. A stream with no event id to resume from
// fails as outcome unknown, as on 2026-07-28.
func TestLostReply20251125(t *testing.T) {
	for _, tc := range []struct {
		name    string
		store   bool
		resumed bool
	}{
		{"event store: resumed", true, true},
		{"no event ids: outcome unknown", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			n := &counter{}
			opts := &mcp.StreamableHTTPOptions{}
			if tc.store {
				opts.EventStore = mcp.NewMemoryEventStore(nil)
			}
			rec, url := lostServer(t, n, opts, false)
			c := connectURL(t, url, &streamablehttp.Options{DisableStandaloneSSE: true}, nil, "2025-11-25")
			res, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "committed"})
			if tc.resumed {
				if err != nil || textOf(res) != "docs: committed" {
					t.Fatalf("CallTool = %v, %v; want the resumed reply", res, err)
				}
			} else {
				assertClass(t, err, client.ClassTransport, client.ErrOutcomeUnknown)
			}
			if got := n.get("lookup"); got != 1 {
				t.Errorf("lookup ran %d times, want 1", got)
			}
			if calls := callPosts(rec, "lookup"); len(calls) != 1 {
				t.Errorf("the server received %d POSTs of tools/call lookup, want 1", len(calls))
			}
			resumes := 0
			for _, p := range rec.all() {
				if p.Method == "GET" && p.Header.Get("Last-Event-ID") != "" {
					resumes++
				}
			}
			if want := map[bool]int{true: 1, false: 0}[tc.resumed]; resumes != want {
				t.Errorf("%d GETs with Last-Event-ID, want %d", resumes, want)
			}
		})
	}
}

// callPosts returns the tools/call POSTs of tool the recorder saw.
func callPosts(rec *recorder, tool string) []posted {
	var out []posted
	for _, p := range rec.all() {
		if p.Method == "tools/call" && p.Name == tool {
			out = append(out, p)
		}
	}
	return out
}

func textOf(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	if t, ok := res.Content[0].(*mcp.TextContent); ok {
		return t.Text
	}
	return ""
}

// A call that times out waiting for its reply (Limits.CallTimeout) may
// have run: its error says timeout and outcome unknown. A call refused
// before it was sent does not say so.
func TestTimedOutCallIsOutcomeUnknown(t *testing.T) {
	leakcheck.Check(t)
	srv := docsServer(&counter{})
	started := make(chan struct{}, 1)
	mcp.AddTool(srv, &mcp.Tool{Name: "hang"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	c := connect(t, srv, client.Definition{Limits: client.Limits{CallTimeout: 50 * time.Millisecond}}, nil)
	ctx := backstop(t)
	_, err := c.CallTool(ctx, "hang", map[string]any{})
	notBackstopped(t, ctx, err)
	assertClass(t, err, client.ClassTimeout, client.ErrOutcomeUnknown)
	<-started
	_, err = c.CallTool(context.Background(), "nope", map[string]any{})
	if errors.Is(err, client.ErrOutcomeUnknown) {
		t.Errorf("a call refused locally says %v", err)
	}
}
