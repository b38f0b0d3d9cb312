package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pagedLiar serves tools/list from pages: page i (cursor "p<i>", the first
// one "") holds pages[i] tools and names the next page, or none after the
// last. It counts the tools/list requests it answers.
func pagedLiar(pages []int, tool func(name string) map[string]any, lists *int) liar {
	return liar{answer: func(method string, params json.RawMessage) any {
		switch method {
		case "initialize":
			return initialize("2025-11-25")
		case "tools/list":
			*lists++
			var p struct{ Cursor string }
			json.Unmarshal(params, &p)
			i := 0
			if p.Cursor != "" {
				i, _ = strconv.Atoi(strings.TrimPrefix(p.Cursor, "p"))
			}
			var tools []any
			for j := range pages[i] {
				tools = append(tools, tool(fmt.Sprintf("t%d_%d", i, j)))
			}
			res := map[string]any{"tools": tools}
			if i+1 < len(pages) {
				res["nextCursor"] = fmt.Sprintf("p%d", i+1)
			}
			return res
		}
		return &jsonrpc.Error{Code: -32601, Message: "no " + method}
	}}
}

// encodedSize is how many bytes tool counts for in MaxCatalogBytes: its
// encoding once the client has decoded it.
func encodedSize(t *testing.T, tool map[string]any) int {
	t.Helper()
	b, _ := json.Marshal(tool)
	var decoded mcp.Tool
	if err := json.Unmarshal(b, &decoded); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(&decoded)
	return len(b)
}

func repeat(n, times int) []int {
	s := make([]int, times)
	for i := range s {
		s[i] = n
	}
	return s
}

// Every discovery bound at its edge: exactly the bound is read, one more is
// refused (ClassPolicy, ErrCatalogLimit), counted in the pages the server
// answered.
func TestDiscoveryBoundsAtTheEdge(t *testing.T) {
	const n = 4
	toolFor := func(name string) map[string]any {
		x := tool(name)
		x["description"] = "a tool of the paged catalog"
		return x
	}
	for _, tc := range []struct {
		name   string
		limits client.Limits
		pages  []int
		bytes  int // for MaxCatalogBytes: 0 = the catalog's size, -1 = one byte less
		ok     bool
		lists  int // tools/list requests answered
	}{
		{"MaxPages pages", client.Limits{MaxPages: n}, repeat(1, n), 1, true, n},
		{"MaxPages+1 pages", client.Limits{MaxPages: n}, repeat(1, n+1), 1, false, n},
		{"MaxItems items on one page", client.Limits{MaxItems: n}, []int{n}, 1, true, 1},
		{"MaxItems+1 items on one page", client.Limits{MaxItems: n}, []int{n + 1}, 1, false, 1},
		{"MaxItems items over pages", client.Limits{MaxItems: n}, []int{1, n - 1}, 1, true, 2},
		{"MaxItems+1 items over pages", client.Limits{MaxItems: n}, []int{n, 1}, 1, false, 2},
		{"MaxCatalogBytes exactly", client.Limits{}, []int{2, 1}, 0, true, 2},
		{"MaxCatalogBytes one byte short", client.Limits{}, []int{2, 1}, -1, false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			if tc.bytes <= 0 {
				total := 0
				for i, p := range tc.pages {
					for j := range p {
						total += encodedSize(t, toolFor(fmt.Sprintf("t%d_%d", i, j)))
					}
				}
				tc.limits.MaxCatalogBytes = total + tc.bytes
			}
			lists := 0
			f := pagedLiar(tc.pages, toolFor, &lists)
			c, err := client.Connect(context.Background(), client.Definition{Name: "liar", Limits: tc.limits, Transport: f}, nil)
			if tc.ok {
				if err != nil {
					t.Fatalf("Connect at the bound: %v", err)
				}
				defer c.Close()
				want := 0
				for _, p := range tc.pages {
					want += p
				}
				if got := len(c.Catalog().Tools); got != want {
					t.Errorf("catalog holds %d tools, want %d", got, want)
				}
			} else {
				if err == nil {
					c.Close()
					t.Fatal("Connect past the bound succeeded")
				}
				assertClass(t, err, client.ClassPolicy, client.ErrCatalogLimit)
			}
			if lists != tc.lists {
				t.Errorf("the server answered %d tools/list requests, want %d", lists, tc.lists)
			}
		})
	}
}

