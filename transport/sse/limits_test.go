package sse_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/sse"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestOversizeEventEndsTheSession(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limits sse.Limits
		want   *transport.LimitError
	}{
		{"event", sse.Limits{MaxEventBytes: 64 << 10}, &transport.LimitError{Transport: "sse", What: "sse event", Limit: 64 << 10}},
		{"stream", sse.Limits{MaxStreamBytes: 64 << 10}, &transport.LimitError{Transport: "sse", What: "stream", Limit: 64 << 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			r := newRig(t, nil)
			cs := connect(t, newFactory(t, r.url(), &sse.Options{Limits: tc.limits}))
			_, err := cs.CallTool(testkit.Context(t), &mcp.CallToolParams{Name: "big", Arguments: bigArgs{N: 1 << 20}})
			var le *transport.LimitError
			if !errors.As(err, &le) || !errors.Is(err, transport.ErrLimit) {
				t.Fatalf("CallTool error = %v, want a *LimitError", err)
			}
			if diff := cmp.Diff(tc.want, le); diff != "" {
				t.Errorf("LimitError mismatch (-want +got):\n%s", diff)
			}
			// The session stream is gone, and with it the session: nothing
			// more is POSTed.
			before := len(r.seen())
			if _, err := callCount(t, cs); err == nil || errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("CallTool after the limit = %v, want it refused at once", err)
			}
			if got := r.seen()[before:]; len(got) != 0 {
				t.Errorf("requests after the limit: %q, want none", got)
			}
		})
	}
}

func TestOversizeEventIsAPolicyFailure(t *testing.T) {
	leakcheck.Check(t)
	r := newRig(t, nil)
	c, err := client.Connect(testkit.Context(t), client.Definition{
		Name: "rig", Profile: client.ProfileLegacy,
		Transport: newFactory(t, r.url(), &sse.Options{Limits: sse.Limits{MaxEventBytes: 64 << 10}}),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.CallTool(testkit.Context(t), "big", bigArgs{N: 1 << 20})
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Class != client.ClassPolicy || !errors.Is(err, transport.ErrLimit) {
		t.Errorf("CallTool error = %v, want a policy failure wrapping ErrLimit", err)
	}
}
