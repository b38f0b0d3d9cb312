package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

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
// (-32020) gives a ClassProtocol error wrapping ErrHeaderMismatch; the tool
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
			assertClass(t, err, client.ClassProtocol, client.ErrHeaderMismatch)
			if errors.Is(err, client.ErrOutcomeUnknown) {
				t.Errorf("a refused call says %v", err)
			}
			if n.get("where") != 0 {
				t.Errorf("where ran %d times, want 0", n.get("where"))
			}
		})
	}
}

// Subscribe, Unsubscribe and Handlers.ListChanged work on both revisions:
// on 2026-07-28 through subscriptions/listen streams, on 2025-11-25 through
// resources/subscribe and the session's notifications.
func TestSubscriptions(t *testing.T) {
	for _, p := range peers {
		t.Run(p.name, func(t *testing.T) {
			leakcheck.Check(t)
			srv := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "v1"}, &mcp.ServerOptions{
				SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
				UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
			})
			srv.AddResource(&mcp.Resource{URI: "docs://readme", Name: "readme"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "v1"}}}, nil
			})
			mcp.AddTool(srv, &mcp.Tool{Name: "lookup"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, nil
			})
			updated := make(chan string, 16)
			changed := make(chan []string, 16)
			h := &client.Handlers{
				ResourceUpdated: func(_ context.Context, p *mcp.ResourceUpdatedNotificationParams) { updated <- p.URI },
				ListChanged: func(what string, cat *client.Catalog) {
					var tools []string
					for _, tl := range cat.Tools {
						tools = append(tools, tl.Name)
					}
					changed <- tools
				},
			}
			c, _ := connectPeer(t, p, srv, h, client.Limits{})
			ctx := context.Background()
			if err := c.Subscribe(ctx, "docs://readme"); err != nil {
				t.Fatalf("Subscribe: %v", err)
			}
			// Subscribe returned once the server had the subscription: the
			// first update reaches the handler.
			if err := srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "docs://readme"}); err != nil {
				t.Fatal(err)
			}
			if got := receive(t, updated, 1); got[0] != "docs://readme" {
				t.Errorf("updated %v", got)
			}
			mcp.AddTool(srv, &mcp.Tool{Name: "added"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, nil
			})
			select {
			case tools := <-changed:
				if diff := cmp.Diff([]string{"added", "lookup"}, tools); diff != "" {
					t.Errorf("re-discovered tools mismatch (-want +got):\n%s", diff)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no ListChanged after the server added a tool")
			}
			if err := c.Unsubscribe(ctx, "docs://readme"); err != nil {
				t.Fatalf("Unsubscribe: %v", err)
			}
			if err := c.Subscribe(ctx, "docs://readme"); err != nil {
				t.Fatalf("Subscribe again: %v", err)
			}
		})
	}
}

// Caching hints (ttlMs, cacheScope) reach the caller: each list's in
// Catalog.Cache, a read's in its result.
func TestCacheHints(t *testing.T) {
	leakcheck.Check(t)
	var reads atomic.Int64
	srv := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "v1"}, &mcp.ServerOptions{
		SetCacheable: func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
			if _, ok := req.GetParams().(*mcp.ListToolsParams); ok {
				c.TTLMs, c.CacheScope = 60_000, "private"
			}
		},
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "lookup"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	srv.AddResource(&mcp.Resource{URI: "docs://readme", Name: "readme"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		reads.Add(1)
		res := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "hi"}}}
		res.TTLMs, res.CacheScope = 30_000, "public"
		return res, nil
	})
	c := connect(t, srv, client.Definition{}, nil)
	if got := c.Catalog().Cache["tools"]; got != (mcp.Cacheable{TTLMs: 60_000, CacheScope: "private"}) {
		t.Errorf("Catalog().Cache[tools] = %+v", got)
	}
	rr, err := c.ReadResource(context.Background(), "docs://readme")
	if err != nil {
		t.Fatal(err)
	}
	if rr.TTLMs != 30_000 || rr.CacheScope != "public" {
		t.Errorf("read result cache hints = %d, %q", rr.TTLMs, rr.CacheScope)
	}
}

// JSON Schema 2020-12 is kept as the server sent it: no $ref is
// dereferenced and unknown keywords survive discovery, on both revisions.
func TestSchemaPreserved(t *testing.T) {
	const schema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"urn:example:order","type":"object",` +
		`"$defs":{"item":{"type":"object","properties":{"sku":{"type":"string"}},"unevaluatedProperties":false}},` +
		`"properties":{"items":{"type":"array","prefixItems":[{"$ref":"#/$defs/item"}],"items":{"$ref":"https://example.com/never-fetched.json"}},` +
		`"when":{"type":"string","format":"date-time","x-vendor-hint":{"ui":"calendar"}}},` +
		`"dependentRequired":{"items":["when"]},"x-custom":[1,2,3]}`
	for _, p := range []client.Profile{client.ProfileDefault, client.Profile20251125} {
		t.Run(p.String(), func(t *testing.T) {
			leakcheck.Check(t)
			srv := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "v1"}, nil)
			srv.AddTool(&mcp.Tool{Name: "order", InputSchema: json.RawMessage(schema)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
			c := connect(t, srv, client.Definition{Profile: p}, nil)
			got, err := json.Marshal(c.Catalog().Tool("order").InputSchema)
			if err != nil {
				t.Fatal(err)
			}
			var want, have any
			json.Unmarshal([]byte(schema), &want)
			json.Unmarshal(got, &have)
			if diff := cmp.Diff(want, have); diff != "" {
				t.Errorf("input schema mismatch (-sent +discovered):\n%s", diff)
			}
		})
	}
}
