package mcptest

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// NoExitSleep is the GORACE setting given to every child mcptest starts: a
// race-enabled binary otherwise sleeps a second when it exits.
const NoExitSleep = "atexit_sleep_ms=0"

// FakeOptions configure a fake server started by [InProcess], [Stdio] or
// [HTTP], or a server under test wrapped by [Wrap] or [WrapHTTP]. A nil
// *FakeOptions means the defaults. An option the helper cannot act on
// (Stateless, Auth or HTTP where nothing is served over HTTP, Stdio where
// no child is started, a fault where it cannot act) fails the test at once
// rather than being ignored.
type FakeOptions struct {
	// Profile is fakeserver.ProfileDocs (the default when Profile and
	// Definition are empty), fakeserver.ProfileRich, or the name of a
	// registered definition (see [MainOptions].Definitions). Not for Wrap.
	Profile string
	// Definition is your own fake: its tools, resources and prompts, with
	// scripted replies (see fakeserver.Definition). In-process and over
	// HTTP it needs nothing else; [Stdio] needs it registered, so that the
	// child (the test binary re-run) can find it by name: pass it to
	// [Main] in [MainOptions].Definitions. Not for Wrap.
	Definition *fakeserver.Definition
	// Faults are the scripted misbehaviours (see fakeserver.Fault). Faults
	// that act on a process (crash, ignore-sigterm, …) need [Stdio]; those
	// that act on HTTP requests (drop, unauthorized, …) need [HTTP] or
	// [WrapHTTP].
	Faults []fakeserver.Fault
	// Stdio supervises each child started by [Stdio]; nil means the stdio
	// package's defaults. Its Env gets fakeserver.ChildEnv and GORACE added.
	Stdio *stdio.Options
	// HTTP configures the client side of a fake served over HTTP (its
	// Definition's streamablehttp transport: credentials, limits,
	// timeouts); nil means the package's defaults.
	HTTP *streamablehttp.Options
	// Stateless serves [HTTP] and [WrapHTTP] fakes without sessions for
	// any client (server.HTTPOptions.Stateless). Without it, 2025-11-25
	// clients get sessions and 2026-07-28 requests are served statelessly.
	Stateless bool
	// Revision pins the protocol revision the fake serves
	// (fakeserver.Options.Revision): fakeserver.Revision20251125 for a
	// server from before 2026-07-28, which a client on the zero profile
	// reaches by falling back to initialize; fakeserver.Revision20260728
	// for one that serves only the current revision. Empty serves both.
	// Not for Wrap.
	Revision string
	// Auth makes an [HTTP] or [WrapHTTP] fake a protected resource of a
	// fake authorization server ([NewAuthServer]): requests need its
	// tokens, with the scopes Auth asks for, and a DPoP-bound token with
	// a valid proof of its key (never as Bearer; see [AuthServer.Protect]).
	// Give the client a credential source in HTTP (opts.HTTP.Credentials),
	// such as auth.NewClientCredentials with the server's client.
	Auth *Protection
	// ClientProfile is the protocol profile of the client.Definition the
	// Fake hands out ([Fake.Definition], and so [Fake.Client]): the zero
	// value, client.ProfileDefault, negotiates; client.Profile20251125
	// pins the client to 2025-11-25, client.Profile20260728 to the current
	// revision. It chooses what the client offers; Revision chooses what
	// the fake serves.
	ClientProfile client.Profile
}

// A Fake is a fake server, or a server under test wrapped with faults and
// counters, started for one test: in-process, over HTTP, or a stdio child
// per connection (the test binary itself, see [Main]). Its factory's
// connections are tracked: at cleanup, a connection's process group still
// running, or a session still open, fails the test.
type Fake struct {
	t         testing.TB
	name      string
	profile   client.Profile // the Definition's
	faults    []fakeserver.Fault
	factory   transport.Factory
	srv       *fakeserver.Server     // in-process and HTTP
	countFile string                 // stdio only
	http      *fakeserver.HTTPServer // HTTP only
}

// InProcess starts a fake server in this process. A test that leaves one of
// its sessions open (a client not closed) fails at cleanup. Invalid options
// (an unknown profile, a bad definition or fault, a fault that acts on a
// process or on HTTP requests) fail the test at once.
func InProcess(t testing.TB, opts *FakeOptions) *Fake {
	t.Helper()
	o := fakeOptions(opts)
	refuseUnused(t, "mcptest.InProcess", o, false, false)
	noHTTPFaults(t, "mcptest.InProcess", "mcptest.HTTP", o.Faults)
	srv, err := fakeserver.New(&fakeserver.Options{Profile: o.Profile, Definition: o.Definition, Faults: o.Faults, Revision: o.Revision})
	if err != nil {
		t.Fatalf("mcptest.InProcess: %v", err)
	}
	return inProcess(t, srv, o)
}

