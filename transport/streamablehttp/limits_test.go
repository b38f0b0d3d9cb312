package streamablehttp_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func callBig(t testing.TB, cs *mcp.ClientSession, n int) (*mcp.CallToolResult, error) {
	t.Helper()
	return cs.CallTool(testkit.Context(t), &mcp.CallToolParams{Name: "big", Arguments: map[string]any{"n": n}})
}

func TestOversizeResponseFailsAtLimit(t *testing.T) {
	const limit = 64 << 10
	for _, tc := range []struct {
		name   string
		json   bool
		limits streamablehttp.Limits
		what   string
	}{
		{"sse event", false, streamablehttp.Limits{MaxEventBytes: limit}, "sse event over 65536 bytes"},
		{"sse stream", false, streamablehttp.Limits{MaxStreamBytes: limit}, "stream over 65536 bytes"},
		{"json body", true, streamablehttp.Limits{MaxJSONBytes: limit}, "json body over 65536 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			r := newRig(t, rigConfig{jsonResponse: tc.json})
			cs := connect(t, newFactory(t, r.url(), &streamablehttp.Options{Limits: tc.limits, DisableStandaloneSSE: true}))

			// Just under the limit (the JSON around the text takes the rest)
			// passes; over it fails with the limit error.
			if res, err := callBig(t, cs, limit-1024); err != nil || len(text(res)) != limit-1024 {
				t.Fatalf("call under the limit: %d bytes, %v", len(text(res)), err)
			}
			_, err := callBig(t, cs, limit+1)
			if !errors.Is(err, transport.ErrLimit) {
				t.Fatalf("call over the limit: error = %v, want ErrLimit", err)
			}
			if !strings.Contains(err.Error(), tc.what) {
				t.Errorf("error %q does not say %q", err, tc.what)
			}
			// The session survives.
			if _, err := callCount(t, cs); err != nil {
				t.Fatalf("next CallTool: %v", err)
			}
		})
	}
}

func TestEndlessResponseMemoryStaysNearLimit(t *testing.T) {
	const limit = 256 << 10
	for _, tc := range []struct {
		name        string
		contentType string
		prefix      string
		limits      streamablehttp.Limits
	}{
		{"sse event", "text/event-stream", "event: message\ndata: ", streamablehttp.Limits{MaxEventBytes: limit}},
		{"json body", "application/json", `{"jsonrpc":"2.0","id":2,"result":"`, streamablehttp.Limits{MaxJSONBytes: limit}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			r := newRig(t, rigConfig{middleware: endless(tc.contentType, tc.prefix)})
			cs := connect(t, newFactory(t, r.url(), &streamablehttp.Options{Limits: tc.limits, DisableStandaloneSSE: true}))

			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := callCount(t, cs)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, transport.ErrLimit) {
				t.Fatalf("CallTool error = %v, want ErrLimit", err)
			}
			// Everything the process allocated during the call — client and
			// server — stays within a small multiple of the limit, though
			// the server would have sent without end.
			if got := after.TotalAlloc - before.TotalAlloc; got > 8*limit {
				t.Errorf("allocated %d bytes during the call, want at most %d", got, 8*limit)
			}
		})
	}
}

func TestConcurrentStreamsLimit(t *testing.T) {
	leakcheck.Check(t)
	r := newRig(t, rigConfig{})
	cs := connect(t, newFactory(t, r.url(), &streamablehttp.Options{
		Limits:               streamablehttp.Limits{MaxConcurrentStreams: 1},
		DisableStandaloneSSE: true,
	}))
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(testkit.Context(t), &mcp.CallToolParams{Name: "block"})
		done <- err
	}()
	<-r.entered // the first call's stream holds the only slot

	// The second call waits for the slot until its context ends, and is
	// then not sent. (The go-sdk reports the context's error; the
	// transport's LimitError is not surfaced.)
	posts := len(r.seen())
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("second call: error = %v, want context.DeadlineExceeded", err)
	}
	if got := r.seen()[posts:]; len(got) != 0 {
		t.Errorf("server saw %q while the slot was busy, want nothing", got)
	}
	if n := r.calls.Load(); n != 0 {
		t.Errorf("refused call executed %d times, want 0", n)
	}
	close(r.release)
	if err := <-done; err != nil {
		t.Fatalf("first call: %v", err)
	}
	// A call made when the slot is busy now waits for it instead.
	if _, err := callCount(t, cs); err != nil {
		t.Fatalf("call after the slot was freed: %v", err)
	}
}
