package cassette_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestVerifyHTTP verifies a Streamable HTTP cassette against a live HTTP
// server: the same server does not drift, one whose count tool answers
// otherwise drifts at the count results.
func TestVerifyHTTP(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "http.jsonl")
	recordHTTP(t, path, nil, nil, script...)
	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	verifyHTTP := func(rig *httpRig) error {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return cassette.Verify(ctx, c, &cassette.LiveHTTP{Endpoint: rig.url()}, nil)
	}
	same := newHTTPRig(t, nil)
	if err := verifyHTTP(same); err != nil {
		t.Fatalf("Verify against the same server: %v", err)
	}
	if got := same.calls.Load(); got != 3 {
		t.Errorf("Verify made %d tool executions, want the 3 recorded", got)
	}
	changed := newHTTPRig(t, nil)
	mcp.AddTool(changed.counter.srv, &mcp.Tool{Name: "count"}, func(ctx context.Context, req *mcp.CallToolRequest, in countIn) (*mcp.CallToolResult, any, error) {
		return text("counted " + in.Label), nil, nil
	})
	err = verifyHTTP(changed)
	var derr *cassette.DriftError
	if !errors.As(err, &derr) {
		t.Fatalf("Verify = %v, want a *DriftError", err)
	}
	if len(derr.Drifts) != 2 {
		t.Fatalf("drifts = %+v, want the two count results", derr.Drifts)
	}
	mustContain(t, "drift error", err.Error(), path, "tools/call", `"first #1"`, `"counted first"`, `"second #3"`, `"counted second"`)
}