func inProcess(t testing.TB, srv *fakeserver.Server, o FakeOptions) *Fake {
	conns := &connCounter{Factory: srv.Factory()}
	f := &Fake{t: t, name: srv.Profile(), profile: o.ClientProfile, faults: o.Faults, factory: conns, srv: srv}
	t.Cleanup(func() {
		srv.Close() // releases hung calls, whose sessions wait for them
		if n := waitSessions(srv, conns, groupTimeout); n > 0 {
			t.Errorf("mcptest: fake server %q still has %d open session(s) at cleanup: close its clients", f.name, n)
		}
	})
	return f
}

// waitSessions polls, until timeout, for srv to have no session, and returns
// the number still open then. It returns at once while a client connection
// is still open: that session is not going to end by itself.
func waitSessions(srv *fakeserver.Server, conns *connCounter, timeout time.Duration) int {
	if n := conns.Open(); n > 0 {
		return max(n, srv.Sessions())
	}
	deadline := time.Now().Add(timeout)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		n := srv.Sessions()
		if n == 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(delay) // polling with a deadline: a session ends after its client closes
	}
}

// Stdio returns a fake server that runs as a stdio child, one per
// connection: the test binary re-run through [Main], so nothing is built.
// The counts of all its children go to one file, read by Executions and
// Rounds. Every child's process group is tracked (see [Track]).
//
// It fails the test when TestMain did not call [Main], when
// opts.Definition is not registered (see [MainOptions].Definitions), and
// for a fault that acts on HTTP requests (use [HTTP]).
func Stdio(t testing.TB, opts *FakeOptions) *Fake {
	t.Helper()
	if !mainCalled {
		t.Fatal("mcptest.Stdio: TestMain must call mcptest.Main(m, …), so that the test binary can run as the fake server")
	}
	o := fakeOptions(opts)
	refuseUnused(t, "mcptest.Stdio", o, false, true)
	noHTTPFaults(t, "mcptest.Stdio", "mcptest.HTTP", o.Faults)
	profile := o.Profile
	if d := o.Definition; d != nil {
		if profile != "" {
			t.Fatalf("mcptest.Stdio: set Profile (%q) or Definition (%q), not both", profile, d.Name)
		}
		if reg, ok := fakeserver.Registered(d.Name); !ok || reg != d {
			t.Fatalf("mcptest.Stdio: definition %q is not registered, so the child cannot serve it: pass it to mcptest.Main(m, &mcptest.MainOptions{Definitions: …}) in TestMain", d.Name)
		}
		profile = d.Name
	}
	if profile == "" {
		profile = fakeserver.ProfileDocs
	}
	// Check the options here, where the error is clear, not in the child.
	if _, err := fakeserver.New(&fakeserver.Options{Profile: profile, Faults: inProcessFaults(o.Faults), Revision: o.Revision}); err != nil {
		t.Fatalf("mcptest.Stdio: %v", err)
	}
	countFile := filepath.Join(t.TempDir(), "counts.json")
	args := []string{"--", "--profile", profile, "--count-file", countFile}
	if o.Revision != "" {
		args = append(args, "--revision", o.Revision)
	}
	for _, f := range o.Faults {
		// The child parses the text form: parsing it here refuses at once,
		// with the fault package's error, what the child would refuse (on
		// Windows the faults that need POSIX sessions or signals).
		if _, err := fakeserver.ParseFault(f.String()); err != nil {
			t.Fatalf("mcptest.Stdio: %v", err)
		}
		args = append(args, "--fault", f.String())
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("mcptest.Stdio: %v", err)
	}
	var so stdio.Options
	if o.Stdio != nil {
		so = *o.Stdio
	}
	so.Env = maps.Clone(so.Env)
	if so.Env == nil {
		so.Env = map[string]string{}
	}
	so.Env[fakeserver.ChildEnv] = "1"
	so.Env["GORACE"] = NoExitSleep
	sf, err := stdio.New(exe, args, &so)
	if err != nil {
		t.Fatalf("mcptest.Stdio: %v", err)
	}
	return &Fake{t: t, name: profile, profile: o.ClientProfile, faults: o.Faults, factory: Track(t, sf), countFile: countFile}
}

