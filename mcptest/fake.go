package mcptest

import (
	"errors"
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
	"github.com/looprig/mcp/transport/streamablehttp"
)

// NoExitSleep is the GORACE setting given to every child mcptest starts: a
// race-enabled binary otherwise sleeps a second when it exits.
const NoExitSleep = "atexit_sleep_ms=0"

// FakeOptions configure a fake server started by [InProcess] or [Stdio].
// A nil *FakeOptions means the defaults.
type FakeOptions struct {
	// Profile is fakeserver.ProfileDocs (the default when empty) or
	// fakeserver.ProfileRich.
	Profile string
	// Faults are the scripted misbehaviours (see fakeserver.Fault). Faults
	// that act on a process (crash, ignore-sigterm, …) need [Stdio].
	Faults []fakeserver.Fault
	// Stdio supervises each child started by [Stdio]; nil means the stdio
	// package's defaults. Its Env gets fakeserver.ChildEnv and GORACE added.
	Stdio *stdio.Options
	// HTTP configures the client side of a fake started by [HTTP] (its
	// Definition's streamablehttp transport: credentials, limits,
	// timeouts); nil means the package's defaults.
	HTTP *streamablehttp.Options
}

// A Fake is a fake server started for one test: in-process, or a stdio child
// per connection (the test binary itself, see [Main]). Its factory's
// connections are tracked: at cleanup, a connection's process group still
// running, or an in-process session still open, fails the test.
type Fake struct {
	t         testing.TB
	profile   string
	faults    []fakeserver.Fault
	factory   transport.Factory
	srv       *fakeserver.Server     // in-process and HTTP
	countFile string                 // stdio only
	http      *fakeserver.HTTPServer // HTTP only
}

// InProcess starts a fake server in this process. A test that leaves one of
// its sessions open (a client not closed) fails at cleanup.
func InProcess(t testing.TB, opts *FakeOptions) *Fake {
	t.Helper()
	o := fakeOptions(opts)
	var srv *fakeserver.Server
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("mcptest.InProcess: %v", r)
			}
		}()
		srv = fakeserver.New(&fakeserver.Options{Profile: o.Profile, Faults: o.Faults})
	}()
	f := &Fake{t: t, profile: srv.Profile(), faults: o.Faults, factory: srv.Factory(), srv: srv}
	t.Cleanup(func() {
		if n := waitSessions(srv, GroupTimeout); n > 0 {
			t.Errorf("mcptest: fake server %q still has %d open session(s) at cleanup: close its clients", f.profile, n)
		}
	})
	return f
}

// waitSessions polls, until timeout, for srv to have no session, and returns
// the number still open then.
func waitSessions(srv *fakeserver.Server, timeout time.Duration) int {
	deadline := time.Now().Add(timeout)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		n := 0
		for range srv.Server().MCP().Sessions() {
			n++
		}
		if n == 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(delay) // polling with a deadline: a session ends after its client closes
	}
}

// Stdio returns a fake server that runs as a stdio child, one per
// connection: the test binary re-run through [Main], so nothing is built.
// The execution counts of all its children go to one file, read by
// Executions. Every child's process group is tracked (see [Track]).
//
// It fails the test when TestMain did not call [Main].
func Stdio(t testing.TB, opts *FakeOptions) *Fake {
	t.Helper()
	if !mainCalled {
		t.Fatal("mcptest.Stdio: TestMain must call mcptest.Main(m), so that the test binary can run as the fake server")
	}
	o := fakeOptions(opts)
	profile := o.Profile
	if profile == "" {
		profile = fakeserver.ProfileDocs
	}
	countFile := filepath.Join(t.TempDir(), "counts.json")
	args := []string{"--", "--profile", profile, "--count-file", countFile}
	for _, f := range o.Faults {
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
	return &Fake{t: t, profile: profile, faults: o.Faults, factory: Track(t, sf), countFile: countFile}
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
// profile ("docs"), with the default profile and limits.
func (f *Fake) Definition() client.Definition {
	return client.Definition{Name: f.profile, Transport: f.factory}
}

// Kind returns the fake server's transport kind.
func (f *Fake) Kind() transport.Kind { return f.factory.Kind() }

// Faults returns the fault script the fake server runs.
func (f *Fake) Faults() []fakeserver.Fault { return append([]fakeserver.Fault(nil), f.faults...) }

// Server returns the fake server in this process (in-process or HTTP), or
// nil for a stdio one.
func (f *Fake) Server() *fakeserver.Server { return f.srv }

// Counts returns the execution count of every tool executed at least once,
// by every connection. A count file that cannot be read fails the test.
func (f *Fake) Counts() map[string]int {
	f.t.Helper()
	if f.srv != nil {
		return f.srv.Counts()
	}
	n, err := fakeserver.ReadCounts(f.countFile)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]int{} // no child has started yet
	}
	if err != nil {
		f.t.Fatalf("mcptest: reading the fake server's counts: %v", err)
	}
	return n
}

// Executions returns how many times tool was executed, by every connection:
// a call counts once it has passed validation, whatever happened next
// (a fault, a crash).
func (f *Fake) Executions(tool string) int {
	f.t.Helper()
	return f.Counts()[tool]
}
