package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPParamHeaderFaults: a mirrored argument no header can carry is
// refused as the invalid argument it is (-32602), an Mcp-Param-* header
// that mirrors nothing as a mismatch (-32020), in both modes; the tool runs
// for the requests that are served, and never for those refused.
func TestHTTPParamHeaderFaults(t *testing.T) {
	level := &mcp.Tool{Name: "level", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"n":{"type":"integer","x-mcp-header":"N"},
		"o":{"type":"object","properties":{"deep":{"type":"string","x-mcp-header":"Deep"}}}}}`)}
	call := func(tool, args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `,` + meta + `}}`
	}
	heads := func(tool string, kv ...string) header {
		return append(header{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", tool}, kv...)
	}
	invalid, mismatch := answer{http.StatusBadRequest, jsonrpc.CodeInvalidParams}, answer{http.StatusBadRequest, mcp.CodeHeaderMismatch}
	for _, tc := range []struct {
		name string
		body string
		hs   header
		want answer
	}{
		{"the largest safe integer", call("level", `{"n":9007199254740991}`), heads("level", "Mcp-Param-N", "9007199254740991"), served},
		{"a negative integer", call("level", `{"n":-5}`), heads("level", "Mcp-Param-N", "-5"), served},
		{"a nested argument", call("level", `{"o":{"deep":"x"}}`), heads("level", "Mcp-Param-Deep", "x"), served},
		{"an absent argument, no header", call("level", `{}`), heads("level"), served},
		{"a header name in another case", call("where", `{"region":"eu"}`), heads("where", "mcp-param-REGION", "eu"), served},
		{"a huge number, with its header", call("level", `{"n":1e300}`), heads("level", "Mcp-Param-N", "1e300"), invalid},
		{"a huge number, no header", call("level", `{"n":1e300}`), heads("level"), invalid},
		{"past 2^53", call("level", `{"n":9007199254740993}`), heads("level", "Mcp-Param-N", "9007199254740993"), invalid},
		{"a fraction", call("level", `{"n":1.5}`), heads("level", "Mcp-Param-N", "1.5"), invalid},
		{"an object", call("level", `{"n":{"a":1}}`), heads("level"), invalid},
		{"a nested array", call("level", `{"o":{"deep":[1]}}`), heads("level"), invalid},
		{"a header that mirrors no argument", call("where", `{"region":"eu"}`), heads("where", "Mcp-Param-Region", "eu", "Mcp-Param-Other", "x"), mismatch},
		{"a header of an argument of another tool", call("where", `{}`), heads("where", "Mcp-Param-N", "1"), mismatch},
		{"a header on another method", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`,
			header{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list", "Mcp-Param-Region", "eu"}, mismatch},
		{"a mismatched name is the go-sdk's to refuse first", call("level", `{"n":1e300}`), heads("where"), mismatch},
	} {
		for _, mode := range modes {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				leakcheck.Check(t)
				s := newServer(t, "docs", "v1", nil)
				var runs atomic.Int64
				count := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					runs.Add(1)
					return textResult("ok"), nil
				}
				mustRegister(t, s, level, count)
				mustRegister(t, s, headerTool(), count)
				ts := serveHTTP(t, httpHandler(t, s, mode.opts))
				status, r, text := send(t, ts, tc.body, tc.hs)
				got := answer{status: status}
				if r.Error != nil {
					got.code = r.Error.Code
				}
				if got != tc.want {
					t.Errorf("answer %+v (%s), want %+v", got, strings.TrimSpace(text), tc.want)
				}
				if tc.want != served && r.ID != 1 {
					t.Errorf("the refusal's id is %d, want the request's, 1", r.ID)
				}
				wantRuns := int64(0)
				if tc.want == served {
					wantRuns = 1
				}
				if got := runs.Load(); got != wantRuns {
					t.Errorf("the tool ran %d times, want %d", got, wantRuns)
				}
			})
		}
	}
}

// TestParamHeadersFollowRegistration: a removed tool's mirrored arguments
// are forgotten with it, and a tool registered again under its name is
// checked by its own.
func TestParamHeadersFollowRegistration(t *testing.T) {
	s := newServer(t, "docs", "v1", nil)
	mustRegister(t, s, headerTool(), lookup)
	s.RemoveTools("where")
	if _, ok := s.headers["where"]; ok {
		t.Errorf("the removed tool's mirrored arguments are still kept")
	}
	mustRegister(t, s, &mcp.Tool{Name: "where", InputSchema: json.RawMessage(`{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}}`)}, lookup)
	if got := s.headers["where"]; len(got) != 1 || got[0].header != "Zone" || strings.Join(got[0].path, ".") != "zone" {
		t.Errorf("mirrored arguments = %+v, want zone in Zone", got)
	}
}
