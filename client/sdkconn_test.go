package client_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkFactory hands out the go-sdk's own Streamable HTTP transport, inside
// a wrapper that has nothing but Unwrap.
type sdkFactory struct{ url string }

func (sdkFactory) Kind() transport.Kind { return transport.KindStreamableHTTP }

func (f sdkFactory) Transport() (mcp.Transport, error) {
	return unwrapOnly{&mcp.StreamableClientTransport{Endpoint: f.url, DisableStandaloneSSE: true, MaxRetries: -1}}, nil
}

type unwrapOnly struct{ mcp.Transport }

func (u unwrapOnly) Unwrap() mcp.Transport { return u.Transport }

// TestSDKStreamableConnectionIsNotWrapped: the client leaves the go-sdk's
// own Streamable HTTP connection unwrapped, found through a wrapper. The
// go-sdk then tells the connection the negotiated revision, which it sends
// on each later request; a wrapper would hide that hook from it.
func TestSDKStreamableConnectionIsNotWrapped(t *testing.T) {
	leakcheck.Check(t)
	var mu sync.Mutex
	var headers []string // each POST's Mcp-Protocol-Version
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return docsServer(&counter{}) }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			mu.Lock()
			headers = append(headers, r.Header.Get("Mcp-Protocol-Version"))
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()

	ctx := testkit.Context(t)
	c, err := client.Connect(ctx, client.Definition{Name: "docs", Profile: client.Profile20251125, Transport: sdkFactory{ts.URL}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.CallTool(ctx, "lookup", map[string]any{"query": "x"}); err != nil {
		t.Fatalf("lookup: %v", err)
	}
	c.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(headers) < 2 {
		t.Fatalf("the server saw %d POSTs, want the initialize and more", len(headers))
	}
	want := make([]string, len(headers)-1)
	for i := range want {
		want[i] = "2025-11-25"
	}
	if diff := cmp.Diff(want, headers[1:]); diff != "" {
		t.Errorf("Mcp-Protocol-Version of the POSTs after initialize mismatch (-want +got):\n%s", diff)
	}
}
