package fakeserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// weather is a user-defined fake with one tool of each kind of reply.
func weather() *Catalog {
	return &Catalog{
		Name:         "weather",
		Version:      "v2.3.4",
		Instructions: "Ask about the weather.",
		Tools: []Tool{
			{
				Name:        "get_weather",
				Title:       "Weather",
				Description: "The weather in a city.",
				InputSchema: `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`,
				Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
				Reply: func(_ context.Context, c *Call) (*mcp.CallToolResult, error) {
					var in struct{ City string }
					if err := c.Decode(&in); err != nil {
						return nil, err
					}
					return text(fmt.Sprintf("sunny in %s (call %d)", in.City, c.N)), nil
				},
			},
			{Name: "fixed", Reply: Result(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "always"}}, StructuredContent: map[string]any{"n": 1}})},
			{Name: "dice", Reply: Sequence(Text("one"), Text("two"), Error("no three"))},
			{Name: "broken", Reply: Error("backend down")},
			{Name: "rpc", Reply: func(context.Context, *Call) (*mcp.CallToolResult, error) {
				return nil, &jsonrpc.Error{Code: -32001, Message: "scripted protocol error"}
			}},
			{
				Name: "confirm",
				// Asks the user, then answers: two rounds, one execution.
				Reply: func(_ context.Context, c *Call) (*mcp.CallToolResult, error) {
					res, ok := c.InputResponses["ok"].(*mcp.ElicitResult)
					if !ok {
						return &mcp.CallToolResult{
							InputRequests: mcp.InputRequestMap{"ok": &mcp.ElicitParams{Message: "sure?", RequestedSchema: emptySchema}},
							RequestState:  "asked",
						}, nil
					}
					return text(fmt.Sprintf("call %d round %d state %q: %s", c.N, c.Round, c.RequestState, res.Action)), nil
				},
			},
		},
		Resources: []Resource{
			{URI: "weather://today", Title: "Today", MIMEType: "text/plain", Text: "rain"},
			{URI: "weather://map", Name: "map", MIMEType: "image/png", Blob: []byte{0x89, 'P', 'N', 'G'}},
			{URI: "weather://dynamic", Read: func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "computed"}}}, nil
			}},
		},
		Prompts: []Prompt{{
			Name:      "forecast",
			Arguments: []*mcp.PromptArgument{{Name: "city", Required: true}, {Name: "days"}},
			Text:      "Forecast {{city}} for {{ days }} days.",
		}},
	}
}

func TestCustomCatalog(t *testing.T) {
	leakcheck.Check(t)
	cs := connect(t, newFake(t, &Options{Custom: weather()}), nil)
	ctx := context.Background()
	init := cs.InitializeResult()
	if diff := cmp.Diff([]string{"weather", "v2.3.4", "Ask about the weather."}, []string{init.ServerInfo.Name, init.ServerInfo.Version, init.Instructions}); diff != "" {
		t.Errorf("server info mismatch (-want +got):\n%s", diff)
	}
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var gw *mcp.Tool
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
		if tl.Name == "get_weather" {
			gw = tl
		}
	}
	if diff := cmp.Diff([]string{"broken", "confirm", "dice", "fixed", "get_weather", "rpc"}, names); diff != "" {
		t.Errorf("tools mismatch (-want +got):\n%s", diff)
	}
	schema, _ := json.Marshal(gw.InputSchema)
	if diff := cmp.Diff(`{"additionalProperties":false,"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}`, string(schema)); diff != "" {
		t.Errorf("input schema mismatch (-want +got):\n%s", diff)
	}
	if gw.Title != "Weather" || gw.Annotations == nil || !gw.Annotations.ReadOnlyHint {
		t.Errorf("get_weather = %+v, want its title and read-only annotation", gw)
	}
	for uri, want := range map[string]string{"weather://today": "rain", "weather://dynamic": "computed"} {
		r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || r.Contents[0].Text != want {
			t.Errorf("read %s = %v, %v; want %q", uri, r, err, want)
		}
	}
	if r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "weather://map"}); err != nil || string(r.Contents[0].Blob) != "\x89PNG" {
		t.Errorf("read weather://map = %v, %v", r, err)
	}
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "forecast", Arguments: map[string]string{"city": "Oslo", "days": "3"}})
	if err != nil || p.Messages[0].Content.(*mcp.TextContent).Text != "Forecast Oslo for 3 days." {
		t.Errorf("forecast = %v, %v", p, err)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "forecast"}); err == nil {
		t.Error("forecast without its required argument succeeded")
	}
}