// A pagination cursor that comes back is a loop, whatever its length and
// wherever it starts: each is refused (ClassProtocol, ReasonCursorLoop) as
// soon as a cursor repeats, before the page bound, with one request per
// distinct cursor.
func TestCursorCyclesOfEveryLength(t *testing.T) {
	for prefix := 0; prefix <= 2; prefix++ {
		for length := 1; length <= 6; length++ {
			t.Run(fmt.Sprintf("prefix %d, cycle %d", prefix, length), func(t *testing.T) {
				leakcheck.Check(t)
				// Cursors c1..c<prefix> lead into the cycle
				// c<prefix+1>..c<prefix+length>, whose last page names
				// c<prefix+1> again.
				next := func(i int) string {
					if i == prefix+length {
						return fmt.Sprintf("c%d", prefix+1)
					}
					return fmt.Sprintf("c%d", i+1)
				}
				lists := 0
				f := liar{answer: func(method string, params json.RawMessage) any {
					switch method {
					case "initialize":
						return initialize("2025-11-25")
					case "tools/list":
						lists++
						var p struct{ Cursor string }
						json.Unmarshal(params, &p)
						i, _ := strconv.Atoi(strings.TrimPrefix(p.Cursor, "c"))
						return map[string]any{"tools": []any{tool(fmt.Sprintf("t%d_%d", i, lists))}, "nextCursor": next(i)}
					}
					return &jsonrpc.Error{Code: -32601, Message: "no " + method}
				}}
				c, err := client.Connect(context.Background(), client.Definition{Name: "liar", Transport: f}, nil)
				if err == nil {
					c.Close()
					t.Fatal("Connect succeeded over a cursor loop")
				}
				assertClass(t, err, client.ClassProtocol, &client.ReasonError{Reason: client.ReasonCursorLoop})
				assertClass(t, err, client.ClassProtocol, client.ErrCatalogLimit) // the sentinel it folded into
				// The first page, then one page per distinct cursor.
				if want := 1 + prefix + length; lists != want {
					t.Errorf("the server answered %d tools/list requests, want %d", lists, want)
				}
			})
		}
	}
}

// A tool's fingerprint, and the catalog's, change with every field of the
// tool (name, title, description, input and output schema, each
// annotation, icons), and only that tool's: each variant has a fingerprint
// of its own.
func TestFingerprintChangesWithEveryToolField(t *testing.T) {
	base := func() map[string]any {
		return map[string]any{
			"name":         "lookup",
			"title":        "Lookup",
			"description":  "finds things",
			"inputSchema":  map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}},
			"outputSchema": map[string]any{"type": "object"},
			"annotations":  map[string]any{"title": "Look", "readOnlyHint": true},
			"icons":        []any{map[string]any{"src": "https://example.com/a.png", "mimeType": "image/png"}},
		}
	}
	variants := map[string]func(map[string]any){
		"base":             func(map[string]any) {},
		"name":             func(m map[string]any) { m["name"] = "lookup2" },
		"title":            func(m map[string]any) { m["title"] = "Look up" },
		"description":      func(m map[string]any) { m["description"] = "finds other things" },
		"input schema":     func(m map[string]any) { m["inputSchema"] = map[string]any{"type": "object"} },
		"output schema":    func(m map[string]any) { delete(m, "outputSchema") },
		"annotation title": func(m map[string]any) { m["annotations"] = map[string]any{"title": "Seek", "readOnlyHint": true} },
		"readOnlyHint":     func(m map[string]any) { m["annotations"] = map[string]any{"title": "Look", "readOnlyHint": false} },
		"destructiveHint": func(m map[string]any) {
			m["annotations"] = map[string]any{"title": "Look", "readOnlyHint": true, "destructiveHint": false}
		},
		"idempotentHint": func(m map[string]any) {
			m["annotations"] = map[string]any{"title": "Look", "readOnlyHint": true, "idempotentHint": true}
		},
		"openWorldHint": func(m map[string]any) {
			m["annotations"] = map[string]any{"title": "Look", "readOnlyHint": true, "openWorldHint": false}
		},
		"icon src": func(m map[string]any) {
			m["icons"] = []any{map[string]any{"src": "https://example.com/b.png", "mimeType": "image/png"}}
		},
		"icon mime type": func(m map[string]any) {
			m["icons"] = []any{map[string]any{"src": "https://example.com/a.png", "mimeType": "image/jpeg"}}
		},
		"second icon": func(m map[string]any) {
			m["icons"] = append(m["icons"].([]any), map[string]any{"src": "https://example.com/c.png"})
		},
		"no icons":       func(m map[string]any) { delete(m, "icons") },
		"no annotations": func(m map[string]any) { delete(m, "annotations") },
		"schema property type": func(m map[string]any) {
			m["inputSchema"] = map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "number"}}}
		},
	}
	type prints struct{ tool, other, catalog string }
	seen := map[string]string{} // tool fingerprint -> variant
	var baseline prints
	for _, name := range []string{"base", "name", "title", "description", "input schema", "schema property type", "output schema",
		"annotation title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "no annotations",
		"icon src", "icon mime type", "second icon", "no icons"} {
		leakcheck.Check(t)
		v := base()
		variants[name](v)
		f := liar{answer: func(method string, params json.RawMessage) any {
			switch method {
			case "initialize":
				return initialize("2025-11-25")
			case "tools/list":
				return map[string]any{"tools": []any{v, tool("other")}}
			}
			return &jsonrpc.Error{Code: -32601, Message: "no " + method}
		}}
		c, err := client.Connect(context.Background(), client.Definition{Name: "liar", Transport: f}, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cat := c.Catalog()
		c.Close()
		got := prints{cat.ToolFingerprints[v["name"].(string)], cat.ToolFingerprints["other"], cat.Fingerprint}
		if name == "base" {
			baseline = got
		} else {
			if got.catalog == baseline.catalog {
				t.Errorf("changing the tool's %s kept the catalog fingerprint", name)
			}
			if got.other != baseline.other {
				t.Errorf("changing one tool's %s changed the other tool's fingerprint", name)
			}
		}
		if prev, dup := seen[got.tool]; dup {
			t.Errorf("variants %q and %q have the same tool fingerprint", prev, name)
		}
		seen[got.tool] = name
	}
}
