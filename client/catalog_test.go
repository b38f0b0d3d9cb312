package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolsServer publishes one no-op tool per description, in the given order.
func toolsServer(descs map[string]string, order []string) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
	for _, name := range order {
		mcp.AddTool(srv, &mcp.Tool{Name: name, Description: descs[name]}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	}
	return srv
}

func fingerprint(t *testing.T, srv *mcp.Server) *client.Catalog {
	t.Helper()
	return connect(t, srv, client.Definition{Name: "s"}, nil).Catalog()
}

func TestFingerprintStableAndSensitive(t *testing.T) {
	leakcheck.Check(t)
	descs := map[string]string{"a": "first", "b": "second"}
	base := fingerprint(t, toolsServer(descs, []string{"a", "b"}))
	if again := fingerprint(t, toolsServer(descs, []string{"b", "a"})); again.Fingerprint != base.Fingerprint {
		t.Errorf("same catalog listed in another order: fingerprint %s, want %s", again.Fingerprint, base.Fingerprint)
	}
	changed := fingerprint(t, toolsServer(map[string]string{"a": "first", "b": "SECOND"}, []string{"a", "b"}))
	if changed.Fingerprint == base.Fingerprint {
		t.Error("a changed description kept the fingerprint")
	}
	if changed.ToolFingerprints["a"] != base.ToolFingerprints["a"] || changed.ToolFingerprints["b"] == base.ToolFingerprints["b"] {
		t.Errorf("tool fingerprints: got %v, base %v; want only b to change", changed.ToolFingerprints, base.ToolFingerprints)
	}
}

// The fingerprint is a constant of the catalog: the same in every process and
// run. Pin it here so that a change to the canonical form is noticed.
func TestFingerprintGolden(t *testing.T) {
	leakcheck.Check(t)
	cat := fingerprint(t, toolsServer(map[string]string{"a": "first"}, []string{"a"}))
	const want = "sha256:c56e7531050adacf5532c27ebc8c3672f282def42007484bc4ae1f9c1101ae3d"
	if cat.Fingerprint != want {
		t.Errorf("Fingerprint = %s, want %s", cat.Fingerprint, want)
	}
}

func TestPinnedFingerprintHoldsChangedTools(t *testing.T) {
	leakcheck.Check(t)
	old := fingerprint(t, toolsServer(map[string]string{"a": "first", "b": "second"}, []string{"a", "b"}))
	srv := toolsServer(map[string]string{"a": "first", "b": "SECOND", "c": "new"}, []string{"a", "b", "c"})

	var drifts []*client.Drift
	c := connect(t, srv, client.Definition{Name: "s", Fingerprint: old.Fingerprint, ToolFingerprints: old.ToolFingerprints},
		&client.Handlers{CatalogChanged: func(d *client.Drift) { drifts = append(drifts, d) }})
	want := &client.Drift{Want: old.Fingerprint, Got: c.Catalog().Fingerprint, Changed: []string{"b"}, Added: []string{"c"}}
	if diff := cmp.Diff(want, c.Drift()); diff != "" {
		t.Errorf("Drift() mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]*client.Drift{want}, drifts); diff != "" {
		t.Errorf("CatalogChanged calls mismatch (-want +got):\n%s", diff)
	}
	ctx := context.Background()
	if _, err := c.CallTool(ctx, "a", map[string]any{}); err != nil {
		t.Errorf("unchanged tool a: %v", err)
	}
	for _, tool := range []string{"b", "c"} {
		_, err := c.CallTool(ctx, tool, map[string]any{})
		assertClass(t, err, client.ClassPolicy, client.ErrHeld)
	}
	c.AcceptCatalog()
	if c.Drift() != nil {
		t.Errorf("Drift() after AcceptCatalog = %v, want nil", c.Drift())
	}
	for _, tool := range []string{"b", "c"} {
		if _, err := c.CallTool(ctx, tool, map[string]any{}); err != nil {
			t.Errorf("accepted tool %s: %v", tool, err)
		}
	}
}

func TestPinnedFingerprintWithoutToolsHoldsAll(t *testing.T) {
	leakcheck.Check(t)
	c := connect(t, docsServer(&counter{}), client.Definition{Fingerprint: "sha256:elsewhere"}, nil)
	b, _ := c.Binding("lookup")
	if !b.Held {
		t.Errorf("Binding(lookup) = %+v, want held", b)
	}
	_, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "x"})
	assertClass(t, err, client.ClassPolicy, client.ErrHeld)
}

