package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/looprig/mcp/examples/adoption"
	"github.com/looprig/mcp/fakeserver"
)

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcprig demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: mcprig demo

Runs the adoption proof: starts the built-in deterministic fake server as a
supervised stdio child (this binary, "mcprig fakeserver"), discovers its tool,
drives it from a scripted model by model name, disables the binding, and shows
that the disabled call never ran and that Close reaped the child.
`)
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "mcprig demo: %v\n", err)
		return 1
	}
	if err := adoption.Run(ctx, stdout, adoption.Server{Path: exe, Args: []string{"fakeserver"}}); err != nil {
		fmt.Fprintf(stderr, "mcprig demo: %v\n", err)
		return 1
	}
	return 0
}

func runFakeserver(_ context.Context, args []string, _, _ io.Writer) int {
	return fakeserver.Main(args)
}
