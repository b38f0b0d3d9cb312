package mcptest

import (
	"os"
	"testing"
	"time"

	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/mcptest/internal/testmain"
)

// DefaultGroupTimeout is how long the leak checks wait at cleanup, unless
// [MainOptions].GroupTimeout says otherwise, for a tracked process group
// to empty and a fake's sessions to end. A group whose client was closed
// is empty already (stdio's Close waits for it), and a closed client's
// session ends at once; what is still there after this was leaked.
const DefaultGroupTimeout = testmain.DefaultGroupTimeout

// MainOptions configure [Main]. A nil *MainOptions means defaults.
type MainOptions struct {
	// Catalogs are your own fakes, registered by name
	// (fakeserver.Register) before anything else runs, so that [Stdio]
	// can serve them, in this process and in the children that re-run
	// the test binary. An invalid or clashing catalog stops the binary
	// with an error.
	Catalogs []*fakeserver.Catalog
	// GroupTimeout is how long the leak checks wait at cleanup for a
	// process group to empty and a fake's sessions to end; zero means
	// [DefaultGroupTimeout].
	GroupTimeout time.Duration
}

// Main is TestMain's body for a package that uses mcptest:
//
//	func TestMain(m *testing.M) { mcptest.Main(m, nil) }
//
// or, with your own fakes:
//
//	func TestMain(m *testing.M) {
//		mcptest.Main(m, &mcptest.MainOptions{Catalogs: []*fakeserver.Catalog{&weather}})
//	}
//
// It registers the catalogs. It runs the test binary as the fake server
// when [Stdio] started it as one. Otherwise it runs the tests. It defines
// the -update flag (see [GoldenCatalog]) unless the package has one. It
// fails the binary if goroutines are left behind when the tests end. It
// does not return. A package that runs scripts calls mcpscript.Main
// instead, which does all this and installs the scripts' programs.
func Main(m *testing.M, opts *MainOptions) {
	o := orZero(opts)
	testmain.Prepare("mcptest.Main", o.Catalogs, o.GroupTimeout)
	os.Exit(leakcheck.Main(m))
}
