package server

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type outcome struct {
	Text    string
	IsError bool
}

func TestInputValidation(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "docs", "v1", nil)
	calls := 0
	mustRegister(t, s, lookupTool(), func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		calls++
		return lookup(ctx, req)
	})
	cs := connect(t, s)
	tests := []struct {
		name, args string
		want       outcome
	}{
		{"valid", `{"query":"go"}`, outcome{Text: "docs: go"}},
		{"no arguments", ``, outcome{Text: `invalid input: validating root: required: missing properties: ["query"]`, IsError: true}},
		{"wrong type", `{"query":7}`, outcome{Text: `invalid input: validating root: validating /properties/query: type: 7 has type "integer", want "string"`, IsError: true}},
		{"not an object", `["go"]`, outcome{Text: `invalid input: arguments must be a JSON object`, IsError: true}},
		{"valid again", `{"query":"mcp"}`, outcome{Text: "docs: mcp"}},
	}
	for _, tt := range tests {
		got, isErr := call(t, cs, "lookup", tt.args)
		if diff := cmp.Diff(tt.want, outcome{got, isErr}); diff != "" {
			t.Errorf("%s: CallTool mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
	if calls != 2 {
		t.Errorf("handler ran %d times, want 2 (only for valid input)", calls)
	}
}

// A schema violation in several properties is reported the same way every
// time, though jsonschema-go visits properties in map order.
func TestInputValidationDeterministic(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "docs", "v1", nil)
	schema := `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"},"d":{"type":"string"}}}`
	mustRegister(t, s, &mcp.Tool{Name: "t", InputSchema: json.RawMessage(schema)}, lookup)
	cs := connect(t, s)
	want := `invalid input: validating root: validating /properties/a: type: 1 has type "integer", want "string"`
	for range 30 {
		got, _ := call(t, cs, "t", `{"d":4,"c":3,"b":2,"a":1}`)
		if got != want {
			t.Fatalf("CallTool text = %q, want %q", got, want)
		}
	}
}

func TestBounds(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "docs", "v1", &Options{MaxInputBytes: 64, MaxResultBytes: 128})
	mustRegister(t, s, lookupTool(), func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ Query string }
		json.Unmarshal(req.Params.Arguments, &in)
		if in.Query == "big" {
			return textResult(strings.Repeat("r", 100)), nil
		}
		return textResult(in.Query), nil
	})
	cs := connect(t, s)
	big := strings.Repeat("x", 100)
	tests := []struct {
		name, args string
		want       outcome
	}{
		{"input at limit", `{"query":"` + strings.Repeat("y", 64-len(`{"query":""}`)) + `"}`, outcome{Text: strings.Repeat("y", 52)}},
		{"input over limit", `{"query":"` + big + `"}`, outcome{Text: "input too large: 112 bytes of arguments exceed the 64-byte limit", IsError: true}},
		{"next call", `{"query":"ok"}`, outcome{Text: "ok"}},
		{"result over limit", `{"query":"big"}`, outcome{Text: "result too large: 139 bytes exceed the 128-byte limit", IsError: true}},
		{"next call again", `{"query":"ok"}`, outcome{Text: "ok"}},
	}
	for _, tt := range tests {
		got, isErr := call(t, cs, "lookup", tt.args)
		if diff := cmp.Diff(tt.want, outcome{got, isErr}); diff != "" {
			t.Errorf("%s: CallTool mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestDefaultBounds(t *testing.T) {
	s := newServer(t, "docs", "v1", nil)
	if got, want := [2]int{s.MaxInputBytes(), s.MaxResultBytes()}, [2]int{DefaultMaxInputBytes, DefaultMaxResultBytes}; got != want {
		t.Errorf("bounds = %v, want %v", got, want)
	}
	s = newServer(t, "docs", "v1", &Options{MaxInputBytes: -1, MaxResultBytes: -5})
	if got, want := [2]int{s.MaxInputBytes(), s.MaxResultBytes()}, [2]int{-1, -1}; got != want {
		t.Errorf("unbounded = %v, want %v", got, want)
	}
}

// Each failure of a handler reaches the caller as a clear error, and the
// session serves the next call.
func TestHandlerFailures(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "docs", "v1", nil)
	empty := json.RawMessage(`{"type":"object"}`)
	mustRegister(t, s, lookupTool(), lookup)
	mustRegister(t, s, &mcp.Tool{Name: "fail", InputSchema: empty}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("backend unavailable")
	})
	mustRegister(t, s, &mcp.Tool{Name: "panic", InputSchema: empty}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("boom")
	})
	mustRegister(t, s, &mcp.Tool{Name: "rpc", InputSchema: empty}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: -32001, Message: "custom"}
	})
	mustRegister(t, s, &mcp.Tool{Name: "nil", InputSchema: empty}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, nil
	})
	cs := connect(t, s)
	tests := []struct {
		tool    string
		want    outcome
		wantErr string // JSON-RPC error, if any
	}{
		{tool: "fail", want: outcome{Text: "backend unavailable", IsError: true}},
		{tool: "panic", want: outcome{Text: "handler panicked: boom", IsError: true}},
		{tool: "rpc", wantErr: "custom"},
		{tool: "missing", wantErr: `unknown tool "missing"`},
		{tool: "nil", want: outcome{}},
	}
	for _, tt := range tests {
		got, isErr, err := tryCall(cs, tt.tool, `{}`)
		if tt.wantErr != "" {
			var werr *jsonrpc.Error
			if !errors.As(err, &werr) || !strings.Contains(werr.Message, tt.wantErr) {
				t.Errorf("%s: CallTool error = %v, want a JSON-RPC error containing %q", tt.tool, err, tt.wantErr)
			}
		} else if err != nil {
			t.Errorf("%s: CallTool: %v", tt.tool, err)
		} else if diff := cmp.Diff(tt.want, outcome{got, isErr}); diff != "" {
			t.Errorf("%s: CallTool mismatch (-want +got):\n%s", tt.tool, diff)
		}
		// The session goes on serving.
		if got, _ := call(t, cs, "lookup", `{"query":"after `+tt.tool+`"}`); got != "docs: after "+tt.tool {
			t.Errorf("call after %s = %q", tt.tool, got)
		}
	}
}

