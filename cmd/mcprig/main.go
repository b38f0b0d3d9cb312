// Command mcprig runs, records and replays MCP servers.
//
//	mcprig demo                                       the adoption proof on the built-in fake server
//	mcprig fakeserver [flags]                         the deterministic fake server (stdio; --http ADDR for HTTP)
//	mcprig record -o FILE -- CMD ARGS…                a recording stdio proxy any MCP client can launch
//	mcprig record -o FILE --upstream URL --listen ADDR   a recording Streamable HTTP proxy
//	mcprig replay FILE [--listen ADDR]                serve a cassette as an MCP server (stdio or HTTP)
//	mcprig inspect [--format text|mermaid|html] FILE  a summary, a sequence diagram or an HTML timeline
//	mcprig diff OLD NEW                               session, catalog and result drift, by severity
//	mcprig verify FILE -- CMD ARGS…                   re-drive a live server with the cassette's requests; drift by severity
//	mcprig verify FILE --upstream URL                 the same against a Streamable HTTP server
//	mcprig check FILE… [-- CMD ARGS… | --url URL]     hidden instructions, invisible characters, schemas, model names, fingerprint
//	mcprig upgrade FILE…                              rewrite version-1 cassettes as version 2
//	mcprig --version                                  this build's version
//
// Run `mcprig help` for the full list and `mcprig COMMAND --help` for each.
//
// # Gating CI
//
// diff, verify and check class each drift or finding by severity
// (cassette.Severity), worst first:
//   - breaking: something removed, a required argument added, a type
//     narrowed, a result's shape or error changed, an invalid schema;
//   - dangerous: a description or the instructions changed, an annotation
//     relaxed, a new tool, hidden instructions, invisible characters, a
//     changed fingerprint;
//   - minor: an optional argument added, an argument's description
//     reworded;
//   - info: order, titles, icons.
//
// --fail-on LEVEL fails on LEVEL or worse. The default, info, fails on
// anything, as every drift did before severities.
//
// --format writes one of:
//   - text;
//   - junit: a testsuite per command, a testcase per cassette and per
//     check;
//   - json: schema "looprig.mcprig.report/v1", documented in REPORT.md
//     beside this file;
//   - markdown: a summary to post on a pull request.
//
// Their exit statuses are stable:
//
//	0  nothing at or above --fail-on
//	1  drift or findings at or above --fail-on
//	2  a usage error, or a cassette that does not load
//	3  the live server could not be started, or its session failed (verify, check)
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"

	"github.com/looprig/mcp/internal/safetext"
)

// A command is one subcommand: run gets the arguments after its name.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
	// protocol: its stdout may carry an MCP session, passed on as it is.
	// Every other stdout, and every stderr, shows control characters as
	// escapes (safetext): what it prints may come from a cassette, a
	// server or a child's stderr.
	protocol bool
}

var commands = map[string]command{
	"demo":       {"run the adoption proof against the built-in fake server", runDemo, false},
	"check":      {"check cassettes' or a live server's catalog: hidden instructions, invisible characters, schemas, model names", runCheck, false},
	"diff":       {"report session, catalog and result drift between two cassettes", runDiff, false},
	"fakeserver": {"serve the deterministic fake MCP server over stdio", runFakeserver, true},
	"inspect":    {"show a cassette: a summary, a sequence diagram or an HTML timeline", runInspect, false},
	"record":     {"record an MCP session through a stdio (or HTTP) proxy", runRecord, true},
	"replay":     {"serve a recorded session as an MCP server", runReplay, true},
	"upgrade":    {"rewrite cassettes in the current format", runUpgrade, false},
	"verify":     {"re-drive a live server with a cassette's requests and report drift", runVerify, false},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	safeErr := safetext.NewWriter(stderr)
	defer safeErr.Flush()
	stderr = safeErr
	if len(args) == 0 || !commands[args[0]].protocol {
		safeOut := safetext.NewWriter(stdout)
		defer safeOut.Flush()
		stdout = safeOut
	}
	return runCommand(args, stdout, stderr)
}

// runCommand runs the command args name.
func runCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		if len(args) > 1 {
			return usageError(stderr, "mcprig", fmt.Sprintf("unexpected argument %q after %s", args[1], args[0]))
		}
		fmt.Fprintln(stdout, version())
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
	fmt.Fprintln(w, "usage: mcprig COMMAND [ARGS]\n       mcprig --version\n\nCommands:")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-12s %s\n", name, commands[name].summary)
	}
	io.WriteString(w, gateHelp)
	io.WriteString(w, faultHelp)
}

// gateHelp is what diff, verify and check share: severities, --fail-on,
// report formats and exit statuses. The package doc says the same.
const gateHelp = `
diff, verify and check class each drift or finding by severity, worst first:
  breaking   something removed, a required argument added, a type narrowed,
             a result's shape or error changed, an invalid schema
  dangerous  a description or the instructions changed (a rug pull), an
             annotation relaxed (read-only to destructive), a new tool,
             hidden instructions, invisible characters, a changed fingerprint
  minor      an optional argument added, an argument's description reworded
  info       order, titles, icons, the server's version
--fail-on LEVEL fails on LEVEL or worse (default info: anything).
--format text|junit|json|markdown: text for a person, JUnit XML, a JSON
report (schema looprig.mcprig.report/v1, see cmd/mcprig/REPORT.md), or a
Markdown summary for a pull request.

Exit status of diff, verify and check (stable):
  0  nothing at or above --fail-on
  1  drift or findings at or above --fail-on
  2  a usage error, or a cassette that does not load
  3  the live server could not be started, or its session failed (verify, check)
`

// version describes this build. It gives mcprig's module version: the tag
// it was installed at, or "(devel)" when built from a checkout. It gives
// the VCS revision it was built from, the go-sdk it speaks MCP with and
// the Go release.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "mcprig (unknown build)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var parts []string
	var rev string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if modified {
			rev += ", modified"
		}
		parts = append(parts, "revision "+rev)
	}
	for _, d := range bi.Deps {
		if d.Path == "github.com/modelcontextprotocol/go-sdk" {
			parts = append(parts, "go-sdk "+d.Version)
		}
	}
	parts = append(parts, bi.GoVersion)
	return fmt.Sprintf("mcprig %s (%s)", v, strings.Join(parts, "; "))
}
