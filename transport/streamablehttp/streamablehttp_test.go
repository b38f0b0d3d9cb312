package streamablehttp_test

import (
	"net"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
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
