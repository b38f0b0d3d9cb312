package mcptest

import (
	"testing"

	"github.com/looprig/mcp/fakeserver"
)

// Wrap serves srv, your own server under test (a go-sdk *mcp.Server or a
// *server.Server), in this process. It adds the fault script and the
// counters of a fake; see fakeserver.Wrap for what is counted and how each
// fault acts. With [Fake.Client] a test is one line from a connected
// client:
//
//	fake := mcptest.Wrap(t, srv, &mcptest.WrapOptions{Faults: []fakeserver.Fault{{Kind: fakeserver.FaultDelay, Tool: "search", Delay: time.Second}}})
//	c := fake.Client(nil)
//	… c.CallTool(ctx, "search", args) …
//	if n := fake.Counts().Executions["search"]; n != 1 { … }
//
// A bad fault, one naming a tool srv does not publish, or one that acts on
// HTTP requests (use [WrapHTTP]) fails the test.
// A session still open at cleanup fails the test. At cleanup the faults
// and counters come off srv (fakeserver.Server.Detach), so a server shared
// by several tests may be wrapped by each.
func Wrap[S fakeserver.Servable](t testing.TB, srv S, opts *WrapOptions) *Fake {
	t.Helper()
	o := orZero(opts)
	checkPath(t, "mcptest.Wrap", o.Faults, fakeserver.Path{}, "mcptest.WrapHTTP")
	return inProcess(t, wrap(t, "mcptest.Wrap", srv, o.Faults), o.Faults, o.ClientProfile)
}

// WrapHTTP is [Wrap] over Streamable HTTP on a loopback port, as [HTTP]
// serves a fake: the HTTP faults apply too, opts.Stateless serves without
// sessions, opts.Auth protects it, and opts.Transport configures the
// client side.
func WrapHTTP[S fakeserver.Servable](t testing.TB, srv S, opts *WrapHTTPOptions) *Fake {
	t.Helper()
	o := orZero(opts)
	fs := wrap(t, "mcptest.WrapHTTP", srv, o.Faults)
	return serveHTTP(t, "mcptest.WrapHTTP", fs, httpSpec{o.Faults, o.Stateless, o.Auth, o.Transport, o.ClientProfile})
}

// wrap wraps srv with faults for t, for what (the caller's name in
// failures); the faults come off srv at t's cleanup.
func wrap[S fakeserver.Servable](t testing.TB, what string, srv S, faults []fakeserver.Fault) *fakeserver.Server {
	t.Helper()
	fs, err := fakeserver.Wrap(srv, &fakeserver.WrapOptions{Faults: faults})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	t.Cleanup(fs.Detach) // registered first, run last: after the session check
	return fs
}
