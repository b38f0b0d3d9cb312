package client_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// liar is a server written at the JSON-RPC level, so that it can break the
// rules a go-sdk server keeps: it answers each request with what answer
// returns for its method.
type liar struct {
	answer func(method string, params json.RawMessage) any
}

func (liar) Kind() transport.Kind { return transport.KindInProcess }

func (l liar) Transport() (mcp.Transport, error) {
	ct, st := inprocess.Pipe()
	conn, _ := st.Connect(context.Background())
	go func() {
		defer conn.Close()
		for {
			msg, err := conn.Read(context.Background())
			if err != nil {
				return
			}
			req, ok := msg.(*jsonrpc.Request)
			if !ok || !req.IsCall() {
				continue
			}
			resp := &jsonrpc.Response{ID: req.ID}
			switch v := l.answer(req.Method, req.Params).(type) {
			case *jsonrpc.Error:
				resp.Error = v
			default:
				resp.Result, _ = json.Marshal(v)
			}
			if conn.Write(context.Background(), resp) != nil {
				return
			}
		}
	}()
	return ct, nil
}

func initialize(version string) map[string]any {
	return map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{"tools": map[string]any{}},
		"serverInfo":      map[string]any{"name": "liar", "version": "v0"},
	}
}

func tool(name string) map[string]any {
	return map[string]any{"name": name, "inputSchema": map[string]any{"type": "object"}}
}

func TestLyingServers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limits client.Limits
		tools  func(cursor string) any
		class  client.FailureClass
		target error
	}{
		{
			name:  "cursor loop",
			tools: func(string) any { return map[string]any{"tools": []any{}, "nextCursor": "again"} },
			class: client.ClassProtocol, target: &client.ReasonError{Reason: client.ReasonCursorLoop},
		},
		{
			name:  "duplicate tool",
			tools: func(string) any { return map[string]any{"tools": []any{tool("a"), tool("a")}} },
			class: client.ClassProtocol, target: &client.ReasonError{Reason: client.ReasonInvalidCatalog},
		},
		{
			name:   "endless pages",
			limits: client.Limits{MaxPages: 3},
			tools: func(cursor string) any {
				return map[string]any{"tools": []any{}, "nextCursor": cursor + "x"}
			},
			class: client.ClassPolicy, target: client.ErrCatalogLimit,
		},
		{
			name:   "too many items",
			limits: client.Limits{MaxItems: 2},
			tools: func(string) any {
				return map[string]any{"tools": []any{tool("a"), tool("b"), tool("c")}}
			},
			class: client.ClassPolicy, target: client.ErrCatalogLimit,
		},
		{
			name:   "too many bytes",
			limits: client.Limits{MaxCatalogBytes: 1000},
			tools: func(string) any {
				t := tool("a")
				t["description"] = strings.Repeat("d", 2000)
				return map[string]any{"tools": []any{t}}
			},
			class: client.ClassPolicy, target: client.ErrCatalogLimit,
		},
		{
			name:  "error listing",
			tools: func(string) any { return &jsonrpc.Error{Code: -32603, Message: "internal"} },
			class: client.ClassServer,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			f := liar{answer: func(method string, params json.RawMessage) any {
				switch method {
				case "initialize":
					return initialize("2025-11-25")
				case "tools/list":
					var p struct{ Cursor string }
					json.Unmarshal(params, &p)
					return tc.tools(p.Cursor)
				}
				return &jsonrpc.Error{Code: -32601, Message: "no " + method}
			}}
			c, err := client.Connect(context.Background(), client.Definition{Name: "liar", Limits: tc.limits, Transport: f}, nil)
			if err == nil {
				c.Close()
				t.Fatal("Connect succeeded")
			}
			assertClass(t, err, tc.class, tc.target)
		})
	}
}

func TestNegotiatedVersionMustMatchProfile(t *testing.T) {
	leakcheck.Check(t)
	f := liar{answer: func(method string, _ json.RawMessage) any {
		if method == "initialize" {
			return initialize("2025-03-26")
		}
		return map[string]any{"tools": []any{}}
	}}
	_, err := client.Connect(context.Background(), client.Definition{Name: "liar", Transport: f}, nil)
	assertClass(t, err, client.ClassProtocol, client.ErrRevisionMismatch)
	if err != nil && !strings.Contains(err.Error(), "2025-03-26") {
		t.Errorf("error %q does not name the negotiated version", err)
	}
	// The same server is fine for a client that pins its revision.
	c, err := client.Connect(context.Background(), client.Definition{Name: "liar", Profile: client.Profile20250326, Transport: f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

func TestErrorStrings(t *testing.T) {
	for class := client.ClassStart; class <= client.ClassClosed; class++ {
		if s := class.String(); strings.HasPrefix(s, "FailureClass(") {
			t.Errorf("class %d has no name", int(class))
		}
	}
	e := &client.Error{Class: client.ClassPolicy, Op: client.OpCallTool, Server: "docs", Tool: "lookup", Err: &client.ReasonError{Reason: client.ReasonDisabled}}
	if got, want := e.Error(), "mcp docs: call lookup: policy: binding disabled"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	for class, want := range map[client.FailureClass]bool{
		client.ClassTransport: true, client.ClassTimeout: false, client.ClassServer: true,
		client.ClassPolicy: false, client.ClassTool: false, client.ClassProtocol: false, client.ClassAuth: false, client.ClassClosed: false,
	} {
		if got := (&client.Error{Class: class}).ConnectionRetryable(); got != want {
			t.Errorf("%s: ConnectionRetryable() = %v, want %v", class, got, want)
		}
	}
}

// A server that answers a tools/call with a task handle the client did not
// ask for (it declared no tasks) fails the call with ReasonInvalidTask
// (ClassProtocol), content or not, rather than handing the caller an empty
// or partial result; a result of any other type is the call's result.
func TestUnaskedTaskHandleIsRefused(t *testing.T) {
	text := []any{map[string]any{"type": "text", "text": "sunny"}}
	for _, tc := range []struct {
		name   string
		result map[string]any
		refuse bool
	}{
		{"task handle", map[string]any{"resultType": "task", "taskId": "t1", "status": "working"}, true},
		{"task handle with content", map[string]any{"resultType": "task", "taskId": "t1", "status": "working", "content": text}, true},
		{"task handle with an error flag", map[string]any{"resultType": "task", "taskId": "t1", "status": "working", "isError": true}, true},
		{"complete", map[string]any{"resultType": "complete", "content": text}, false},
		{"no result type", map[string]any{"content": text}, false},
		{"empty", map[string]any{}, false},
		{"tasks as a word in the content", map[string]any{"content": []any{map[string]any{"type": "text", "text": `"resultType":"task"`}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			f := liar{answer: func(method string, params json.RawMessage) any {
				switch method {
				case "initialize":
					return initialize("2025-11-25")
				case "tools/list":
					return map[string]any{"tools": []any{tool("a")}}
				case "tools/call":
					return tc.result
				}
				return &jsonrpc.Error{Code: -32601, Message: "no " + method}
			}}
			c, err := client.Connect(testkit.Context(t), client.Definition{Name: "liar", Profile: client.Profile20251125, Transport: f}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			res, err := c.CallTool(testkit.Context(t), "a", nil)
			if tc.refuse {
				if err == nil {
					t.Fatalf("CallTool() = %+v, want an error", res)
				}
				assertClass(t, err, client.ClassProtocol, &client.ReasonError{Reason: client.ReasonInvalidTask})
				return
			}
			if err != nil {
				t.Fatalf("CallTool() error = %v", err)
			}
		})
	}
}
