package mcptest

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/rogpeppe/go-internal/testscript"
)

// mainCalled records that the test binary went through Main, so it can run
// as the fake server.
var mainCalled bool

// DefaultGroupTimeout is how long the leak checks wait at cleanup, unless
// [MainOptions].GroupTimeout says otherwise, for a tracked process group
// to empty and a fake's sessions to end. A group whose client was closed
// is empty already (stdio's Close waits for it), and a closed client's
// session ends at once; what is still there after this was leaked.
const DefaultGroupTimeout = 2 * time.Second

// groupTimeout is DefaultGroupTimeout, or what Main was told.
var groupTimeout = DefaultGroupTimeout

// MainOptions configure [Main]. A nil *MainOptions means defaults.
type MainOptions struct {
	// Programs are your own programs, installed for scripts beside mcptest's
	// own (fakeserver and mcpcall, see the package documentation): `exec NAME ARGS…`, or `connect CLIENT stdio NAME
	// ARGS…` to connect to your own server as a supervised child. Each
	// function is the program's main and returns its exit code; os.Args
	// holds the script's arguments. A name taken by mcptest's own programs
	// is refused.
	Programs map[string]func() int
	// Definitions are your own fakes, registered by name
	// (fakeserver.Register) before anything else runs, so that [Stdio]
	// and the scripts (`serve S --catalog NAME`, `connect C stdio
	// fakeserver --catalog NAME`) can serve them, in this process and in
	// the children that re-run the test binary. An invalid or clashing
	// definition stops the binary with an error.
	Definitions []*fakeserver.Definition
	// GroupTimeout is how long the leak checks wait at cleanup for a
	// process group to empty and a fake's sessions to end; zero means
	// [DefaultGroupTimeout].
	GroupTimeout time.Duration
}

// programs are the programs that [Main] installs for scripts, each run
// as `exec NAME ARGS…` by the test binary itself:
//
//	fakeserver [flags]    the fake server over stdin and stdout (fakeserver.Main;
//	                      --help lists its flags and faults)
//	mcpcall [flags] TOOL [JSON] -- PROG [ARGS…]
//	                      connect to PROG as a supervised stdio child, from
//	                      this process's environment (the script's), call
//	                      TOOL once, print its text, and close; see doc.go
func programs() map[string]func() int {
	return map[string]func() int{
		"fakeserver": func() int { return fakeserver.Main(os.Args[1:]) },
		"mcpcall":    func() int { return mcpcall(os.Args[1:], os.Stdout, os.Stderr) },
	}
}

// Main is TestMain's body for a package that uses mcptest:
//
//	func TestMain(m *testing.M) { mcptest.Main(m, nil) }
//
// or, with your own fakes and programs:
//
//	func TestMain(m *testing.M) {
//		mcptest.Main(m, &mcptest.MainOptions{
//			Definitions: []*fakeserver.Definition{&weather},
//			Programs:    map[string]func() int{"weather-server": weatherserver.Main},
//		})
//	}
//
// It registers the definitions; runs the test binary as the fake server
// when [Stdio] started it as one, and as one of the programs (mcptest's
// and yours) when a script runs it; and otherwise runs the tests, defines
// the -update flag (see [GoldenCatalog]) unless the package has one, and
// fails the binary if goroutines are left behind when the tests end. It
// does not return.
func Main(m *testing.M, opts *MainOptions) {
	var o MainOptions
	if opts != nil {
		o = *opts
	}
	for _, d := range o.Definitions {
		if err := fakeserver.Register(d); err != nil {
			fmt.Fprintf(os.Stderr, "mcptest.Main: %v\n", err)
			os.Exit(2)
		}
	}
	fakeserver.MainIfChild()
	progs := programs()
	for _, name := range slices.Sorted(maps.Keys(o.Programs)) {
		if _, ok := progs[name]; ok {
			fmt.Fprintf(os.Stderr, "mcptest.Main: program %q is one of mcptest's own\n", name)
			os.Exit(2)
		}
		progs[name] = o.Programs[name]
	}
	if o.GroupTimeout > 0 {
		groupTimeout = o.GroupTimeout
	}
	mainCalled = true
	if flag.Lookup(UpdateFlag) == nil {
		flag.Bool(UpdateFlag, false, "rewrite golden files (mcptest.GoldenCatalog)")
	}
	cmds := make(map[string]func(), len(progs))
	for name, prog := range progs {
		cmds[name] = func() { os.Exit(prog()) }
	}
	testscript.Main(runner{m}, cmds) // exits
}

type runner struct{ m *testing.M }

func (r runner) Run() int { return leakcheck.Main(r.m) }
