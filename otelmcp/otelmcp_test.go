package otelmcp_test

import (
	"context"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/otelmcp"
	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m)) }

// traced is a tracer provider whose spans end in an in-memory exporter.
func traced(t *testing.T) (*otelmcp.Options, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	return &otelmcp.Options{TracerProvider: tp}, exp
}

// docs is a server.Server with the tool lookup (it fails for "boom") and
// a prompt, its handlers traced with opts.
func docs(t *testing.T, opts *otelmcp.Options) *server.Server {
	t.Helper()
	srv, err := server.New("docs", "v1.0.0", nil)
	if err != nil {
		t.Fatal(err)
	}
	type query struct {
		Query string `json:"query"`
	}
	err = server.RegisterToolFor(srv, &mcp.Tool{Name: "lookup", Description: "Look up the docs."},
		func(_ context.Context, _ *mcp.CallToolRequest, in query) (*mcp.CallToolResult, any, error) {
			if in.Query == "boom" {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no such topic"}}}, nil, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "docs: " + in.Query}}}, nil, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	srv.MCP().AddPrompt(&mcp.Prompt{Name: "summarize"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "summarize"}}}}, nil
	})
	srv.MCP().AddReceivingMiddleware(otelmcp.ServerMiddleware(opts))
	return srv
}

// connect connects a traced client to f.
func connect(t *testing.T, f transport.Factory, p client.Profile, opts *otelmcp.Options) *client.Client {
	t.Helper()
	def := client.Definition{Name: "docs", Profile: p, Transport: f, SendingMiddleware: []mcp.Middleware{otelmcp.ClientMiddleware(opts)}}
	c, err := client.Connect(testkit.Context(t), def, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// spanView is what a test compares of a span.
type spanView struct {
	Name   string
	Kind   trace.SpanKind
	Attrs  map[string]string
	Status codes.Code
}

func view(s tracetest.SpanStub) spanView {
	attrs := map[string]string{}
	for _, a := range s.Attributes {
		attrs[string(a.Key)] = a.Value.String()
	}
	return spanView{Name: s.Name, Kind: s.SpanKind, Attrs: attrs, Status: s.Status.Code}
}

// named returns the spans named name.
func named(spans tracetest.SpanStubs, name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// TestLiveCallSpans: a live tools/call is one trace: the caller's span,
// the client's span under it, the server's span under that, carried in
// _meta, on both revisions.
func TestLiveCallSpans(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		profile  client.Profile
		protocol string
	}{{client.Profile20260728, "2026-07-28"}, {client.Profile20251125, "2025-11-25"}} {
		t.Run(tc.protocol, func(t *testing.T) {
			opts, exp := traced(t)
			c := connect(t, docs(t, opts).Factory(), tc.profile, opts)
			exp.Reset()
			ctx, parent := opts.TracerProvider.Tracer("test").Start(testkit.Context(t), "agent step")
			if _, err := c.CallTool(ctx, "lookup", map[string]any{"query": "spans"}); err != nil {
				t.Fatal(err)
			}
			parent.End()
			spans := exp.GetSpans()
			cl, sv := named(spans, "tools/call lookup"), []tracetest.SpanStub(nil)
			if len(cl) != 2 {
				t.Fatalf("spans named tools/call lookup: %d, want 2 (client and server); all: %v", len(cl), names(spans))
			}
			if cl[0].SpanKind != trace.SpanKindClient {
				cl, sv = cl[1:], cl[:1]
			} else {
				cl, sv = cl[:1], cl[1:]
			}
			attrs := map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "lookup", "gen_ai.operation.name": "execute_tool", "mcp.protocol.version": tc.protocol}
			want := []spanView{
				{Name: "tools/call lookup", Kind: trace.SpanKindClient, Attrs: attrs},
				{Name: "tools/call lookup", Kind: trace.SpanKindServer, Attrs: attrs},
			}
			if diff := cmp.Diff(want, []spanView{view(cl[0]), view(sv[0])}); diff != "" {
				t.Errorf("spans mismatch (-want +got):\n%s", diff)
			}
			pc := parent.SpanContext()
			if got := cl[0].Parent.SpanID(); got != pc.SpanID() || cl[0].SpanContext.TraceID() != pc.TraceID() {
				t.Errorf("client span's parent = %v, want the caller's span %v", got, pc.SpanID())
			}
			if got := sv[0].Parent; got.SpanID() != cl[0].SpanContext.SpanID() || !got.IsRemote() || sv[0].SpanContext.TraceID() != pc.TraceID() {
				t.Errorf("server span's parent = %v (remote %v), want the client span %v, remote", got.SpanID(), got.IsRemote(), cl[0].SpanContext.SpanID())
			}
		})
	}
}

func names(spans tracetest.SpanStubs) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.SpanKind.String()+" "+s.Name)
	}
	return out
}

