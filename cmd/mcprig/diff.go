package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
)

const diffUsage = `usage: mcprig diff OLD NEW

Compares two cassettes of the same server and reports drift:

  - session drift: the transport, protocol revision, server name or version
    changed;
  - catalog drift: tools (and resources, templates, prompts) added, removed
    or changed, with a diff of what changed (description, input or output
    schema, annotations);
  - result drift: the same call (same method and arguments, in order) gave a
    different result or error, with a diff; calls made in only one of them.

Request ids and "_meta" are ignored. Diffs read (-OLD +NEW).

Exit status: 0 when nothing drifted, 1 on drift, 2 on a usage error or a
cassette that does not load (the error names the file and line).
`

func runDiff(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("mcprig diff", diffUsage, stderr)
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if fs.NArg() != 2 {
		return usageError(stderr, "mcprig diff", "want two cassettes, OLD and NEW")
	}
	var ss [2]*session
	for i, path := range fs.Args() {
		c, err := cassette.Load(path)
		if err == nil {
			ss[i], err = readSession(c)
		}
		if err != nil {
			fmt.Fprintf(stderr, "mcprig diff: %v\n", err)
			return 2
		}
	}
	report := diffSessions(ss[0], ss[1])
	if report == "" {
		fmt.Fprintf(stdout, "no drift between %s and %s\n", ss[0].file, ss[1].file)
		return 0
	}
	fmt.Fprintf(stdout, "--- %s\n+++ %s\n%s", ss[0].file, ss[1].file, report)
	return 1
}

// diffSessions returns the drift between old and new, "" if there is none.
func diffSessions(old, new *session) string {
	var b strings.Builder
	section := func(name string, lines []string) {
		if len(lines) > 0 {
			fmt.Fprintf(&b, "\n%s:\n%s", name, strings.Join(lines, ""))
		}
	}
	section("session drift", diffHeaders(old, new))
	section("catalog drift", diffCatalogs(old, new))
	section("result drift", diffCalls(old, new))
	return b.String()
}

func diffHeaders(old, new *session) []string {
	var out []string
	for _, f := range []struct{ name, old, new string }{
		{"transport", old.header.Transport, new.header.Transport},
		{"protocol", old.header.Protocol, new.header.Protocol},
		{"server", old.header.Server, new.header.Server},
		{"server version", old.serverVersion, new.serverVersion},
	} {
		if f.old != f.new {
			out = append(out, fmt.Sprintf("  %s: %q -> %q\n", f.name, f.old, f.new))
		}
	}
	return out
}

// diffCatalogs compares each catalog kind by key.
func diffCatalogs(old, new *session) []string {
	var out []string
	for _, kind := range catalogKinds {
		noun := strings.TrimSuffix(kind, "s")
		_, inOld := old.catalog[kind]
		_, inNew := new.catalog[kind]
		if inOld != inNew {
			out = append(out, fmt.Sprintf("  %s listed only in %s\n", kind, map[bool]string{true: "OLD", false: "NEW"}[inOld]))
			continue
		}
		was := map[string]map[string]any{}
		for _, it := range old.catalog[kind] {
			was[it.key] = it.tree
		}
		now := map[string]bool{}
		for _, it := range new.catalog[kind] {
			now[it.key] = true
			prev, ok := was[it.key]
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("  %s %q added\n", noun, it.key))
			default:
				if d := cmp.Diff(prev, it.tree); d != "" {
					out = append(out, fmt.Sprintf("  %s %q changed (-OLD +NEW):\n%s", noun, it.key, indent(d, "    ")))
				}
			}
		}
		for _, it := range old.catalog[kind] {
			if !now[it.key] {
				out = append(out, fmt.Sprintf("  %s %q removed\n", noun, it.key))
			}
		}
	}
	return out
}

// diffCalls pairs each call in old with the first call in new, not yet
// paired, of the same sender, method and params, and compares their answers.
func diffCalls(old, new *session) []string {
	var out []string
	used := make([]bool, len(new.calls))
	for _, o := range old.calls {
		j := -1
		for k, n := range new.calls {
			if !used[k] && n.from == o.from && n.method == o.method && cmp.Equal(n.params, o.params) {
				j = k
				break
			}
		}
		if j < 0 {
			out = append(out, fmt.Sprintf("  %s (OLD line %d): not called in NEW\n", o.describe(), o.line))
			continue
		}
		used[j] = true
		n := new.calls[j]
		if d := cmp.Diff(o.answer(), n.answer()); d != "" {
			out = append(out, fmt.Sprintf("  %s (OLD line %d, NEW line %d) (-OLD +NEW):\n%s", o.describe(), o.line, n.line, indent(d, "    ")))
		}
	}
	for k, n := range new.calls {
		if !used[k] {
			out = append(out, fmt.Sprintf("  %s (NEW line %d): not called in OLD\n", n.describe(), n.line))
		}
	}
	return out
}

// answer is what a call's answer is compared by.
func (c *call) answer() map[string]any {
	switch {
	case !c.answered:
		return map[string]any{"answered": false}
	case c.err != nil:
		e := map[string]any{"code": c.err.Code, "message": c.err.Message}
		if d := decode(c.err.Data); d != nil {
			e["data"] = d
		}
		return map[string]any{"error": e}
	}
	return map[string]any{"result": c.result}
}

// indent indents a go-cmp diff for the report. go-cmp randomly marks
// unchanged lines with non-breaking spaces, so that no one relies on its
// output; the report shows plain spaces.
func indent(s, prefix string) string {
	s = strings.ReplaceAll(s, "\u00a0", " ")
	lines := strings.SplitAfter(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "") + "\n"
}
