package mcpscript

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/mcptest/internal/testmain"
	"github.com/rogpeppe/go-internal/testscript"
)

// MainOptions configure [Main]. A nil *MainOptions means defaults.
type MainOptions struct {
	// Programs are your own programs, installed for scripts beside
	// mcpscript's own (fakeserver and mcpcall, see the package
	// documentation). A script runs one with `exec NAME ARGS…`. It connects
	// to your own server as a supervised child with `connect CLIENT stdio
	// NAME ARGS…`. Each
	// function is the program's main and returns its exit code; os.Args
	// holds the script's arguments. A name taken by mcpscript's own
	// programs is refused.
	Programs map[string]func() int
	// Catalogs are as in mcptest.MainOptions; scripts serve them too
	// (`serve S --catalog NAME`, `connect C stdio fakeserver --catalog
	// NAME`).
	Catalogs []*fakeserver.Catalog
	// GroupTimeout is as in mcptest.MainOptions.
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

// Main is TestMain's body for a package that runs scripts. It does what
// mcptest.Main does, and installs the programs (mcpscript's and yours)
// that scripts run:
//
//	func TestMain(m *testing.M) {
//		mcpscript.Main(m, &mcpscript.MainOptions{
//			Catalogs: []*fakeserver.Catalog{&weather},
//			Programs: map[string]func() int{"weather-server": weatherserver.Main},
//		})
//	}
//
// It does not return.
func Main(m *testing.M, opts *MainOptions) {
	var o MainOptions
	if opts != nil {
		o = *opts
	}
	testmain.Prepare("mcpscript.Main", o.Catalogs, o.GroupTimeout)
	progs := programs()
	for _, name := range slices.Sorted(maps.Keys(o.Programs)) {
		if _, ok := progs[name]; ok {
			fmt.Fprintf(os.Stderr, "mcpscript.Main: program %q is one of mcpscript's own\n", name)
			os.Exit(2)
		}
		progs[name] = o.Programs[name]
	}
	cmds := make(map[string]func(), len(progs))
	for name, prog := range progs {
		cmds[name] = func() { os.Exit(prog()) }
	}
	testscript.Main(runner{m}, cmds) // exits
}

type runner struct{ m *testing.M }

func (r runner) Run() int { return leakcheck.Main(r.m) }
