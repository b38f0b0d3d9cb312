package otelmcp_test

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
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

// firstTrace is the name a recording gives the first trace id it holds.
const firstTrace = "00000000000000000000000000000001"

// TestTracedRecordingReplays: a session recorded traced (its requests
// carry traceparent in _meta) is written with its trace ids renamed, and
// replays traced, with other trace ids, and matches: trace context is
// volatile in every cassette.
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
			if bytes.Contains(data, []byte(recTrace.String())) || !bytes.Contains(data, []byte(`"traceparent":"00-`+firstTrace+`-`)) {
				t.Fatalf("the recording holds trace %s, or no traceparent of the renamed trace %s:\n%s", recTrace, firstTrace, data)
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

// TestTracedRerecordSameBytes: a traced session recorded five times, each
// time with other trace and span ids, gives one file's bytes, in process
// and over Streamable HTTP, at both revisions. Without the renaming of
// trace context every recording differs.
func TestTracedRerecordSameBytes(t *testing.T) {
	leakcheck.Check(t)
	const runs = 5
	for _, tc := range []struct {
		profile client.Profile
		name    string
	}{{client.Profile20260728, "2026-07-28"}, {client.Profile20251125, "2025-11-25"}} {
		for _, tr := range []string{"inprocess", "http"} {
			t.Run(tc.name+"/"+tr, func(t *testing.T) {
				files := map[string]int{}
				for i := range runs {
					path := filepath.Join(t.TempDir(), "traced.jsonl")
					sopts, _ := traced(t)
					live := tracedLive(t, docs(t, sopts), tr)
					rec, err := cassette.Open(path, live, &cassette.Options{Mode: cassette.ModeRecord})
					if err != nil {
						t.Fatal(err)
					}
					callTraced(t, rec, tc.profile)
					data, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					files[string(data)]++
					if i == 0 && !bytes.Contains(data, []byte(firstTrace)) {
						t.Errorf("the recording holds no renamed trace id:\n%s", data)
					}
				}
				if len(files) != 1 {
					t.Errorf("%d recordings gave %d distinct files, want 1", runs, len(files))
				}
			})
		}
	}
}

// tracedLive returns a factory for srv: in process, or over Streamable
// HTTP from a test server.
func tracedLive(t *testing.T, srv *server.Server, tr string) transport.Factory {
	t.Helper()
	if tr == "inprocess" {
		return srv.Factory()
	}
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	f, err := streamablehttp.New(ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
