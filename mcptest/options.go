package mcptest

import (
	"net/http"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// Each way to start a fake has an options type of its own, holding only
// what acts there: a stdio fake has no HTTP options, an in-process fake
// neither, a wrapped server no catalog. A nil pointer means the defaults.

// InProcessOptions configure a fake started by [InProcess].
type InProcessOptions struct {
	// Catalog is fakeserver.CatalogDocs (the default when Catalog and
	// Custom are empty), fakeserver.CatalogRich, or the name of a
	// registered catalog (see [MainOptions].Catalogs).
	Catalog string
	// Custom is your own fake: its tools, resources and prompts, with
	// scripted replies (see fakeserver.Catalog); Catalog must then be
	// empty. It need not be registered.
	Custom *fakeserver.Catalog
	// Faults are the scripted misbehaviours (see fakeserver.Fault); none by
	// default. A fault that acts on a process (crash, ignore-sigterm, …)
	// needs [Stdio], one that acts on HTTP requests (drop, unauthorized,
	// …) [HTTP]: either fails the test here (see fakeserver.Path).
	Faults []fakeserver.Fault
	// Revision pins the protocol revision the fake serves
	// (fakeserver.Options.Revision). fakeserver.Revision20251125 gives a
	// server from before 2026-07-28. A client on the zero profile reaches
	// it by falling back to initialize. fakeserver.Revision20260728 gives
	// one that serves only the current revision. Empty serves both.
	Revision string
	// ClientProfile is the protocol profile of the client.Definition the
	// Fake hands out ([Fake.Definition], and so [Fake.Client]): the zero
	// value, client.ProfileDefault, negotiates; client.Profile20251125
	// pins the client to 2025-11-25, client.Profile20260728 to the current
	// revision. It chooses what the client offers; Revision chooses what
	// the fake serves.
	ClientProfile client.Profile
}

// StdioOptions configure a fake started by [Stdio], a child per
// connection.
type StdioOptions struct {
	// Catalog is as in [InProcessOptions].
	Catalog string
	// Custom is as in [InProcessOptions], and must be registered, so
	// that the child (the test binary re-run) can find it by name: pass it
	// to [Main] in [MainOptions].Catalogs.
	Custom *fakeserver.Catalog
	// Faults are the scripted misbehaviours, those that act on a process
	// included; one that acts on HTTP requests fails the test (see
	// fakeserver.Path).
	Faults []fakeserver.Fault
	// Revision is as in [InProcessOptions].
	Revision string
	// Transport supervises each child; nil means the stdio package's
	// defaults. Its Env gets fakeserver.ChildEnv and GORACE added.
	Transport *stdio.Options
	// ClientProfile is as in [InProcessOptions].
	ClientProfile client.Profile
}

// HTTPOptions configure a fake served by [HTTP].
type HTTPOptions struct {
	// Catalog is as in [InProcessOptions].
	Catalog string
	// Custom is as in [InProcessOptions].
	Custom *fakeserver.Catalog
	// Faults are the scripted misbehaviours, those that act on HTTP
	// requests included; one that acts on a process fails the test.
	Faults []fakeserver.Fault
	// Revision is as in [InProcessOptions].
	Revision string
	// Stateless serves without sessions for any client
	// (server.HTTPOptions.Stateless). If false, 2025-11-25 clients get
	// sessions and 2026-07-28 requests are served statelessly.
	Stateless bool
	// Auth puts the fake behind an access check. An
	// *oauthtest.Protection makes it a protected resource of a fake
	// authorization server: requests need its tokens, with the scopes it
	// asks for. Give the client a credential source in Transport
	// (Transport.Credentials), such as auth.NewClientCredentials with the
	// server's client. If nil, the fake is unprotected.
	Auth Protector
	// Transport configures the client side (the Definition's
	// streamablehttp transport: credentials, limits, timeouts); nil means
	// the package's defaults.
	Transport *streamablehttp.Options
	// ClientProfile is as in [InProcessOptions].
	ClientProfile client.Profile
}

// WrapOptions configure [Wrap].
type WrapOptions struct {
	// Faults are the scripted misbehaviours, for tools the wrapped server
	// publishes; none by default. One that acts on a process or on HTTP
	// requests fails the test (use [WrapHTTP] for the HTTP ones).
	Faults []fakeserver.Fault
	// ClientProfile is as in [InProcessOptions].
	ClientProfile client.Profile
}

// WrapHTTPOptions configure [WrapHTTP].
type WrapHTTPOptions struct {
	// Faults are as in [WrapOptions], those that act on HTTP requests
	// included.
	Faults []fakeserver.Fault
	// Stateless is as in [HTTPOptions].
	Stateless bool
	// Auth is as in [HTTPOptions].
	Auth Protector
	// Transport is as in [HTTPOptions].
	Transport *streamablehttp.Options
	// ClientProfile is as in [InProcessOptions].
	ClientProfile client.Profile
}

// A Protector puts a fake served over HTTP behind an access check.
// *oauthtest.Protection is one: it accepts a fake authorization server's
// tokens.
type Protector interface {
	// Protect returns next behind the check, or an error if the check is
	// not configured.
	Protect(next http.Handler) (http.Handler, error)
}

// catalogSpec is what a fake serves, whichever way it is started.
type catalogSpec struct {
	catalog  string
	custom   *fakeserver.Catalog
	faults   []fakeserver.Fault
	revision string
}

// server returns the fake server of the spec.
func (c catalogSpec) server() (*fakeserver.Server, error) {
	return fakeserver.New(&fakeserver.Options{Catalog: c.catalog, Custom: c.custom, Faults: c.faults, Revision: c.revision})
}

// httpSpec is how a server is served over HTTP.
type httpSpec struct {
	faults        []fakeserver.Fault
	stateless     bool
	auth          Protector
	transport     *streamablehttp.Options
	clientProfile client.Profile
}

// orZero returns *p, or the zero value when p is nil.
func orZero[T any](p *T) T {
	var v T
	if p != nil {
		v = *p
	}
	return v
}
