package otelmcp_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"
)

// callTraced connects a traced client through f, calls lookup and closes;
// it returns the answer and the trace id of the client's call span.
func callTraced(t *testing.T, f *cassette.Factory, p client.Profile) (string, trace.TraceID) {
	t.Helper()
	opts, exp := traced(t)
	c := connect(t, f, p, opts)
	res, err := c.CallTool(testkit.Context(t), "lookup", map[string]any{"query": "replay"})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("client Close: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("cassette Close: %v", err)
	}
	spans := named(exp.GetSpans(), "tools/call lookup")
	if len(spans) == 0 || spans[0].SpanKind != trace.SpanKindClient {
		t.Fatalf("client spans: %v", names(exp.GetSpans()))
	}
	return res.Content[0].(*mcp.TextContent).Text, spans[0].SpanContext.TraceID()
}

// TestTracedRecordingReplays: a session recorded traced (its requests
// carry traceparent in _meta) replays traced, with other trace ids, and
// matches: trace context is volatile in every cassette.
func TestTracedRecordingReplays(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		profile client.Profile
		name    string
	}{{client.Profile20260728, "2026-07-28"}, {client.Profile20251125, "2025-11-25"}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "traced.jsonl")
			sopts, _ := traced(t)
			var live transport.Factory = docs(t, sopts).Factory()
			rec, err := cassette.Open(path, live, &cassette.Options{Mode: cassette.ModeRecord})
			if err != nil {
				t.Fatal(err)
			}
			recText, recTrace := callTraced(t, rec, tc.profile)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(data, []byte(`"traceparent":"00-`+recTrace.String()+`-`)) {
				t.Fatalf("the recording holds no traceparent of trace %s:\n%s", recTrace, data)
			}

			rep, err := cassette.Open(path, nil, &cassette.Options{Mode: cassette.ModeReplay})
			if err != nil {
				t.Fatal(err)
			}
			repText, repTrace := callTraced(t, rep, tc.profile)
			if repTrace == recTrace {
				t.Fatalf("replay used the recorded trace id %s; the test proves nothing", repTrace)
			}
			if diff := cmp.Diff(recText, repText); diff != "" {
				t.Errorf("replayed answer mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