func TestRegisterToolErrors(t *testing.T) {
	h := ToolHandler(lookup)
	tests := []struct {
		name string
		tool *mcp.Tool
		h    ToolHandler
		want error
	}{
		{"nil tool", nil, h, ErrInvalidDefinition},
		{"nil handler", lookupTool(), nil, ErrInvalidDefinition},
		{"empty name", &mcp.Tool{InputSchema: json.RawMessage(lookupSchema)}, h, ErrInvalidDefinition},
		{"bad name", &mcp.Tool{Name: "look up", InputSchema: json.RawMessage(lookupSchema)}, h, ErrInvalidDefinition},
		{"long name", &mcp.Tool{Name: strings.Repeat("a", 129), InputSchema: json.RawMessage(lookupSchema)}, h, ErrInvalidDefinition},
		{"no schema", &mcp.Tool{Name: "x"}, h, ErrInvalidDefinition},
		{"nil schema", &mcp.Tool{Name: "x", InputSchema: (*jsonschema.Schema)(nil)}, h, ErrInvalidDefinition},
		{"not object", &mcp.Tool{Name: "x", InputSchema: json.RawMessage(`{"type":"string"}`)}, h, ErrInvalidDefinition},
		{"invalid schema", &mcp.Tool{Name: "x", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`)}, h, ErrInvalidDefinition},
		{"bad default", &mcp.Tool{Name: "x", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","default":3}}}`)}, h, ErrInvalidDefinition},
		{"not JSON", &mcp.Tool{Name: "x", InputSchema: json.RawMessage(`{`)}, h, ErrInvalidDefinition},
		{"bad output schema", &mcp.Tool{Name: "x", InputSchema: json.RawMessage(lookupSchema), OutputSchema: json.RawMessage(`{"$ref":"#/$defs/missing"}`)}, h, ErrInvalidDefinition},
		{"duplicate", lookupTool(), h, ErrDuplicate},
	}
	s := newServer(t, "docs", "v1", nil)
	mustRegister(t, s, lookupTool(), h)
	for _, tt := range tests {
		if err := s.RegisterTool(tt.tool, tt.h); !errors.Is(err, tt.want) {
			t.Errorf("%s: RegisterTool error = %v, want %v", tt.name, err, tt.want)
		}
	}
	if err := s.RegisterTool(&mcp.Tool{Name: "ok.tool-1_x", InputSchema: &jsonschema.Schema{Type: "object"}}, h); err != nil {
		t.Errorf("RegisterTool with a *jsonschema.Schema: %v", err)
	}
}

