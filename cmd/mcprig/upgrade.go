package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/atomicfile"
)

const upgradeUsage = `usage: mcprig upgrade FILE...

Rewrites each cassette FILE in the current format (version %d), in place and
atomically: a version-1 cassette becomes the version-2 cassette it stands
for (its session closed by the client after its last line, its stderr tail
in that ending). A cassette already current is left as it is. Exit status 2
when a FILE cannot be read as a cassette, 1 when it cannot be written.
`

func runUpgrade(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("mcprig upgrade", fmt.Sprintf(upgradeUsage, cassette.Version), stderr)
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if fs.NArg() == 0 {
		return usageError(stderr, "mcprig upgrade", "want at least one cassette FILE")
	}
	for _, path := range fs.Args() {
		old, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "mcprig upgrade: %v\n", err)
			return 2
		}
		c, err := cassette.Parse(path, old)
		if err != nil {
			fmt.Fprintf(stderr, "mcprig upgrade: %v\n", err)
			return 2
		}
		data, err := c.Marshal()
		if err != nil {
			fmt.Fprintf(stderr, "mcprig upgrade: %v\n", err)
			return 2
		}
		if bytes.Equal(old, data) {
			fmt.Fprintf(stdout, "%s: current\n", path)
			continue
		}
		if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
			fmt.Fprintf(stderr, "mcprig upgrade: %s: %v\n", path, err)
			return 1
		}
		fmt.Fprintf(stdout, "%s: upgraded to version %d\n", path, cassette.Version)
	}
	return 0
}
