package mcptest

import (
	"flag"
	"os"
	"testing"

	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/rogpeppe/go-internal/testscript"
)

// mainCalled records that the test binary went through Main, so it can run
// as the fake server.
var mainCalled bool

// Programs are the commands that [Main] installs for scripts, each run
// as `exec NAME ARGS…` by the test binary itself:
//
//	fakeserver [flags]    the fake server over stdin and stdout (fakeserver.Main;
//	                      --help lists its flags and faults)
//	mcpcall [flags] TOOL [JSON] -- PROG [ARGS…]
//	                      connect to PROG as a supervised stdio child, from
//	                      this process's environment (the script's), call
//	                      TOOL once, print its text, and close; see doc.go
func Programs() map[string]func() {
	return map[string]func(){
		"fakeserver": func() { os.Exit(fakeserver.Main(os.Args[1:])) },
		"mcpcall":    func() { os.Exit(mcpcall(os.Args[1:], os.Stdout, os.Stderr)) },
	}
}

// Main is TestMain's body for a package that uses mcptest:
//
//	func TestMain(m *testing.M) { mcptest.Main(m) }
//
// It runs the test binary as the fake server when [Stdio] started it as
// one; as one of [Programs] when a script runs it; and otherwise runs the
// tests, defines the -update flag (see [GoldenCatalog]) unless the package
// has one, and fails the binary if goroutines are left behind when the
// tests end. It does not return.
func Main(m *testing.M) {
	fakeserver.MainIfChild()
	mainCalled = true
	if flag.Lookup(UpdateFlag) == nil {
		flag.Bool(UpdateFlag, false, "rewrite golden files (mcptest.GoldenCatalog)")
	}
	testscript.Main(runner{m}, Programs())
}

type runner struct{ m *testing.M }

func (r runner) Run() int { return leakcheck.Main(r.m) }
