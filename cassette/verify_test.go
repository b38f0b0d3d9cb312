package cassette_test

import (
	"context"
	"errors"
	"testing"
	"time"

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
	mustContain(t, "drift error", err.Error(), path, "line 6: tools/call", "(-recorded +live)", `-`, `"first #1"`, `+`, `"counted first"`)
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
	mustContain(t, "drift error", err.Error(), "line 8: roots/list: the live server did not send this request")
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
