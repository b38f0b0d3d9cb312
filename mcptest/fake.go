package mcptest

import (
	"errors"
	"github.com/looprig/mcp/mcptest/internal/procgroup"
	"github.com/looprig/mcp/mcptest/internal/testmain"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/stdio"
)

// A Fake is a fake server, or a server under test wrapped with faults and
// counters, started for one test. It runs in-process, over HTTP, or as a
// stdio child per connection (the test binary itself, see [Main]). Its factory's
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
// (an unknown catalog, a bad custom catalog or fault, a fault that acts on a
// process or on HTTP requests) fail the test at once.
func InProcess(t testing.TB, opts *InProcessOptions) *Fake {
	t.Helper()
	o := orZero(opts)
	checkPath(t, "mcptest.InProcess", o.Faults, fakeserver.Path{}, "mcptest.HTTP")
	srv, err := catalogSpec{o.Catalog, o.Custom, o.Faults, o.Revision}.server()
	if err != nil {
		t.Fatalf("mcptest.InProcess: %v", err)
	}
	return inProcess(t, srv, o.Faults, o.ClientProfile)
}

func inProcess(t testing.TB, srv *fakeserver.Server, faults []fakeserver.Fault, profile client.Profile) *Fake {
	conns := &connCounter{Factory: srv.Factory()}
	f := &Fake{t: t, name: srv.Name(), profile: profile, faults: faults, factory: conns, srv: srv}
	t.Cleanup(func() {
		srv.Close() // releases hung calls, whose sessions wait for them
		if n := waitSessions(srv, conns, testmain.GroupTimeout); n > 0 {
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
// The counts of all its children go to one file, read by Counts. Every child's process group is tracked (see [Track]).
//
// It fails the test when TestMain did not call [Main], when
// opts.Custom is not registered (see [MainOptions].Catalogs), and
// for a fault that acts on HTTP requests (use [HTTP]).
func Stdio(t testing.TB, opts *StdioOptions) *Fake {
	t.Helper()
	if !testmain.Called {
		t.Fatal("mcptest.Stdio: TestMain must call mcptest.Main(m, …), so that the test binary can run as the fake server")
	}
	o := orZero(opts)
	checkPath(t, "mcptest.Stdio", o.Faults, fakeserver.Path{Child: true}, "mcptest.HTTP")
	name := o.Catalog
	if c := o.Custom; c != nil {
		if name != "" {
			t.Fatalf("mcptest.Stdio: set Catalog (%q) or Custom (%q), not both", name, c.Name)
		}
		if reg, ok := fakeserver.Registered(c.Name); !ok || reg != c {
			t.Fatalf("mcptest.Stdio: catalog %q is not registered, so the child cannot serve it: pass it to mcptest.Main(m, &mcptest.MainOptions{Catalogs: …}) in TestMain", c.Name)
		}
		name = c.Name
	}
	if name == "" {
		name = fakeserver.CatalogDocs
	}
	// Check the options here, where the error is clear, not in the child.
	if _, err := (catalogSpec{catalog: name, faults: inProcessFaults(o.Faults), revision: o.Revision}).server(); err != nil {
		t.Fatalf("mcptest.Stdio: %v", err)
	}
	countFile := filepath.Join(t.TempDir(), "counts.json")
	args := []string{"--", "--catalog", name, "--count-file", countFile}
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
	so := orZero(o.Transport)
	so.Env = maps.Clone(so.Env)
	if so.Env == nil {
		so.Env = map[string]string{}
	}
	so.Env[fakeserver.ChildEnv] = "1"
	so.Env["GORACE"] = procgroup.NoExitSleep
	sf, err := stdio.New(exe, args, &so)
	if err != nil {
		t.Fatalf("mcptest.Stdio: %v", err)
	}
	return &Fake{t: t, name: name, profile: o.ClientProfile, faults: o.Faults, factory: Track(t, sf), countFile: countFile}
}

// checkPath fails t at once for a fault that does not act on p, the path
// what serves its fake by (fakeserver.CheckPath): it would do nothing there.
// instead names the helper that serves over HTTP, for a fault that acts
// there.
func checkPath(t testing.TB, what string, faults []fakeserver.Fault, p fakeserver.Path, instead string) {
	t.Helper()
	var pe *fakeserver.PathError
	if err := fakeserver.CheckPath(faults, p); errors.As(err, &pe) {
		if pe.Fault.ActsOn(fakeserver.Path{HTTP: true}) {
			t.Fatalf("%s: %v: use %s", what, err, instead)
		}
		t.Fatalf("%s: %v", what, err)
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

// Factory returns the transport.Factory that connects to the fake server.
func (f *Fake) Factory() transport.Factory { return f.factory }

// Definition returns a client.Definition of the fake server. It is named
// after its catalog ("docs", or a custom catalog's name) or wrapped
// server. It has the protocol profile of the options' ClientProfile (the
// default profile when unset) and the default limits.
func (f *Fake) Definition() client.Definition {
	return client.Definition{Name: f.name, Profile: f.profile, Transport: f.factory}
}

// Client connects a client to the fake with [Connect], at the options'
// ClientProfile: closed at cleanup of the test the Fake was
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
// connection, as one snapshot (see fakeserver.Counts). Executions counts a
// call once it has passed validation, whatever happened next (a fault, a
// crash). It does not count a round that ended by asking for input.
// Rounds counts every round. So a call that asked the client for input
// once has one more round than executions. A count file that cannot be
// read fails the test.
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
