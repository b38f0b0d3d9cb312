package cassette_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func verify(t *testing.T, path string, srv *mcp.Server, opts *cassette.Options) error {
	t.Helper()
	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return cassette.Verify(ctx, c, inprocess.New(srv), opts)
}

func TestVerifyNoDrift(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "verify.jsonl")
	record(t, path, nil, script...)
	srv := newCounter()
	if err := verify(t, path, srv.srv, nil); err != nil {
		t.Fatalf("Verify against the same server: %v", err)
	}
	if got := srv.calls.Load(); got != 3 {
		t.Errorf("Verify made %d tool executions, want the 3 recorded", got)
	}
}

func TestVerifyReportsDrift(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "verify.jsonl")
	record(t, path, nil, script...)

	// The same server, but its count tool now answers differently.
	changed := newCounter()
	mcp.AddTool(changed.srv, &mcp.Tool{Name: "count"}, func(ctx context.Context, req *mcp.CallToolRequest, in countIn) (*mcp.CallToolResult, any, error) {
		return text("counted " + in.Label), nil, nil
	})
	err := verify(t, path, changed.srv, nil)
	var derr *cassette.DriftError
	if !errors.As(err, &derr) {
		t.Fatalf("Verify = %v, want a *DriftError", err)
	}
	if len(derr.Drifts) != 2 || derr.Drifts[0].Line != 6 || derr.Drifts[1].Line != 16 {
		t.Fatalf("drifts = %+v, want lines 6 and 16 (the two count results)", derr.Drifts)
	}
	mustContain(t, "drift error", err.Error(), path, "line 6: tools/call", "(-recorded +live)", `-`, `"first #1"`, `+`, `"counted first"`)

	// Ignoring the drifting value makes it pass.
	if err := verify(t, path, changed.srv, &cassette.Options{IgnorePaths: []string{"result.content"}}); err != nil {
		t.Errorf("Verify ignoring result.content: %v", err)
	}
}

func TestVerifyServerStopsAsking(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "verify.jsonl")
	record(t, path, nil, script...)
	changed := newCounter()
	mcp.AddTool(changed.srv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		return text("no questions"), nil, nil
	})
	err := verify(t, path, changed.srv, nil)
	var derr *cassette.DriftError
	if !errors.As(err, &derr) {
		t.Fatalf("Verify = %v, want a *DriftError", err)
	}
	mustContain(t, "drift error", err.Error(), "line 8: roots/list: the live server did not send this request")
}