// refuseUnused fails t for options what would ignore: the HTTP ones
// (Stateless, Auth, HTTP) where it serves no HTTP, Stdio where it starts
// no child. A test that asked for them would pass without them.
func refuseUnused(t testing.TB, what string, o FakeOptions, overHTTP, child bool) {
	t.Helper()
	var unused []string
	if !overHTTP {
		if o.Stateless {
			unused = append(unused, "Stateless")
		}
		if o.Auth != nil {
			unused = append(unused, "Auth")
		}
		if o.HTTP != nil {
			unused = append(unused, "HTTP")
		}
		if len(unused) > 0 {
			t.Fatalf("%s: FakeOptions.%s act only on a fake served over HTTP (mcptest.HTTP, mcptest.WrapHTTP)", what, strings.Join(unused, ", "))
		}
	}
	if !child && o.Stdio != nil {
		t.Fatalf("%s: FakeOptions.Stdio acts only on the children mcptest.Stdio starts", what)
	}
}

// noHTTPFaults fails t for a fault that acts on HTTP requests, given to
// what (which serves no HTTP): it would do nothing there; use instead
// serves over HTTP.
func noHTTPFaults(t testing.TB, what, instead string, faults []fakeserver.Fault) {
	t.Helper()
	for _, f := range faults {
		if f.HTTPOnly() {
			t.Fatalf("%s: fault %q acts on HTTP requests, which %s does not serve: use %s", what, f, what, instead)
		}
	}
}

// inProcessFaults drops the faults that only a child takes, to check the
// others in this process.
func inProcessFaults(faults []fakeserver.Fault) []fakeserver.Fault {
	var out []fakeserver.Fault
	for _, f := range faults {
		if !f.StdioOnly() {
			out = append(out, f)
		}
	}
	return out
}

func fakeOptions(opts *FakeOptions) FakeOptions {
	if opts == nil {
		return FakeOptions{}
	}
	return *opts
}

// Factory returns the transport.Factory that connects to the fake server.
func (f *Fake) Factory() transport.Factory { return f.factory }

// Definition returns a client.Definition of the fake server, named after its
// profile ("docs"), definition or wrapped server, with the protocol
// profile FakeOptions.ClientProfile (the default profile when unset) and
// the default limits.
func (f *Fake) Definition() client.Definition {
	return client.Definition{Name: f.name, Profile: f.profile, Transport: f.factory}
}

// Client connects a client to the fake with [Connect], at
// FakeOptions.ClientProfile: closed at cleanup of the test the Fake was
// started for. h may be nil.
func (f *Fake) Client(h *client.Handlers) *client.Client {
	f.t.Helper()
	return Connect(f.t, f.Definition(), h)
}

// Kind returns the fake server's transport kind.
func (f *Fake) Kind() transport.Kind { return f.factory.Kind() }

// Faults returns the fault script the fake server runs.
func (f *Fake) Faults() []fakeserver.Fault { return append([]fakeserver.Fault(nil), f.faults...) }

// Server returns the fake server in this process (in-process, HTTP or
// wrapped), or nil for a stdio one.
func (f *Fake) Server() *fakeserver.Server { return f.srv }

// Counts returns the counters of every tool called at least once, by every
// connection (see fakeserver.Counts). A count file that cannot be read
// fails the test.
func (f *Fake) Counts() fakeserver.Counts {
	f.t.Helper()
	if f.srv != nil {
		return f.srv.Counts()
	}
	n, err := fakeserver.ReadCounts(f.countFile)
	if errors.Is(err, fs.ErrNotExist) {
		return fakeserver.Counts{Executions: map[string]int{}, Rounds: map[string]int{}} // no child has started yet
	}
	if err != nil {
		f.t.Fatalf("mcptest: reading the fake server's counts: %v", err)
	}
	return n
}

// Executions returns how many times tool was executed, by every connection:
// a call counts once it has passed validation, whatever happened next
// (a fault, a crash), unless that round ended by asking for input.
func (f *Fake) Executions(tool string) int {
	f.t.Helper()
	return f.Counts().Executions[tool]
}

// Rounds returns how many rounds of tool ran, by every connection: for a
// call that asked the client for input, one more than its executions.
func (f *Fake) Rounds(tool string) int {
	f.t.Helper()
	return f.Counts().Rounds[tool]
}