// TestFailedCallSpans: a tool result with isError and a JSON-RPC error are
// errors on both sides' spans, with error.type.
func TestFailedCallSpans(t *testing.T) {
	leakcheck.Check(t)
	opts, exp := traced(t)
	c := connect(t, docs(t, opts).Factory(), client.Profile20251125, opts)
	exp.Reset()
	ctx := testkit.Context(t)
	if res, err := c.CallTool(ctx, "lookup", map[string]any{"query": "boom"}); err == nil && (res == nil || !res.IsError) {
		t.Fatalf("CallTool boom = %v, %v; want an isError result", res, err)
	}
	if _, err := c.GetPrompt(ctx, "missing", nil); err == nil {
		t.Fatal("GetPrompt of a missing prompt succeeded")
	}
	got := map[string][]string{}
	for _, s := range exp.GetSpans() {
		v := view(s)
		got[v.Name] = append(got[v.Name], v.Kind.String()+" "+v.Status.String()+" "+v.Attrs["error.type"])
	}
	want := map[string][]string{
		"tools/call lookup":   {"server Error tool_error", "client Error tool_error"},
		"prompts/get missing": {"server Error -32602", "client Error -32602"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("failed spans mismatch (-want +got):\n%s", diff)
	}
}

// TestNoParamsNoContext: a ping, which has no params, gets spans on both
// sides and carries no context; nothing panics.
func TestNoParamsNoContext(t *testing.T) {
	leakcheck.Check(t)
	opts, exp := traced(t)
	cl := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v1"}, nil)
	cl.AddSendingMiddleware(otelmcp.ClientMiddleware(opts))
	cs, err := cl.Connect(testkit.Context(t), mustTransport(t, docs(t, opts)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	exp.Reset()
	if err := cs.Ping(testkit.Context(t), nil); err != nil {
		t.Fatal(err)
	}
	spans := named(exp.GetSpans(), "ping")
	if len(spans) != 2 {
		t.Fatalf("ping spans: %v, want a client and a server span", names(exp.GetSpans()))
	}
	for _, s := range spans {
		if s.Parent.IsValid() {
			t.Errorf("%s ping span has parent %v, want none: a ping carries no context", s.SpanKind, s.Parent.SpanID())
		}
	}
}

func mustTransport(t *testing.T, srv *server.Server) mcp.Transport {
	t.Helper()
	tr, err := srv.Factory().Transport()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestCallerMetaNotChanged: the client copies the caller's _meta before it
// adds trace context.
func TestCallerMetaNotChanged(t *testing.T) {
	leakcheck.Check(t)
	opts, _ := traced(t)
	cl := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v1"}, nil)
	cl.AddSendingMiddleware(otelmcp.ClientMiddleware(opts))
	cs, err := cl.Connect(testkit.Context(t), mustTransport(t, docs(t, opts)), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	meta := map[string]any{"mine": "x"}
	p := &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"query": "q"}}
	p.SetMeta(meta)
	if _, err := cs.CallTool(testkit.Context(t), p); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"mine": "x"}, meta); diff != "" {
		t.Errorf("caller's _meta changed (-want +got):\n%s", diff)
	}
	if _, ok := p.GetMeta()["traceparent"]; !ok {
		t.Errorf("sent _meta %v has no traceparent", p.GetMeta())
	}
}
