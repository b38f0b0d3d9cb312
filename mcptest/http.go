package mcptest

import (
	"testing"

	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// HTTP starts a fake server in this process, served over Streamable HTTP on
// a loopback port (fakeserver.Server.StartHTTP: event store on, sessions
// fake-1, fake-2, …, HTTP faults such as drop, redirect or gone), with its
// second listener, the other origin. Its Definition connects through
// transport/streamablehttp with opts.HTTP. [Fake.HTTP] gives the log of
// what the fake saw (DELETEs, a resuming GET's Last-Event-ID, …) and what
// reached the other origin.
//
// At cleanup, a session still open (a client not closed, or closed without
// its DELETE) fails the test; then the listeners are closed.
func HTTP(t testing.TB, opts *FakeOptions) *Fake {
	t.Helper()
	o := fakeOptions(opts)
	var srv *fakeserver.Server
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("mcptest.HTTP: %v", r)
			}
		}()
		srv = fakeserver.New(&fakeserver.Options{Profile: o.Profile, Faults: o.Faults})
	}()
	hs, err := srv.StartHTTP("", nil)
	if err != nil {
		t.Fatalf("mcptest.HTTP: %v", err)
	}
	f, err := streamablehttp.New(hs.URL, o.HTTP)
	if err != nil {
		hs.Close()
		t.Fatalf("mcptest.HTTP: %v", err)
	}
	fake := &Fake{t: t, profile: srv.Profile(), faults: o.Faults, factory: f, srv: srv, http: hs}
	t.Cleanup(func() {
		if n := waitSessions(srv, GroupTimeout); n > 0 {
			t.Errorf("mcptest: fake server %q over HTTP still has %d open session(s) at cleanup: close its clients", fake.profile, n)
		}
		if err := hs.Close(); err != nil {
			t.Errorf("mcptest: closing the fake server over HTTP: %v", err)
		}
	})
	return fake
}

// HTTP returns the listening fake server of a Fake started by [HTTP] (its
// URL, request log and other origin), or nil for another kind.
func (f *Fake) HTTP() *fakeserver.HTTPServer { return f.http }