// A list_changed re-discovers the catalog: ListChanged gets the new one,
// the added tool is bound but held against the pin, and CatalogChanged (which
// the client calls after ListChanged, on the same goroutine) reports it.
func TestListChangedRediscovers(t *testing.T) {
	leakcheck.Check(t)
	srv := toolsServer(map[string]string{"a": "first"}, []string{"a"})
	changed := make(chan *client.Catalog, 4)
	drifts := make(chan *client.Drift, 4)
	pin := fingerprint(t, toolsServer(map[string]string{"a": "first"}, []string{"a"}))
	c := connect(t, srv, client.Definition{Name: "s", Fingerprint: pin.Fingerprint}, &client.Handlers{
		ListChanged: func(what string, cat *client.Catalog) {
			if what == "tools" {
				changed <- cat
			}
		},
		CatalogChanged: func(d *client.Drift) { drifts <- d },
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "b", Description: "added"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	cat := next(t, changed, "ListChanged")
	var names []string
	for _, tl := range cat.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"a", "b"}) {
		t.Errorf("re-discovered tools = %v, want [a b]", names)
	}
	if _, ok := c.Binding("mcp__s__b"); !ok {
		t.Error("no binding for the added tool")
	}
	_, err := c.CallTool(context.Background(), "b", map[string]any{})
	assertClass(t, err, client.ClassPolicy, client.ErrHeld)
	if d := next(t, drifts, "CatalogChanged"); !slices.Equal(d.Added, []string{"b"}) {
		t.Errorf("drift = %+v, want one adding b", d)
	}
	select {
	case d := <-drifts:
		t.Errorf("a second drift: %+v", d)
	default:
	}
}

// next returns what ch carries next, failing t if nothing comes within
// 10 seconds (what is the handler awaited).
func next[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("%s was not called within 10s", what)
		var zero T
		return zero
	}
}

func TestConnectOverInprocessFactoryTwice(t *testing.T) {
	leakcheck.Check(t)
	f := inprocess.New(docsServer(&counter{}))
	for range 2 {
		c, err := client.Connect(context.Background(), client.Definition{Name: "docs", Transport: f}, nil)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
}

// TestListChangedDuringConnectRediscoversBeforeReturn: a list change the
// server announces while Connect discovers (as servers that set their
// tools up as the session starts do) is discovered again before Connect
// returns, so the re-listing has a fixed place, before the caller's first
// call: recordings of such servers are the same every time.
func TestListChangedDuringConnectRediscoversBeforeReturn(t *testing.T) {
	leakcheck.Check(t)
	srv := toolsServer(map[string]string{"a": "first"}, []string{"a"})
	sent := make(chan struct{})
	var once sync.Once
	srv.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "notifications/tools/list_changed" {
				once.Do(func() { close(sent) })
			}
			return res, err
		}
	})
	var mu sync.Mutex
	lists := 0
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				mu.Lock()
				lists++
				first := lists == 1
				mu.Unlock()
				if first {
					// The server changes its tools as the first listing
					// arrives, and announces it before answering.
					mcp.AddTool(srv, &mcp.Tool{Name: "b", Description: "added"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
						return &mcp.CallToolResult{}, nil, nil
					})
					<-sent
				}
			}
			return next(ctx, method, req)
		}
	})
	changed := make(chan string, 4)
	c := connect(t, srv, client.Definition{Name: "s"}, &client.Handlers{ListChanged: func(what string, _ *client.Catalog) { changed <- what }})
	mu.Lock()
	n := lists
	mu.Unlock()
	if n != 2 {
		t.Errorf("Connect returned after %d tools/list, want 2: the change announced during discovery is discovered before Connect returns", n)
	}
	var names []string
	for _, tl := range c.Catalog().Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"a", "b"}) {
		t.Errorf("Connect's catalog = %v, want [a b]", names)
	}
	if what := <-changed; what != "tools" {
		t.Errorf("ListChanged(%q), want tools", what)
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
	// Within its TTL a repeated read is answered from the go-sdk's cache,
	// as Catalog.Cache's doc says: the server reads once.
	if _, err := c.ReadResource(context.Background(), "docs://readme"); err != nil {
		t.Fatal(err)
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("the server read the resource %d times, want 1", n)
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

// TestNewCatalog: a catalog built from a connected catalog's items, in
// another order, has Connect's fingerprints; a tool listed twice is
// ReasonInvalidCatalog.
func TestNewCatalog(t *testing.T) {
	leakcheck.Check(t)
	live := fingerprint(t, toolsServer(map[string]string{"a": "first", "b": "second"}, []string{"a", "b"}))
	tools := slices.Clone(live.Tools)
	slices.Reverse(tools)
	built, err := client.NewCatalog(tools, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if built.Fingerprint != live.Fingerprint || !cmp.Equal(built.ToolFingerprints, live.ToolFingerprints) {
		t.Errorf("NewCatalog fingerprint %s %v, Connect's %s %v", built.Fingerprint, built.ToolFingerprints, live.Fingerprint, live.ToolFingerprints)
	}
	if _, err := client.NewCatalog(append(tools, tools[0]), nil, nil, nil); !errors.Is(err, &client.ReasonError{Reason: client.ReasonInvalidCatalog}) {
		t.Errorf("NewCatalog with a tool twice = %v, want ReasonInvalidCatalog", err)
	}
}
