package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// regionSchema declares a header-bound argument (SEP-2243): the client must
// send the region as Mcp-Param-Region on protocol 2026-07-28, and a go-sdk
// server refuses a tools/call whose header is missing or differs (-32020).
const regionSchema = `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}`

// headerServer has the tool where (with regionSchema), the prompt
// summarize and the resource docs://readme; executions are counted.
func headerServer(n *counter) *mcp.Server {
	srv := docsServer(n)
	srv.AddTool(&mcp.Tool{Name: "where", InputSchema: json.RawMessage(regionSchema)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		n.inc("where")
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
	})
	return srv
}

// On 2026-07-28 every request carries Mcp-Method, tools/call,
// resources/read and prompts/get carry Mcp-Name, and a tools/call carries
// the Mcp-Param-* headers its tool declares, so that the go-sdk server's
// validation (which refuses a call without them) lets it through.
func TestStandardHeaders(t *testing.T) {
	leakcheck.Check(t)
	n := &counter{}
	srv := headerServer(n)
	rec := newRecorder(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
	ts := httptest.NewServer(rec)
	t.Cleanup(ts.Close) // after the client closes
	c := connectURL(t, ts.URL, nil, nil, "2026-07-28")
	ctx := context.Background()
	if _, err := c.CallTool(ctx, "where", map[string]any{"region": "us-west1"}); err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if _, err := c.ReadResource(ctx, "docs://readme"); err != nil {
		t.Fatalf("ReadResource: %v", err)
	}
	if _, err := c.GetPrompt(ctx, "summarize", nil); err != nil {
		t.Fatalf("GetPrompt: %v", err)
	}
	type headers struct{ Method, Name, Region string }
	got := map[string]headers{}
	for _, p := range rec.all() {
		if p.Method == "GET" {
			continue
		}
		if p.Header.Get("Mcp-Method") != p.Method {
			t.Errorf("%s carried Mcp-Method %q", p.Method, p.Header.Get("Mcp-Method"))
		}
		got[p.Method] = headers{p.Header.Get("Mcp-Method"), p.Header.Get("Mcp-Name"), p.Header.Get("Mcp-Param-Region")}
	}
	want := map[string]headers{
		"tools/call":     {"tools/call", "where", "us-west1"},
		"resources/read": {"resources/read", "docs://readme", ""},
		"prompts/get":    {"prompts/get", "summarize", ""},
	}
	for m, w := range want {
		if diff := cmp.Diff(w, got[m]); diff != "" {
			t.Errorf("%s headers mismatch (-want +got):\n%s", m, diff)
		}
	}
	if n.get("where") != 1 {
		t.Errorf("where ran %d times, want 1", n.get("where"))
	}
}

// rewriteHeader is a RoundTripper that changes one request header.
type rewriteHeader struct {
	base        http.RoundTripper
	name, value string
}

func (r rewriteHeader) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get(r.name) != "" {
		req = req.Clone(req.Context())
		req.Header.Set(r.name, r.value)
	}
	return r.base.RoundTrip(req)
}

// A server that refuses a request whose headers disagree with its body
// (-32020) gives a ClassProtocol error wrapping ReasonHeaderMismatch; the tool
// did not run, and its outcome is known.
func TestHeaderMismatchIsClassified(t *testing.T) {
	for _, header := range []string{"Mcp-Param-Region", "Mcp-Name"} {
		t.Run(header, func(t *testing.T) {
			leakcheck.Check(t)
			n := &counter{}
			srv := headerServer(n)
			ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
			t.Cleanup(ts.Close)
			c := connectURL(t, ts.URL, &streamablehttp.Options{Base: rewriteHeader{http.DefaultTransport, header, "elsewhere"}}, nil, "2026-07-28")
			_, err := c.CallTool(context.Background(), "where", map[string]any{"region": "us-west1"})
			assertClass(t, err, client.ClassProtocol, &client.ReasonError{Reason: client.ReasonHeaderMismatch})
			if errors.Is(err, client.ErrOutcomeUnknown) {
				t.Errorf("a refused call says %v", err)
			}
			if n.get("where") != 0 {
				t.Errorf("where ran %d times, want 0", n.get("where"))
			}
		})
	}
}
