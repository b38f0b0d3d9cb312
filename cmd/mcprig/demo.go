package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/cmd/mcprig/internal/adoption"
	"github.com/looprig/mcp/fakeserver"
)

const demoUsage = `usage: mcprig demo [-profile P]

Runs the adoption proof: starts the built-in deterministic fake server as a
supervised stdio child (this binary, "mcprig fakeserver"), discovers its tool,
drives it from a scripted model by model name, disables the binding, and shows
that the disabled call never ran and that Close reaped the child.

Flags:
`

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("mcprig demo", demoUsage, stderr)
	profile := profileFlag(fs)
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if fs.NArg() > 0 {
		return usageError(stderr, "mcprig demo", fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	prof, err := client.ParseProfile(*profile)
	if err != nil {
		return usageError(stderr, "mcprig demo", err.Error())
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "mcprig demo: %v\n", err)
		return 1
	}
	if err := adoption.Run(ctx, stdout, adoption.Server{Path: exe, Args: []string{"fakeserver"}, Profile: prof}); err != nil {
		fmt.Fprintf(stderr, "mcprig demo: %v\n", err)
		return 1
	}
	return 0
}

func runFakeserver(_ context.Context, args []string, _, _ io.Writer) int {
	return fakeserver.Main(args)
}

// profileFlag defines -profile on fs, for the commands that start clients:
// the protocol profile they connect with (client.ParseProfile).
func profileFlag(fs *flag.FlagSet) *string {
	names := []string{"default", "legacy"}
	for _, p := range []client.Profile{client.Profile20260728, client.Profile20251125, client.Profile20250618, client.Profile20250326} {
		names = append(names, p.String())
	}
	return fs.String("profile", "default", "connect with protocol profile `P`: "+strings.Join(names, ", "))
}
