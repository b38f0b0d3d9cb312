package streamablehttp_test

import (
	"net"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
)

func TestCallToolAndCloseSendsDelete(t *testing.T) {
	leakcheck.Check(t)
	r := newRig(t, rigConfig{eventStore: true})
	f := newFactory(t, r.url(), nil)
	if f.Kind() != transport.KindStreamableHTTP {
		t.Errorf("Kind() = %v", f.Kind())
	}
	cs := connect(t, f)
	res, err := callCount(t, cs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("done", text(res)); diff != "" {
		t.Errorf("result mismatch (-want +got):\n%s", diff)
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if !slices.Contains(r.seen(), http.MethodDelete+" ") {
		t.Errorf("server saw %q, want a DELETE", r.seen())
	}
}

func TestCloseClosesTheConnectionPool(t *testing.T) {
	leakcheck.Check(t)
	var open atomic.Int64
	r := newRig(t, rigConfig{eventStore: true, connState: func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			open.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}})
	cs := connect(t, newFactory(t, r.url(), nil))
	if _, err := callCount(t, cs); err != nil {
		t.Fatal(err)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	// The server keeps idle keep-alive connections open; only the client
	// closing its pool closes them.
	testkit.Poll(t, "every connection closed after Close: the client closes its pool", func() bool { return open.Load() == 0 })
}

// An idle pooled connection is not kept longer than the idle bound
// (Timeouts.IdleRead) while the session goes on, and the session goes on
// over a new one.
func TestIdlePooledConnectionsAreClosed(t *testing.T) {
	leakcheck.Check(t)
	var open, opened atomic.Int64
	r := newRig(t, rigConfig{eventStore: true, connState: func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			open.Add(1)
			opened.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}})
	opts := &streamablehttp.Options{DisableStandaloneSSE: true, Timeouts: streamablehttp.Timeouts{IdleRead: 50 * time.Millisecond}}
	cs := connect(t, newFactory(t, r.url(), opts))
	defer cs.Close()
	if _, err := callCount(t, cs); err != nil {
		t.Fatal(err)
	}
	testkit.Poll(t, "the idle pooled connection closed within the idle bound, the session open", func() bool { return open.Load() == 0 })
	before := opened.Load()
	if _, err := callCount(t, cs); err != nil {
		t.Fatalf("CallTool after the pool was pruned: %v", err)
	}
	if opened.Load() == before {
		t.Error("the call after the prune went over no new connection")
	}
	// The prune comes again: the new connection is closed in its turn.
	testkit.Poll(t, "the second idle pooled connection closed within the idle bound", func() bool { return open.Load() == 0 })
}
