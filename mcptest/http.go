package mcptest

import (
	"github.com/looprig/mcp/mcptest/internal/testmain"
	"net/http"
	"testing"

	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// HTTP starts a fake server in this process, served over Streamable HTTP on
// a loopback port, with its second listener, the other origin. It serves
// as fakeserver.Server.StartHTTP does: event store on, sessions fake-1,
// fake-2, …, HTTP faults such as drop, redirect or gone. With
// opts.Stateless it serves statelessly. Its Definition connects through transport/streamablehttp with
// opts.Transport. [Fake.HTTP] gives the log of what the fake saw (DELETEs,
// a resuming GET's Last-Event-ID, …) and what reached the other origin.
//
// At cleanup, a session still open (a client not closed, or closed without
// its DELETE) fails the test; then the listeners are closed.
func HTTP(t testing.TB, opts *HTTPOptions) *Fake {
	t.Helper()
	o := orZero(opts)
	srv, err := catalogSpec{o.Catalog, o.Custom, o.Faults, o.Revision}.server()
	if err != nil {
		t.Fatalf("mcptest.HTTP: %v", err)
	}
	return serveHTTP(t, "mcptest.HTTP", srv, httpSpec{o.Faults, o.Stateless, o.Auth, o.Transport, o.ClientProfile})
}

// serveHTTP serves srv over HTTP for a test.
func serveHTTP(t testing.TB, what string, srv *fakeserver.Server, o httpSpec) *Fake {
	t.Helper()
	ho := &fakeserver.HTTPOptions{Stateless: o.stateless}
	if p := o.auth; p != nil {
		// Check the configuration now, so a bad one fails here, not per request.
		if _, err := p.Protect(http.NotFoundHandler()); err != nil {
			t.Fatalf("%s: Auth: %v", what, err)
		}
		ho.Wrap = func(next http.Handler) http.Handler {
			h, _ := p.Protect(next) // checked above
			return h
		}
	}
	hs, err := srv.StartHTTP("", ho)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	f, err := streamablehttp.New(hs.URL, o.transport)
	if err != nil {
		hs.Close()
		t.Fatalf("%s: %v", what, err)
	}
	// The client's connections are not wrapped: the go-sdk hands a
	// Streamable HTTP connection the session's state through methods a
	// wrapper cannot pass on.
	fake := &Fake{t: t, name: srv.Name(), profile: o.clientProfile, faults: o.faults, factory: f, srv: srv, http: hs}
	t.Cleanup(func() {
		srv.Close() // releases hung calls, whose sessions wait for them
		if n := waitSessions(srv, nil, testmain.GroupTimeout); n > 0 {
			t.Errorf("mcptest: fake server %q over HTTP still has %d open session(s) at cleanup: close its clients", fake.name, n)
		}
		if err := hs.Close(); err != nil {
			t.Errorf("mcptest: closing the fake server over HTTP: %v", err)
		}
	})
	return fake
}

// HTTP returns the listening fake server of a Fake served over HTTP (its
// URL, request log and other origin), or nil for another kind.
func (f *Fake) HTTP() *fakeserver.HTTPServer { return f.http }
