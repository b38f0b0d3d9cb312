package cassette_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func verify(t *testing.T, path string, live transport.Factory, opts *cassette.Options) error {
	t.Helper()
	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return cassette.Verify(ctx, c, live, opts)
}

func TestVerifyNoDrift(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "verify.jsonl")
	recordCounter(t, path, script...)
	srv := newCounter()
	if err := verify(t, path, inprocess.New(srv.srv), nil); err != nil {
		t.Fatalf("Verify against the same server: %v", err)
	}
	if got := srv.calls.Load(); got != 3 {
		t.Errorf("Verify made %d tool executions, want the 3 recorded", got)
	}
}

// drifting is the counter whose count tool now answers differently.
func drifting() *counter {
	c := newCounter()
	mcp.AddTool(c.srv, &mcp.Tool{Name: "count"}, func(ctx context.Context, req *mcp.CallToolRequest, in countIn) (*mcp.CallToolResult, any, error) {
		return text("counted " + in.Label), nil, nil
	})
	return c
}

func TestVerifyReportsDrift(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "verify.jsonl")
	recordCounter(t, path, script...)
	err := verify(t, path, inprocess.New(drifting().srv), nil)
	var derr *cassette.DriftError
	if !errors.As(err, &derr) {
		t.Fatalf("Verify = %v, want a *DriftError", err)
	}
	if len(derr.Drifts) != 2 || derr.Drifts[0].Line != 6 || derr.Drifts[1].Line != 16 {
		t.Fatalf("drifts = %+v, want lines 6 and 16 (the two count results)", derr.Drifts)
	}
	for _, d := range derr.Drifts {
		if d.Kind != cassette.DriftResult || d.Reason != "answered differently" || d.Severity != cassette.SeverityMinor {
			t.Errorf("drift %+v, want a result drift", d)
		}
		// NewLine is the live answer's line in the live session's cassette.
		if d.NewLine < 2 || d.NewLine-2 >= len(derr.Live.Interactions) || !strings.Contains(string(derr.Live.Interactions[d.NewLine-2].Message), `"counted `) {
			t.Errorf("drift %+v does not point at the live answer in DriftError.Live", d)
		}
	}
	mustContain(t, "drift error", err.Error(), path, "result drift:", `[minor] tools/call count {"label":"first"}: answered differently: values changed, same shape (recorded line 6, live line`,
		"--- recorded\n", "+++ live\n", `-        "text": "first #1",`, `+        "text": "counted first",`)
	// Ignoring the drifting value makes it pass.
	if err := verify(t, path, inprocess.New(drifting().srv), &cassette.Options{IgnorePaths: []string{"result.content"}}); err != nil {
		t.Errorf("Verify ignoring result.content: %v", err)
	}
}

func TestVerifyServerStopsAsking(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "verify.jsonl")
	recordCounter(t, path, script...)
	changed := newCounter()
	mcp.AddTool(changed.srv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		return text("no questions"), nil, nil
	})
	err := verify(t, path, inprocess.New(changed.srv), nil)
	var derr *cassette.DriftError
	if !errors.As(err, &derr) {
		t.Fatalf("Verify = %v, want a *DriftError", err)
	}
	mustContain(t, "drift error", err.Error(), "(server asks) roots/list: not called in live (recorded line 8)",
		"(server asks) elicitation/create", `tools/call ask: answered differently`)
}

func TestVerifyHTTP(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "http.jsonl")
	s := newHTTPServer(t, statefulCounter(), false, nil)
	record(t, path, httpLive(t, s.url(), nil), nil, rev2025, script...)
	same := statefulCounter()
	if err := verify(t, path, httpLive(t, newHTTPServer(t, same, false, nil).url(), nil), nil); err != nil {
		t.Fatalf("Verify against the same server: %v", err)
	}
	if got := same.calls.Load(); got != 3 {
		t.Errorf("Verify made %d tool executions, want the 3 recorded", got)
	}
	err := verify(t, path, httpLive(t, newHTTPServer(t, drifting(), false, nil).url(), nil), nil)
	var derr *cassette.DriftError
	if !errors.As(err, &derr) || len(derr.Drifts) != 2 {
		t.Fatalf("Verify = %v, want a *DriftError with the two count results", err)
	}
	mustContain(t, "drift error", err.Error(), path, "tools/call", `"first #1"`, `"counted first"`, `"second #3"`, `"counted second"`)
}

// TestVerifyAcrossTransports: a cassette is verified by its messages, so an
// in-process recording verifies against the same server over HTTP, and an
// HTTP recording against it in-process, with the same drifts.
func TestVerifyAcrossTransports(t *testing.T) {
	leakcheck.Check(t)
	inproc := tempPath(t, "inprocess.jsonl")
	recordCounter(t, inproc, script...)
	overHTTP := tempPath(t, "http.jsonl")
	record(t, overHTTP, httpLive(t, newHTTPServer(t, statefulCounter(), false, nil).url(), nil), nil, rev2025, script...)

	if err := verify(t, inproc, httpLive(t, newHTTPServer(t, statefulCounter(), false, nil).url(), nil), nil); err != nil {
		t.Errorf("in-process cassette against the server over HTTP: %v", err)
	}
	if err := verify(t, overHTTP, inprocess.New(newCounter().srv), nil); err != nil {
		t.Errorf("HTTP cassette against the server in-process: %v", err)
	}
	subjects := func(err error) []string {
		var derr *cassette.DriftError
		if !errors.As(err, &derr) {
			t.Fatalf("Verify = %v, want a *DriftError", err)
		}
		var out []string
		for _, d := range derr.Drifts {
			out = append(out, d.Kind+" "+d.Subject+": "+d.Reason+"\n"+d.Diff)
		}
		return out
	}
	a := subjects(verify(t, inproc, httpLive(t, newHTTPServer(t, drifting(), false, nil).url(), nil), nil))
	b := subjects(verify(t, overHTTP, inprocess.New(drifting().srv), nil))
	if diff := cmp.Diff(a, b); diff != "" || len(a) != 2 {
		t.Errorf("drifts differ across transports (-in-process cassette +HTTP cassette):\n%s", diff)
	}
}

// TestVerifyDeadUpstreamNamesTheFirstRequest: against a server that is not
// there (its port closed), Verify fails at the first recorded request,
// naming its line, not at a later line after passing over the failure.
func TestVerifyDeadUpstreamNamesTheFirstRequest(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "http.jsonl")
	s := newHTTPServer(t, statefulCounter(), false, nil)
	record(t, path, httpLive(t, s.url(), nil), nil, rev2025, script...)
	dead := newHTTPServer(t, statefulCounter(), false, nil)
	url := dead.url()
	dead.Close()
	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	first := 0
	for _, m := range c.Messages() {
		if m.From == cassette.FromClient {
			first = m.Line
			break
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = cassette.Verify(ctx, c, httpLive(t, url, nil), nil)
	want := fmt.Sprintf("verify %s:%d: ", path, first)
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "initialize") {
		t.Fatalf("Verify against a dead server = %v\nwant an error at %q, sending initialize", err, want)
	}
}
