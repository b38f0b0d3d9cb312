package fakeserver

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/sse"
)

// connectSSE connects a client to hs through transport/sse with the static
// bearer token; the client is closed at cleanup.
func connectSSE(t testing.TB, hs *HTTPServer) (*client.Client, error) {
	t.Helper()
	f, err := sse.New(hs.URL, &sse.Options{Credentials: auth.Bearer(token)})
	if err != nil {
		t.Fatalf("sse.New: %v", err)
	}
	c, err := client.Connect(context.Background(), client.Definition{Name: "docs", Profile: client.ProfileLegacy, Transport: f}, nil)
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

func TestHTTPLegacySSE(t *testing.T) {
	leakcheck.Check(t)
	fs, hs := startHTTP(t, &HTTPOptions{SSE: true})
	c, err := connectSSE(t, hs)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if _, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "legacy"}); err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if n := fs.Counts().Executions["lookup"]; n != 1 {
		t.Errorf("lookup ran %d times, want 1", n)
	}
	reqs := hs.Requests()
	if len(reqs) == 0 || reqs[0].Method != http.MethodGet || reqs[0].Status != http.StatusOK {
		t.Errorf("first request = %v, want the session GET answered 200", reqs)
	}
	if calls := filter(reqs, isCall); len(calls) != 1 || calls[0].Session == "" {
		t.Errorf("tools/call POSTs = %v, want one, to the session endpoint", calls)
	}
}

func TestHTTPForeignEndpoint(t *testing.T) {
	leakcheck.Check(t)
	_, hs := startHTTP(t, &HTTPOptions{SSE: true}, Fault{Kind: FaultForeignEndpoint})
	_, err := connectSSE(t, hs)
	if !errors.As(err, new(*sse.EndpointError)) {
		t.Errorf("Connect error = %v, want an sse.EndpointError", err)
	}
	wantClass(t, err, client.ClassPolicy)
	if reqs, auths := hs.OtherCounts(); reqs != 0 || auths != 0 {
		t.Errorf("the other origin saw %d requests, %d with Authorization; want 0, 0", reqs, auths)
	}
}

// TestHTTPStreamableAgainstSSE: a Streamable HTTP client against an
// SSE-only fake fails, and never opens an SSE session (no GET).
func TestHTTPStreamableAgainstSSE(t *testing.T) {
	leakcheck.Check(t)
	_, hs := startHTTP(t, &HTTPOptions{SSE: true})
	if _, err := connectHTTP(t, hs, nil); err == nil {
		t.Fatal("a Streamable HTTP client connected to an SSE-only server")
	}
	for _, r := range hs.Requests() {
		if r.Method == http.MethodGet {
			t.Errorf("the fake saw a GET: %v", r)
		}
	}
}
