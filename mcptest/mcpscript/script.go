package mcpscript

import (
	"errors"
	"fmt"
	"github.com/looprig/mcp/mcptest/internal/procgroup"
	"github.com/looprig/mcp/mcptest/internal/testmain"
	"github.com/looprig/mcp/mcptest/oauthtest"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmd is a testscript command: see doc.go for each one's usage.
type cmd = func(ts *testscript.TestScript, neg bool, args []string)

// commands holds every script command, sorted by name; doc.go is their
// manual.
var commands = map[string]cmd{
	"authcounts": cmdAuthCounts,
	"authexpire": cmdAuthExpire,
	"authserver": cmdAuthServer,
	"call":       cmdCall,
	"catalog":    cmdCatalog,
	"close":      cmdClose,
	"cmpjson":    cmdCmpJSON,
	"connect":    cmdConnect,
	"diagnose":   cmdDiagnose,
	"executions": cmdExecutions,
	"idtoken":    cmdIDToken,
	"killchild":  cmdKillChild,
	"procs":      cmdProcs,
	"requests":   cmdRequests,
	"rounds":     cmdRounds,
	"serve":      cmdServe,
}

// scriptCommands returns the script commands (see the package
// documentation), a new map each time. They need setup.
func scriptCommands() map[string]cmd {
	m := maps.Clone(commands)
	for name, c := range m {
		m[name] = func(ts *testscript.TestScript, neg bool, args []string) {
			ts.Stdout() // every command replaces stdout and stderr, even with nothing
			c(ts, neg, args)
		}
	}
	return m
}

// Params returns testscript parameters that run the scripts in dir. They
// hold mcpscript's commands (Cmds, a new map each time: add your own to
// it) and the Setup they need. They also hold the checks this project uses
// for its own scripts: RequireExplicitExec (programs run only through
// exec) and RequireUniqueNames (no file of the archive written twice).
// Setup sets GORACE so that the race-enabled children a script runs do not
// sleep at exit. When the script ends, Setup closes every client it left
// open. A process group that survives that Close fails the script, with a
// report of its processes. A Setup of your own calls it first:
//
//	p := mcpscript.Params("testdata/script")
//	mcpSetup := p.Setup
//	p.Setup = func(env *testscript.Env) error {
//		env.Setenv("API_URL", url)
//		return mcpSetup(env)
//	}
//	testscript.Run(t, p)
func Params(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		Setup:               setup,
		Cmds:                scriptCommands(),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
	}
}

// RunScripts runs the scripts in dir with [Params]. Under a *testing.T it
// runs each as a parallel subtest (testscript.Run). Under any other
// testing.TB (a benchmark, a program's own runner) it runs them one after
// the other, stopping at the first that fails.
func RunScripts(t testing.TB, dir string) {
	t.Helper()
	if tt, ok := t.(*testing.T); ok {
		testscript.Run(tt, Params(dir))
		return
	}
	testscript.RunT(tbShim{t}, Params(dir))
}

// tbShim runs testscript's scripts under a testing.TB that has no
// subtests: in order, on the caller's goroutine.
type tbShim struct{ testing.TB }

func (tbShim) Parallel()                            {}
func (s tbShim) Run(_ string, f func(testscript.T)) { f(s) }
func (tbShim) Verbose() bool                        { return testing.Verbose() }
func (s tbShim) Skip(args ...any)                   { s.TB.Skip(args...) }
func (s tbShim) Fatal(args ...any)                  { s.TB.Fatal(args...) }
func (s tbShim) Log(args ...any)                    { s.TB.Log(args...) }
func (s tbShim) FailNow()                           { s.TB.FailNow() }

type stateKey struct{}

// state is what one script's commands share.
type state struct {
	mu      sync.Mutex // guards clients, servers and https
	clients map[string]*scriptClient
	servers map[string]*fakeserver.Server
	https   map[string]*fakeserver.HTTPServer // the servers started by serve -http or -sse
	auths   map[string]*oauthtest.AuthServer  // the servers started by authserver
}

// A scriptClient is a client a script connected.
type scriptClient struct {
	c      *client.Client
	groups *procgroup.Tracker // the process groups of its stdio child
	closed bool
	after  func() error // run after Close (an HTTP cassette recorder's Close), if set
	// mismatches are the replay mismatches calls have reported already:
	// close does not report them again.
	mismatches []*cassette.MismatchError
}

// close closes the client, then runs after.
func (sc *scriptClient) close() error {
	err := sc.c.Close()
	if sc.after != nil {
		aerr := sc.after()
		var merr *cassette.MismatchError
		if errors.As(aerr, &merr) && slices.Contains(sc.mismatches, merr) {
			aerr = nil // the call that caused it reported it
		}
		if err == nil {
			err = aerr
		}
	}
	return err
}

// setup prepares a script for the commands (see [Params]).
func setup(env *testscript.Env) error {
	st := &state{clients: map[string]*scriptClient{}, servers: map[string]*fakeserver.Server{}, https: map[string]*fakeserver.HTTPServer{}, auths: map[string]*oauthtest.AuthServer{}}
	env.Values[stateKey{}] = st
	if g := env.Getenv("GORACE"); !strings.Contains(g, "atexit_sleep_ms") {
		env.Setenv("GORACE", strings.TrimSpace(g+" "+procgroup.NoExitSleep))
	}
	env.Defer(func() {
		if report := st.teardown(); report != "" {
			env.T().Log(report)
			env.T().FailNow()
		}
	})
	return nil
}

// teardown closes the clients left open and reports the processes that
// survive.
func (st *state) teardown() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	var b strings.Builder
	for name, sc := range st.clients {
		if !sc.closed {
			sc.closed = true
			if err := sc.close(); err != nil {
				fmt.Fprintf(&b, "mcpscript: closing client %s at the end of the script: %v\n", name, err)
			}
		}
		if r := sc.groups.Leaked(testmain.GroupTimeout); r != "" {
			fmt.Fprintf(&b, "mcpscript: processes of client %s still running at the end of the script:\n%s", name, r)
		}
	}
	for name, hs := range st.https {
		if err := hs.Close(); err != nil {
			fmt.Fprintf(&b, "mcpscript: closing server %s at the end of the script: %v\n", name, err)
		}
	}
	for name, a := range st.auths {
		if err := a.Close(); err != nil {
			fmt.Fprintf(&b, "mcpscript: closing auth server %s at the end of the script: %v\n", name, err)
		}
	}
	return b.String()
}

func stateOf(ts *testscript.TestScript) *state {
	st, ok := ts.Value(stateKey{}).(*state)
	if !ok {
		ts.Fatalf("mcpscript commands need the Setup of mcpscript.Params")
	}
	return st
}

func (st *state) client(ts *testscript.TestScript, name string) *scriptClient {
	st.mu.Lock()
	defer st.mu.Unlock()
	sc := st.clients[name]
	if sc == nil {
		ts.Fatalf("no client %q: connect it first", name)
	}
	return sc
}

func (st *state) server(name string) *fakeserver.Server {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.servers[name]
}
