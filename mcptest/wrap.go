package mcptest

import (
	"testing"

	"github.com/looprig/mcp/fakeserver"
)

// Wrap serves srv, your own server under test (a go-sdk *mcp.Server or a
// *server.Server), in this process with the fault script and the counters
// of a fake (see fakeserver.Wrap for what is counted and how each fault
// acts). With [Fake.Client] a test is one line from a connected client:
//
//	fake := mcptest.Wrap(t, srv, &mcptest.FakeOptions{Faults: []fakeserver.Fault{{Kind: fakeserver.FaultDelay, Tool: "search", Delay: time.Second}}})
//	c := fake.Client(nil)
//	… c.CallTool(ctx, "search", args) …
//	if n := fake.Executions("search"); n != 1 { … }
//
// Only opts.Faults applies (Profile, Definition and Stdio are a fake's);
// a bad fault, one naming a tool srv does not publish, or one that acts on
// HTTP requests (use [WrapHTTP]) fails the test.
// A session still open at cleanup fails the test. At cleanup the faults
// and counters come off srv (fakeserver.Server.Detach), so a server shared
// by several tests may be wrapped by each.
func Wrap[S fakeserver.Servable](t testing.TB, srv S, opts *FakeOptions) *Fake {
	t.Helper()
	if opts != nil {
		noHTTPFaults(t, "mcptest.Wrap", "mcptest.WrapHTTP", opts.Faults)
	}
	refuseUnused(t, "mcptest.Wrap", fakeOptions(opts), false, true) // Stdio: wrap says why
	fs, o := wrap(t, "mcptest.Wrap", srv, opts)
	return inProcess(t, fs, o)
}

// WrapHTTP is [Wrap] over Streamable HTTP on a loopback port, as [HTTP]
// serves a fake: the HTTP faults apply too, opts.Stateless serves without
// sessions, and opts.HTTP configures the client side.
func WrapHTTP[S fakeserver.Servable](t testing.TB, srv S, opts *FakeOptions) *Fake {
	t.Helper()
	fs, o := wrap(t, "mcptest.WrapHTTP", srv, opts)
	return serveHTTP(t, "mcptest.WrapHTTP", fs, o)
}

// wrap checks opts and wraps srv with its faults for t, for what (the
// caller's name in failures); the faults come off srv at t's cleanup.
func wrap[S fakeserver.Servable](t testing.TB, what string, srv S, opts *FakeOptions) (*fakeserver.Server, FakeOptions) {
	t.Helper()
	o := fakeOptions(opts)
	if o.Profile != "" || o.Definition != nil || o.Stdio != nil || o.Revision != "" {
		t.Fatalf("%s: Profile, Definition, Stdio and Revision are a fake's options: a wrapped server has its own catalog and revisions, and runs in this process", what)
	}
	fs, err := fakeserver.Wrap(srv, &fakeserver.WrapOptions{Faults: o.Faults})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	t.Cleanup(fs.Detach) // registered first, run last: after the session check
	return fs, o
}