func TestCustomReplies(t *testing.T) {
	leakcheck.Check(t)
	fs := newFake(t, &Options{Custom: weather()})
	cs := connect(t, fs, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept"}, nil
	}})
	tests := []struct {
		tool, args string
		want       outcome
	}{
		{"get_weather", `{"city":"Oslo"}`, outcome{Text: "sunny in Oslo (call 1)"}},
		{"get_weather", `{"city":"Rome"}`, outcome{Text: "sunny in Rome (call 2)"}},
		{"fixed", ``, outcome{Text: "always"}},
		{"fixed", ``, outcome{Text: "always"}},
		{"dice", ``, outcome{Text: "one"}},
		{"dice", ``, outcome{Text: "two"}},
		{"dice", ``, outcome{Text: "no three", IsError: true}},
		{"dice", ``, outcome{Text: "fakeserver: tool dice: call 4 is past the end of its sequence of 3 replies", IsError: true}},
		{"broken", ``, outcome{Text: "backend down", IsError: true}},
		{"confirm", ``, outcome{Text: `call 1 round 2 state "asked": accept`}},
		{"confirm", ``, outcome{Text: `call 2 round 2 state "asked": accept`}},
	}
	for _, tt := range tests {
		got := call(t, cs, tt.tool, tt.args)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %s mismatch (-want +got):\n%s", tt.tool, tt.args, diff)
		}
	}
	// Arguments that fail the input schema never reach the reply, and are
	// not counted.
	if got := call(t, cs, "get_weather", `{"town":"Rome"}`); !got.IsError || !strings.HasPrefix(got.Text, "invalid input") {
		t.Errorf("get_weather with bad arguments = %+v, want an invalid input error", got)
	}
	_, err := callTool(context.Background(), cs, "rpc", "")
	if werr, ok := errors.AsType[*jsonrpc.Error](err); !ok || werr.Code != -32001 {
		t.Errorf("rpc error = %v, want the scripted JSON-RPC error -32001", err)
	}
	want := Counts{
		Executions: map[string]int{"get_weather": 2, "fixed": 2, "dice": 4, "broken": 1, "confirm": 2, "rpc": 1},
		Rounds:     map[string]int{"get_weather": 2, "fixed": 2, "dice": 4, "broken": 1, "confirm": 4, "rpc": 1},
	}
	if diff := cmp.Diff(want, fs.Counts()); diff != "" {
		t.Errorf("Counts mismatch (-want +got):\n%s", diff)
	}
}

// A fake keeps its own call numbers: a shared catalog starts at call 1
// in every fake.
func TestCustomStateIsPerFake(t *testing.T) {
	leakcheck.Check(t)
	d := weather()
	for range 2 {
		cs := connect(t, newFake(t, &Options{Custom: d}), nil)
		if diff := cmp.Diff(outcome{Text: "one"}, call(t, cs, "dice", "")); diff != "" {
			t.Errorf("first dice mismatch (-want +got):\n%s", diff)
		}
	}
}

