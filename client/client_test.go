package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestConnectDiscovers(t *testing.T) {
	leakcheck.Check(t)
	c := connect(t, docsServer(&counter{}), client.Definition{}, nil)
	cat := c.Catalog()
	var got []string
	for _, tl := range cat.Tools {
		got = append(got, "tool:"+tl.Name)
	}
	for _, r := range cat.Resources {
		got = append(got, "resource:"+r.URI)
	}
	for _, p := range cat.Prompts {
		got = append(got, "prompt:"+p.Name)
	}
	want := []string{"tool:lookup", "resource:docs://readme", "prompt:summarize"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Catalog() mismatch (-want +got):\n%s", diff)
	}
	if v := c.ProtocolVersion(); v != "2026-07-28" {
		t.Errorf("ProtocolVersion() = %q, want 2026-07-28 (the default profile's offer)", v)
	}
}

func TestCallToolExecutesOnce(t *testing.T) {
	leakcheck.Check(t)
	n := &counter{}
	c := connect(t, docsServer(n), client.Definition{}, nil)
	for i := 1; i <= 3; i++ {
		res, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "x"})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Content[0].(*mcp.TextContent).Text; got != "docs: x" {
			t.Errorf("result = %q", got)
		}
		if got := n.get("lookup"); got != i {
			t.Fatalf("after %d calls the tool ran %d times", i, got)
		}
	}
}

func TestResourcesAndPrompts(t *testing.T) {
	leakcheck.Check(t)
	c := connect(t, docsServer(&counter{}), client.Definition{}, nil)
	ctx := context.Background()
	rr, err := c.ReadResource(ctx, "docs://readme")
	if err != nil || rr.Contents[0].Text != "hello" {
		t.Errorf("ReadResource = %v, %v", rr, err)
	}
	pr, err := c.GetPrompt(ctx, "summarize", nil)
	if err != nil || len(pr.Messages) != 1 {
		t.Errorf("GetPrompt = %v, %v", pr, err)
	}
}

func TestUnknownToolIsRefusedLocally(t *testing.T) {
	leakcheck.Check(t)
	n := &counter{}
	c := connect(t, docsServer(n), client.Definition{}, nil)
	_, err := c.CallTool(context.Background(), "nope", nil)
	assertClass(t, err, client.ClassPolicy, client.ErrUnknownTool)
	_, err = c.CallModel(context.Background(), "mcp__docs__nope", nil)
	assertClass(t, err, client.ClassPolicy, client.ErrUnknownTool)
}

func TestDisabledBindingRefusesCalls(t *testing.T) {
	leakcheck.Check(t)
	n := &counter{}
	c := connect(t, docsServer(n), client.Definition{}, nil)
	if err := c.SetEnabled("mcp__docs__lookup", false); err != nil {
		t.Fatal(err)
	}
	want := []client.Binding{{Server: "docs", Tool: "lookup", ModelName: "mcp__docs__lookup", Enabled: false}}
	if diff := cmp.Diff(want, c.Bindings()); diff != "" {
		t.Errorf("Bindings() mismatch (-want +got):\n%s", diff)
	}
	_, err := c.CallModel(context.Background(), "mcp__docs__lookup", map[string]any{"query": "x"})
	assertClass(t, err, client.ClassPolicy, &client.ReasonError{Reason: client.ReasonDisabled})
	assertClass(t, err, client.ClassPolicy, client.ErrUnknownTool) // the sentinel it folded into
	if got := n.get("lookup"); got != 0 {
		t.Errorf("disabled tool ran %d times, want 0", got)
	}
	if err := c.SetEnabled("lookup", true); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallModel(context.Background(), "mcp__docs__lookup", map[string]any{"query": "x"}); err != nil {
		t.Errorf("re-enabled call: %v", err)
	}
}

func TestDefinitionDisabled(t *testing.T) {
	leakcheck.Check(t)
	c := connect(t, docsServer(&counter{}), client.Definition{Disabled: []string{"lookup"}}, nil)
	b, ok := c.Binding("lookup")
	if !ok || b.Enabled {
		t.Errorf("Binding(lookup) = %+v, %v; want disabled", b, ok)
	}
}

func TestToolErrorIsClassified(t *testing.T) {
	leakcheck.Check(t)
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "fail"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("boom")
	})
	c := connect(t, srv, client.Definition{Name: "s"}, nil)
	res, err := c.CallTool(context.Background(), "fail", map[string]any{})
	assertClass(t, err, client.ClassTool, nil)
	var te *client.ToolError
	if !errors.As(err, &te) || te.Text != "boom" {
		t.Errorf("error = %v, want a ToolError with text boom", err)
	}
	if res == nil || !res.IsError {
		t.Errorf("result = %v, want the IsError result too", res)
	}
}

func TestConnectValidates(t *testing.T) {
	leakcheck.Check(t)
	for name, def := range map[string]client.Definition{
		"no name":      {Transport: inprocess.New(docsServer(&counter{}))},
		"no transport": {Name: "docs"},
		"bad profile":  {Name: "docs", Profile: client.Profile(99), Transport: inprocess.New(docsServer(&counter{}))},
		"nil middleware": {Name: "docs", Transport: inprocess.New(docsServer(&counter{})),
			SendingMiddleware: []mcp.Middleware{nil}},
	} {
		_, err := client.Connect(context.Background(), def, nil)
		assertClass(t, err, client.ClassPolicy, nil)
		_ = name
	}
}

func TestCallAfterCloseIsClosed(t *testing.T) {
	leakcheck.Check(t)
	c, err := client.Connect(context.Background(), client.Definition{Name: "docs", Transport: inprocess.New(docsServer(&counter{}))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	_, err = c.CallTool(context.Background(), "lookup", map[string]any{"query": "x"})
	assertClass(t, err, client.ClassClosed, client.ErrClosed)
}

// assertClass checks that err is a *client.Error of the class, wrapping
// target when it is not nil.
func assertClass(t *testing.T, err error, class client.FailureClass, target error) {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *client.Error", err, err)
	}
	if e.Class != class {
		t.Errorf("error %q has class %s, want %s", err, e.Class, class)
	}
	if target != nil && !errors.Is(err, target) {
		t.Errorf("error %q does not wrap %v", err, target)
	}
}