func TestRemoveTools(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "docs", "v1", nil)
	mustRegister(t, s, lookupTool(), lookup)
	cs := connect(t, s)
	s.RemoveTools("lookup", "never-registered")
	if _, _, err := tryCall(cs, "lookup", `{"query":"x"}`); err == nil {
		t.Error("call to a removed tool succeeded")
	}
	mustRegister(t, s, lookupTool(), lookup) // a removed name is free again
	if got, _ := call(t, cs, "lookup", `{"query":"x"}`); got != "docs: x" {
		t.Errorf("call after re-register = %q", got)
	}
}

type lookupIn struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

type lookupOut struct {
	Hits []string `json:"hits"`
}

func TestRegisterToolFor(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "docs", "v1", nil)
	err := RegisterToolFor(s, &mcp.Tool{Name: "lookup"}, func(_ context.Context, _ *mcp.CallToolRequest, in lookupIn) (*mcp.CallToolResult, lookupOut, error) {
		if in.Query == "fail" {
			return nil, lookupOut{}, errors.New("no such page")
		}
		return nil, lookupOut{Hits: []string{in.Query + "#1", in.Query + "#2"}[:max(1, min(2, in.Limit))]}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s)

	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"query": "go", "limit": 2}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"hits":["go#1","go#2"]}`, text(res.Content)); diff != "" {
		t.Errorf("text mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"hits": []any{"go#1", "go#2"}}, res.StructuredContent); diff != "" {
		t.Errorf("structured content mismatch (-want +got):\n%s", diff)
	}
	tests := []struct {
		args string
		want outcome
	}{
		{`{"query":"fail"}`, outcome{Text: "no such page", IsError: true}},
		{`{"query":"go","limit":"two"}`, outcome{Text: `invalid input: validating root: validating /properties/limit: type: two has type "string", want "integer"`, IsError: true}},
		{`{"query":"go"}`, outcome{Text: `{"hits":["go#1"]}`}},
	}
	for _, tt := range tests {
		got, isErr := call(t, cs, "lookup", tt.args)
		if diff := cmp.Diff(tt.want, outcome{got, isErr}); diff != "" {
			t.Errorf("CallTool(%s) mismatch (-want +got):\n%s", tt.args, diff)
		}
	}

	// The inferred schemas are published.
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(lt.Tools[0].InputSchema)
	if !strings.Contains(string(b), `"query"`) || lt.Tools[0].OutputSchema == nil {
		t.Errorf("published schemas: input %s, output %v", b, lt.Tools[0].OutputSchema)
	}
}

// A typed tool whose output breaks its own output schema reports it.
func TestRegisterToolForInvalidOutput(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "docs", "v1", nil)
	tool := &mcp.Tool{Name: "t", OutputSchema: json.RawMessage(`{"type":"object","required":["x"]}`)}
	err := RegisterToolFor(s, tool, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, map[string]any, error) {
		return nil, map[string]any{"y": 1}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s)
	got, isErr := call(t, cs, "t", `{}`)
	want := outcome{Text: `invalid output: validating root: required: missing properties: ["x"]`, IsError: true}
	if diff := cmp.Diff(want, outcome{got, isErr}); diff != "" {
		t.Errorf("CallTool mismatch (-want +got):\n%s", diff)
	}
}

// TestRegisterToolForReadsWhatWasValidated: a key the schema does not
// constrain, equal to a constrained one ignoring case, does not fill the
// constrained field: the handler sees the value the schema checked.
func TestRegisterToolForReadsWhatWasValidated(t *testing.T) {
	s := newServer(t, "docs", "v1", nil)
	type in struct {
		Query string `json:"query"`
	}
	schema := json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","maxLength":3}}}`)
	var seen string
	if err := RegisterToolFor(s, &mcp.Tool{Name: "q", InputSchema: schema}, func(_ context.Context, _ *mcp.CallToolRequest, in in) (*mcp.CallToolResult, any, error) {
		seen = in.Query
		return textResult("ok"), nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s)
	if _, isErr := call(t, cs, "q", `{"query":"abc","QUERY":"far too long for the schema"}`); isErr || seen != "abc" {
		t.Errorf("the handler saw query %q (isError %v), want the validated %q", seen, isErr, "abc")
	}
}
