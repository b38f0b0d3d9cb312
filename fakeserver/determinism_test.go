package fakeserver

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recorder is a client transport that records every message, encoded, in
// the order the client wrote or read it.
type recorder struct {
	inner mcp.Transport
	mu    sync.Mutex // guards log
	log   []string
}

func (r *recorder) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := r.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Connection: c, r: r}, nil
}

func (r *recorder) add(dir string, msg jsonrpc.Message) {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		b = []byte(err.Error())
	}
	r.mu.Lock()
	r.log = append(r.log, dir+" "+string(b))
	r.mu.Unlock()
}

// await polls the transcript until a message holds what: nothing else
// says when the go-sdk has read it.
func (r *recorder) await(t *testing.T, what string) {
	t.Helper()
	testkit.Poll(t, what+" in the transcript", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return slices.ContainsFunc(r.log, func(l string) bool { return strings.Contains(l, what) })
	})
}

type recordingConn struct {
	mcp.Connection
	r *recorder
}

func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		c.r.add("<-", msg)
	}
	return msg, err
}

func (c *recordingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.r.add("->", msg)
	return c.Connection.Write(ctx, msg)
}

// session runs a fixed session against a new rich fake server and returns
// its transcript.
func session(t *testing.T, version string) []string {
	t.Helper()
	fs := newFake(t, &Options{Catalog: CatalogRich})
	inner, err := fs.Factory().Transport()
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{inner: inner}
	rc := newRichClient()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, rc.options())
	//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.Client.AddRoots, mcp.Root
	c.AddRoots(&mcp.Root{URI: "file:///work/a", Name: "a"})
	ctx := context.Background()
	cs, err := c.Connect(ctx, rec, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	if version >= "2026-07-28" {
		// The go-sdk opens subscriptions/listen as it connects and goes on;
		// when the server's acknowledgement reaches it is timing. Wait for
		// it, so that it has one place in the transcript.
		rec.await(t, "notifications/subscriptions/acknowledged")
	}
	for _, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
	}
	//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ClientSession.SetLoggingLevel, mcp.SetLoggingLevelParams
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tool, args string }{
		{"lookup", `{"query":"determinism"}`},
		{"lookup", `{"query":1}`},
		{"sample", `{"prompt":"hi"}`},
		{"elicit", `{"question":"sure?"}`},
		{"roots", `{}`},
		{"log", `{"count":4}`},
		{"item-03", `{}`},
	} {
		call(t, cs, tc.tool, tc.args)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{"steps": 3}, Meta: mcp.Meta{"progressToken": 7}}); err != nil {
		t.Fatal(err)
	}
	if version < "2026-07-28" {
		rc.await(t, 3+3, "log and progress") // info and above of 4, and 3 progress
	} else {
		// logging/setLevel holds for no later request on 2026-07-28 (a
		// request carries its own level in _meta), so log sends nothing.
		rc.await(t, 3, "progress")
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "docs://readme"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: map[string]string{"topic": "x"}}); err != nil {
		t.Fatal(err)
	}
	// The transcript up to Close: what Close sends, and whether the answer
	// to a cancelled subscriptions/listen is read before the connection
	// ends, is the go-sdk's shutdown racing the fake's reply, not the fake.
	rec.mu.Lock()
	log := slices.Clone(rec.log)
	rec.mu.Unlock()
	cs.Close()
	return log
}

// Same requests, same bytes out: two sessions of the rich catalog give the
// same transcript, message for message, on either revision (on 2026-07-28
// the input-required results carry sealed request states, the same too).
func TestDeterministic(t *testing.T) {
	leakcheck.Check(t)
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			first, second := session(t, version), session(t, version)
			if len(first) < 30 {
				t.Fatalf("transcript has %d messages, want a full session:\n%q", len(first), first)
			}
			if diff := cmp.Diff(first, second); diff != "" {
				t.Errorf("second session differs (-first +second):\n%s", diff)
			}
		})
	}
}

// customSession runs a fixed session against a new fake of the custom
// catalog weather and returns its transcript.
func customSession(t *testing.T, version string) []string {
	t.Helper()
	inner, err := newFake(t, &Options{Custom: weather()}).Factory().Transport()
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{inner: inner}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	ctx := context.Background()
	cs, err := c.Connect(ctx, rec, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tool, args string }{
		{"get_weather", `{"city":"Oslo"}`}, {"dice", ""}, {"dice", ""}, {"broken", ""}, {"confirm", ""}, {"fixed", ""},
	} {
		call(t, cs, tc.tool, tc.args)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "weather://map"}); err != nil {
		t.Fatal(err)
	}
	// The transcript up to Close: what Close sends, and whether the answer
	// to a cancelled subscriptions/listen is read before the connection
	// ends, is the go-sdk's shutdown racing the fake's reply, not the fake.
	rec.mu.Lock()
	log := slices.Clone(rec.log)
	rec.mu.Unlock()
	cs.Close()
	return log
}

// A user-defined fake is as deterministic as the built-in catalogs.
func TestCustomDeterministic(t *testing.T) {
	leakcheck.Check(t)
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			first, second := customSession(t, version), customSession(t, version)
			if diff := cmp.Diff(first, second); diff != "" {
				t.Errorf("second session differs (-first +second):\n%s", diff)
			}
		})
	}
}
