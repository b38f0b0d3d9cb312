// Package testmain holds what mcptest.Main and mcpscript.Main share: the
// preparation of a test binary and the settings it leaves.
package testmain

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/looprig/mcp/fakeserver"
)

// DefaultGroupTimeout is mcptest.DefaultGroupTimeout.
const DefaultGroupTimeout = 2 * time.Second

// UpdateFlag is mcptest.UpdateFlag.
const UpdateFlag = "update"

var (
	// Called records that the test binary went through Prepare, so it can
	// run as the fake server.
	Called bool
	// GroupTimeout is DefaultGroupTimeout, or what Prepare was told.
	GroupTimeout = DefaultGroupTimeout
)

// Prepare registers catalogs, runs the binary as the fake server when it was
// started as one (it then exits), sets GroupTimeout if timeout is
// positive, and defines the -update flag unless the package has one. An
// invalid catalog stops the binary; caller names the Main in the
// message.
func Prepare(caller string, catalogs []*fakeserver.Catalog, timeout time.Duration) {
	for _, c := range catalogs {
		if err := fakeserver.Register(c); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", caller, err)
			os.Exit(2)
		}
	}
	fakeserver.MainIfChild()
	if timeout > 0 {
		GroupTimeout = timeout
	}
	Called = true
	if flag.Lookup(UpdateFlag) == nil {
		flag.Bool(UpdateFlag, false, "rewrite golden files (mcptest.GoldenCatalog)")
	}
}
