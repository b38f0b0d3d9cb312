// Command mcprig runs, records and replays MCP servers.
//
//	mcprig demo                                       the adoption proof on the built-in fake server
//	mcprig fakeserver [flags]                         the deterministic fake server (stdio; --http ADDR for HTTP)
//	mcprig record -o FILE -- CMD ARGS…                a recording stdio proxy any MCP client can launch
//	mcprig record -o FILE --upstream URL --listen ADDR   a recording Streamable HTTP proxy
//	mcprig replay FILE [--listen ADDR]                serve a cassette as an MCP server (stdio or HTTP)
//	mcprig inspect FILE                               a readable summary of a cassette
//	mcprig diff OLD NEW                               catalog and result drift; exit 1 on drift
//	mcprig upgrade FILE…                              rewrite version-1 cassettes as version 2
//
// Run `mcprig help` for the full list and `mcprig COMMAND --help` for each.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// A command is one subcommand: run gets the arguments after its name.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{
	"demo":       {"run the adoption proof against the built-in fake server", runDemo},
	"diff":       {"report catalog and result drift between two cassettes", runDiff},
	"fakeserver": {"serve the deterministic fake MCP server over stdio", runFakeserver},
	"inspect":    {"summarise a cassette: server, catalog, calls", runInspect},
	"record":     {"record an MCP session through a stdio (or HTTP) proxy", runRecord},
	"replay":     {"serve a recorded session as an MCP server", runReplay},
	"upgrade":    {"rewrite cassettes in the current format", runUpgrade},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "mcprig: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return cmd.run(ctx, args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: mcprig COMMAND [ARGS]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-12s %s\n", name, commands[name].summary)
	}
}