func TestBadCatalogs(t *testing.T) {
	ok := Tool{Name: "t", Reply: Text("x")}
	tests := []struct {
		name string
		def  Catalog
		want string
		is   error // a further cause, beside ErrBadCatalog
	}{
		{"no name", Catalog{Tools: []Tool{ok}}, "name must be", nil},
		{"bad name", Catalog{Name: "a b"}, "name must be", nil},
		{"negative page", Catalog{Name: "d", PageSize: -1}, "negative page size", nil},
		{"no reply", Catalog{Name: "d", Tools: []Tool{{Name: "t"}}}, "tool t: no Reply", nil},
		{"tool twice", Catalog{Name: "d", Tools: []Tool{ok, ok}}, "tool t: defined twice", nil},
		{"bad tool name", Catalog{Name: "d", Tools: []Tool{{Name: "a b", Reply: Text("x")}}}, `tool a b`, server.ErrInvalidDefinition},
		{"schema not an object", Catalog{Name: "d", Tools: []Tool{{Name: "t", InputSchema: `{"type":"string"}`, Reply: Text("x")}}}, "input schema", server.ErrInvalidDefinition},
		{"schema not JSON", Catalog{Name: "d", Tools: []Tool{{Name: "t", InputSchema: `{`, Reply: Text("x")}}}, "input schema", server.ErrInvalidDefinition},
		{"resource twice", Catalog{Name: "d", Resources: []Resource{{URI: "a://b"}, {URI: "a://b"}}}, "defined twice", nil},
		{"resource relative", Catalog{Name: "d", Resources: []Resource{{URI: "b"}}}, "URI must be absolute", server.ErrInvalidDefinition},
		{"resource two contents", Catalog{Name: "d", Resources: []Resource{{URI: "a://b", Text: "x", Blob: []byte("y")}}}, "at most one", nil},
		{"prompt no name", Catalog{Name: "d", Prompts: []Prompt{{Text: "x"}}}, "no name", nil},
		{"prompt twice", Catalog{Name: "d", Prompts: []Prompt{{Name: "p"}, {Name: "p"}}}, "defined twice", nil},
		{"prompt text and get", Catalog{Name: "d", Prompts: []Prompt{{Name: "p", Text: "x", Get: func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, nil }}}}, "not both", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, err := New(&Options{Custom: &tt.def})
			if fs != nil || !errors.Is(err, ErrBadCatalog) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New = %v, %v; want an ErrBadCatalog containing %q", fs, err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
			if _, ok := errors.AsType[*CatalogError](err); !ok {
				t.Errorf("error %T is not a *CatalogError", err)
			}
			if rerr := Register(&tt.def); !errors.Is(rerr, ErrBadCatalog) && !strings.Contains(tt.name, "schema") && tt.is == nil {
				t.Errorf("Register = %v, want ErrBadCatalog", rerr)
			}
		})
	}
	if _, err := New(&Options{Catalog: "docs", Custom: weather()}); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("New with Catalog and Custom both set = %v, want an error", err)
	}
}

// registrations numbers the names TestRegister registers: the registry is
// the process's, and -count runs the test again.
var registrations atomic.Int32

func TestRegister(t *testing.T) {
	d := weather()
	d.Name = fmt.Sprintf("register-test-%d", registrations.Add(1))
	if err := Register(d); err != nil {
		t.Fatal(err)
	}
	if err := Register(d); err != nil {
		t.Errorf("registering the same catalog again = %v, want nil", err)
	}
	other := weather()
	other.Name = d.Name
	if err := Register(other); !errors.Is(err, ErrBadCatalog) {
		t.Errorf("registering another catalog under the name = %v, want ErrBadCatalog", err)
	}
	if err := Register(&Catalog{Name: CatalogDocs}); !errors.Is(err, ErrBadCatalog) {
		t.Errorf("registering a built-in catalog's name = %v, want ErrBadCatalog", err)
	}
	got, ok := Registered(d.Name)
	if !ok || got != d {
		t.Errorf("Registered = %v, %v", got, ok)
	}
	fs := newFake(t, &Options{Catalog: d.Name}) // a registered catalog, by name
	if fs.Name() != d.Name {
		t.Errorf("Name() = %q", fs.Name())
	}
	if _, err := New(&Options{Catalog: "nope"}); !errors.Is(err, ErrBadCatalog) || !strings.Contains(err.Error(), d.Name) {
		t.Errorf("New(unknown catalog) = %v, want ErrBadCatalog listing the registered names", err)
	}
}

// v0.1.0's names still compile: each is an alias of its new name.
var (
	_ *Definition      = (*Catalog)(nil)
	_ *DefinitionError = (*CatalogError)(nil)
)
