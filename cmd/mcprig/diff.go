package main

import (
	"context"
	"fmt"
	"io"

	"github.com/looprig/mcp/cassette"
)

const diffUsage = `usage: mcprig diff [--ignore PATH]... [--fail-on LEVEL] [--format FORMAT] OLD NEW

Compares two cassettes of the same server, by their messages, whatever
their transports (a stdio and an HTTP recording of the same session do not
drift), and reports drift:

  - session drift: the protocol revision, the server's name, version,
    capabilities or instructions, or how the session ended changed;
  - catalog drift: tools (and resources, templates, prompts) added, removed
    or changed, with a diff of what changed (description, input or output
    schema, annotations);
  - result drift: the same call (same sender, method and arguments, in
    order) gave a different result or error, with a diff; calls made in
    only one of them.

Request ids, "_meta", the client's name and version, the numbering of
redaction placeholders and each --ignore PATH are ignored. Diffs are
unified line diffs of indented JSON (--- OLD +++ NEW).

Each drift has a severity (see mcprig help): breaking (something removed,
a required argument added, a type narrowed, a result's shape or error
changed), dangerous (a description or the instructions changed, an
annotation relaxed, a new tool), minor (an optional argument added, an
argument's description reworded) or info (order, titles, icons).
--format junit, json or markdown writes a report for CI instead of text.

Exit status: 0 when no drift is at or above --fail-on (default info: any
drift), 1 when some is, 2 on a usage error or a cassette that does not
load (the error names the file and line).

Flags:
`

func runDiff(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("mcprig diff", diffUsage, stderr)
	var ignore multiFlag
	var rf reportFlags
	fs.Var(&ignore, "ignore", "ignore the value at `PATH` (\"result.content.*.text\", \"*\" matches any key); repeatable")
	rf.define(fs)
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if fs.NArg() != 2 {
		return usageError(stderr, "mcprig diff", "want two cassettes, OLD and NEW")
	}
	if err := rf.check(); err != nil {
		return usageError(stderr, "mcprig diff", err.Error())
	}
	var cs [2]*cassette.Cassette
	for i, path := range fs.Args() {
		c, err := cassette.Load(path)
		if err != nil {
			fmt.Fprintf(stderr, "mcprig diff: %v\n", err)
			return exitUsage
		}
		cs[i] = c
	}
	drifts, err := cassette.Compare(cs[0], cs[1], &cassette.Options{IgnorePaths: ignore})
	if err != nil {
		return usageError(stderr, "mcprig diff", err.Error())
	}
	rep := newReport("diff", rf.failOn)
	rep.add(reportCase{Name: cs[0].File + " -> " + cs[1].File, Old: cs[0].File, New: cs[1].File, Items: driftItems(drifts)})
	code := rep.exit()
	if rf.format != "text" {
		if err := rep.write(stdout, rf.format); err != nil {
			fmt.Fprintf(stderr, "mcprig diff: %v\n", err)
		}
		return code
	}
	by := ""
	if a, b := cs[0].Header.Transport, cs[1].Header.Transport; a != b {
		by = fmt.Sprintf(" (compared by messages: OLD is %s, NEW is %s)", a, b)
	}
	if len(drifts) == 0 {
		fmt.Fprintf(stdout, "no drift between %s and %s%s\n", cs[0].File, cs[1].File, by)
		return code
	}
	fmt.Fprintf(stdout, "--- %s\n+++ %s\n", cs[0].File, cs[1].File)
	if by != "" {
		fmt.Fprintf(stdout, "%s\n", by[1:])
	}
	io.WriteString(stdout, cassette.FormatDrifts(drifts, "OLD", "NEW"))
	io.WriteString(stdout, rep.textVerdict())
	return code
}
