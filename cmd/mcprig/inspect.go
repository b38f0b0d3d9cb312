package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/looprig/mcp/cassette"
)

const inspectUsage = `usage: mcprig inspect FILE

Prints a readable summary of the cassette FILE: its transport and protocol
revision, the server, the catalog it published (tools with their
descriptions, resources, prompts), every call in order (method, tool, short
arguments, and a summary of the result or the error), the notifications by
method, and the recorded stderr. Cassettes hold no clocks, so there are no
timings to show.

Exit status: 0, or 2 when FILE does not load (the error names the line).
`

func runInspect(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("mcprig inspect", inspectUsage, stderr)
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "mcprig inspect", "want exactly one cassette FILE")
	}
	c, err := cassette.Load(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "mcprig inspect: %v\n", err)
		return 2
	}
	s, err := readSession(c)
	if err != nil {
		fmt.Fprintf(stderr, "mcprig inspect: %v\n", err)
		return 2
	}
	s.print(stdout)
	return 0
}

// print writes the summary.
func (s *session) print(w io.Writer) {
	fmt.Fprintf(w, "cassette:  %s\n", s.file)
	fmt.Fprintf(w, "transport: %s\n", s.header.Transport)
	fmt.Fprintf(w, "protocol:  %s\n", s.header.Protocol)
	fmt.Fprintf(w, "server:    %s\n", strings.TrimSpace(s.header.Server+" "+s.serverVersion))
	if s.clientName != "" {
		fmt.Fprintf(w, "client:    %s\n", s.clientName)
	}
	if len(s.capabilities) > 0 {
		fmt.Fprintf(w, "capabilities: %s\n", strings.Join(s.capabilities, ", "))
	}
	fmt.Fprintf(w, "messages:  %d\n", s.messages)
	for _, k := range catalogKinds {
		items, listed := s.catalog[k]
		if !listed {
			continue
		}
		fmt.Fprintf(w, "\n%s (%d):\n", k, len(items))
		for _, it := range items {
			line := "  " + it.key
			if d, _ := it.tree["description"].(string); d != "" {
				line += ": " + short(d, 100)
			}
			fmt.Fprintln(w, line)
		}
	}
	fmt.Fprintf(w, "\ncalls (%d):\n", len(s.calls))
	for _, c := range s.calls {
		fmt.Fprintf(w, "  line %d: %s\n", c.line, c.describe())
		fmt.Fprintf(w, "    -> %s\n", c.summary())
	}
	if len(s.notifications) > 0 {
		n := 0
		keys := make([]string, 0, len(s.notifications))
		for k, v := range s.notifications {
			keys = append(keys, k)
			n += v
		}
		sort.Strings(keys)
		fmt.Fprintf(w, "\nnotifications (%d):\n", n)
		for _, k := range keys {
			from, method, _ := strings.Cut(k, " ")
			fmt.Fprintf(w, "  %-6s %s: %d\n", from, method, s.notifications[k])
		}
	}
	if len(s.other) > 0 {
		keys := make([]string, 0, len(s.other))
		for k := range s.other {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintln(w, "\nother interactions:")
		for _, k := range keys {
			fmt.Fprintf(w, "  %s: %d\n", k, s.other[k])
		}
	}
	if s.stderr != "" {
		fmt.Fprintf(w, "\nstderr (%d bytes), last lines:\n", len(s.stderr))
		lines := strings.Split(strings.TrimRight(s.stderr, "\n"), "\n")
		for _, l := range lines[max(0, len(lines)-5):] {
			fmt.Fprintf(w, "  %s\n", short(l, 120))
		}
	}
}

// describe says what was called: the method, and for the usual methods
// their subject and short arguments.
func (c *call) describe() string {
	d := c.method
	if c.from == cassette.FromServer {
		d = "(server asks) " + d
	}
	switch c.method {
	case "tools/call":
		d += " " + c.tool()
		if args, ok := c.params["arguments"]; ok {
			d += " " + short(compact(args), 80)
		}
	case "prompts/get":
		name, _ := c.params["name"].(string)
		d += " " + name
		if args, ok := c.params["arguments"]; ok {
			d += " " + short(compact(args), 80)
		}
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		uri, _ := c.params["uri"].(string)
		d += " " + uri
	default:
		if len(c.params) > 0 {
			d += " " + short(compact(c.params), 80)
		}
	}
	return d
}

// summary says what the call returned.
func (c *call) summary() string {
	switch {
	case !c.answered:
		return "no answer recorded"
	case c.err != nil:
		return fmt.Sprintf("error %d: %s", c.err.Code, short(c.err.Message, 100))
	}
	res, _ := c.result.(map[string]any)
	switch c.method {
	case "tools/call":
		s := contentSummary(res["content"])
		if _, ok := res["structuredContent"]; ok {
			s += " +structured"
		}
		if isErr, _ := res["isError"].(bool); isErr {
			s = "tool error: " + s
		}
		return s
	case "prompts/get":
		msgs, _ := res["messages"].([]any)
		return fmt.Sprintf("%d message(s)", len(msgs))
	case "resources/read":
		contents, _ := res["contents"].([]any)
		var parts []string
		for _, it := range contents {
			obj, _ := it.(map[string]any)
			if t, ok := obj["text"].(string); ok {
				parts = append(parts, fmt.Sprintf("%q", short(t, 60)))
			} else {
				parts = append(parts, "[blob]")
			}
		}
		return strings.Join(parts, ", ")
	}
	if len(res) == 0 {
		return "ok"
	}
	return short(compact(res), 100)
}

// contentSummary summarises a content list: text quoted and shortened,
// other kinds by type.
func contentSummary(v any) string {
	items, _ := v.([]any)
	if len(items) == 0 {
		return "no content"
	}
	var parts []string
	for _, it := range items {
		obj, _ := it.(map[string]any)
		typ, _ := obj["type"].(string)
		if t, ok := obj["text"].(string); ok && typ == "text" {
			parts = append(parts, fmt.Sprintf("%q", short(t, 60)))
			continue
		}
		parts = append(parts, "["+typ+"]")
	}
	return strings.Join(parts, ", ")
}

// short cuts s to at most n runes, marking the cut with "…", and puts it on
// one line.
func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
