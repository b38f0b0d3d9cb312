package sse_test

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/sse"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestToolCallThroughClient(t *testing.T) {
	leakcheck.Check(t)
	var auths atomic.Int64
	r := newRig(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.Header.Get("Authorization") == "Bearer tok" {
				auths.Add(1)
			}
			next.ServeHTTP(w, req)
		})
	})
	f := newFactory(t, r.url(), &sse.Options{Credentials: auth.Bearer(auth.NewToken("tok"))})
	if f.Kind() != transport.KindSSE {
		t.Errorf("Kind() = %v, want %v", f.Kind(), transport.KindSSE)
	}
	c, err := client.Connect(testkit.Context(t), client.Definition{
		Name: "rig", Profile: client.ProfileLegacy, Transport: f,
	}, nil)
	if err != nil {
		t.Fatalf("client.Connect: %v", err)
	}
	if got := c.ProtocolVersion(); got != sse.ProtocolVersion {
		t.Errorf("ProtocolVersion() = %q, want %q", got, sse.ProtocolVersion)
	}
	res, err := c.CallTool(testkit.Context(t), "count", map[string]any{})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if got := text(res); got != "done" {
		t.Errorf("CallTool text = %q, want %q", got, "done")
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if n := r.calls.Load(); n != 1 {
		t.Errorf("tool executed %d times, want 1", n)
	}
	seen := r.seen()
	if len(seen) == 0 || seen[0] != "GET " {
		t.Errorf("first request = %q, want the session GET", seen)
	}
	if n := count(seen, "POST tools/call"); n != 1 {
		t.Errorf("tools/call POSTed %d times, want 1 (requests %q)", n, seen)
	}
	if got, want := auths.Load(), int64(len(seen)); got != want {
		t.Errorf("%d of %d requests carried the credential, want all", got, want)
	}
}

func count(s []string, v string) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}

func TestProfileMismatchRefused(t *testing.T) {
	leakcheck.Check(t)
	r := newRig(t, nil)
	f := newFactory(t, r.url(), nil)
	for _, p := range []client.Profile{client.Profile20251125, client.Profile20250326, client.Profile20260728} {
		_, err := client.Connect(testkit.Context(t), client.Definition{Name: "rig", Profile: p, Transport: f}, nil)
		var ce *client.Error
		if !errors.As(err, &ce) || ce.Class != client.ClassPolicy {
			t.Errorf("client.Connect with profile %v: error = %v, want a policy *client.Error", p, err)
		}
	}
	if diff := cmp.Diff([]string(nil), r.seen()); diff != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", diff)
	}
}

func TestPinnedProtocolVersion(t *testing.T) {
	leakcheck.Check(t)
	var f transport.Factory = newFactory(t, "http://127.0.0.1:1/sse", nil)
	p, ok := f.(transport.ProtocolPinner)
	if !ok {
		t.Fatal("Factory is not a transport.ProtocolPinner")
	}
	if got := p.PinnedProtocolVersion(); got != client.ProfileLegacy.ProtocolVersion() {
		t.Errorf("PinnedProtocolVersion() = %q, want %q", got, client.ProfileLegacy.ProtocolVersion())
	}
}

func TestCloseEndsTheSession(t *testing.T) {
	leakcheck.Check(t)
	closed := make(chan struct{})
	r := newRig(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			next.ServeHTTP(w, req)
			if req.Method == http.MethodGet {
				close(closed) // the session GET returned: the server saw the stream end
			}
		})
	})
	cs := connect(t, newFactory(t, r.url(), nil))
	if _, err := callCount(t, cs); err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	testkit.Await(t, closed, "the server saw the session GET end")
	if got := slices.Index(r.seen(), "GET "); got != 0 {
		t.Errorf("session GET at %d, want 0", got)
	}
}

// TestCloseClosesTheConnections proves that Close leaves no HTTP
// connection open: the session stream's and the pooled POST connections
// are closed from the client side, before the server goes away.
func TestCloseClosesTheConnections(t *testing.T) {
	leakcheck.Check(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "rig", Version: "v0"}, nil)
	var open atomic.Int64
	srv := httptest.NewUnstartedServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil))
	srv.Config.ConnState = func(_ net.Conn, cs http.ConnState) {
		switch cs {
		case http.StateNew:
			open.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}
	srv.Start()
	defer srv.Close()

	cs := connect(t, newFactory(t, srv.URL, nil))
	if _, err := cs.ListTools(testkit.Context(t), nil); err != nil {
		t.Fatal(err)
	}
	if open.Load() < 2 {
		t.Fatalf("%d connections open, want the stream's and a POST's", open.Load())
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	// The server sees the FIN on its own.
	testkit.Poll(t, "every connection closed after Close", func() bool { return open.Load() == 0 })
}
