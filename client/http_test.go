package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStreamableHTTPFailuresAreClassified checks that the remote transport's
// errors, which the go-sdk carries as JSON-RPC errors, get the right class.
func TestStreamableHTTPFailuresAreClassified(t *testing.T) {
	leakcheck.Check(t)
	n := &counter{}
	srv := docsServer(n)
	mcp.AddTool(srv, &mcp.Tool{Name: "big"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		n.inc("big")
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", 1<<20)}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	ts := httptest.NewServer(h)
	defer ts.Close()

	f, err := streamablehttp.New(ts.URL, &streamablehttp.Options{
		DisableStandaloneSSE: true,
		Limits:               streamablehttp.Limits{MaxJSONBytes: 64 << 10},
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(context.Background(), client.Definition{Name: "docs", Transport: f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "x"}); err != nil {
		t.Fatalf("lookup: %v", err)
	}
	_, err = c.CallTool(context.Background(), "big", map[string]any{})
	assertClass(t, err, client.ClassPolicy, transport.ErrLimit)
	if got := n.get("big"); got != 1 {
		t.Errorf("big ran %d times, want 1", got)
	}
	// The session goes on after a refused response.
	if _, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "y"}); err != nil {
		t.Errorf("lookup after the refused response: %v", err)
	}
}

// A server that cannot be reached never answered: connecting fails as a
// transport failure (not as the server's, which is what the go-sdk's
// "rejected by transport" JSON-RPC error made of it), on both revisions,
// and so does a call after the server went away.
func TestUnreachableServerIsTransport(t *testing.T) {
	for _, p := range []client.Profile{client.ProfileDefault, client.Profile20251125} {
		t.Run(p.String(), func(t *testing.T) {
			leakcheck.Check(t)
			ts := httptest.NewServer(http.NotFoundHandler())
			url := ts.URL
			ts.Close() // nothing listens there now
			f, err := streamablehttp.New(url, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = client.Connect(context.Background(), client.Definition{Name: "gone", Profile: p, Transport: f}, nil)
			var ce *client.Error
			if !errors.As(err, &ce) || ce.Class != client.ClassTransport {
				t.Errorf("Connect = %v, want ClassTransport", err)
			}
			if ce != nil && !ce.ConnectionRetryable() {
				t.Errorf("%v is not ConnectionRetryable", err)
			}
		})
	}
	t.Run("after connect", func(t *testing.T) {
		leakcheck.Check(t)
		n := &counter{}
		srv := docsServer(n)
		ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
		c := connectURL(t, ts.URL, nil, nil, "2026-07-28")
		// The server goes away: it accepts nothing more, and the
		// connections it has (the list-change stream's) are cut.
		ts.Listener.Close()
		ts.CloseClientConnections()
		t.Cleanup(ts.Close)
		_, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "x"})
		var ce *client.Error
		if !errors.As(err, &ce) || ce.Class != client.ClassTransport {
			t.Errorf("CallTool = %v, want ClassTransport", err)
		}
		if got := n.get("lookup"); got != 0 {
			t.Errorf("lookup ran %d times, want 0", got)
		}
	})
}
