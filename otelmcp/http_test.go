package otelmcp_test

import (
	"net/http/httptest"
	"testing"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport/streamablehttp"
	"go.opentelemetry.io/otel/trace"
)

// TestHTTPCallSpans: over Streamable HTTP the trace crosses the HTTP hop
// in _meta; at 2025-11-25 both spans name the session, at 2026-07-28
// (no sessions) neither does.
func TestHTTPCallSpans(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		profile     client.Profile
		name        string
		wantSession bool
	}{{client.Profile20251125, "2025-11-25", true}, {client.Profile20260728, "2026-07-28", false}} {
		t.Run(tc.name, func(t *testing.T) { httpCallSpans(t, tc.profile, tc.wantSession) })
	}
}

func httpCallSpans(t *testing.T, profile client.Profile, wantSession bool) {
	opts, exp := traced(t)
	h, err := docs(t, opts).HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	f, err := streamablehttp.New(ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, f, profile, opts)
	exp.Reset()
	if _, err := c.CallTool(testkit.Context(t), "lookup", map[string]any{"query": "http"}); err != nil {
		t.Fatal(err)
	}
	var cl, sv, svParent trace.SpanContext
	var clSession, svSession string
	for _, s := range named(exp.GetSpans(), "tools/call lookup") {
		switch s.SpanKind {
		case trace.SpanKindClient:
			cl, clSession = s.SpanContext, view(s).Attrs["mcp.session.id"]
		case trace.SpanKindServer:
			sv, svParent, svSession = s.SpanContext, s.Parent, view(s).Attrs["mcp.session.id"]
		}
	}
	if !cl.IsValid() || !sv.IsValid() {
		t.Fatalf("spans: %v, want a client and a server span", names(exp.GetSpans()))
	}
	if cl.TraceID() != sv.TraceID() || svParent.SpanID() != cl.SpanID() {
		t.Errorf("server span %v with parent %v; want the client span %v's child", sv, svParent.SpanID(), cl.SpanID())
	}
	if clSession != svSession || (clSession != "") != wantSession {
		t.Errorf("mcp.session.id: client %q, server %q; want the same, set %v", clSession, svSession, wantSession)
	}
}
