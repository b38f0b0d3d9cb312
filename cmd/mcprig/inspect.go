package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/safetext"
	"github.com/looprig/mcp/internal/transcript"
)

const inspectUsage = `usage: mcprig inspect [--format text|mermaid|html] [-o FILE] FILE

Shows the cassette FILE, whatever its transport and revision:

  --format text (the default): its transport and protocol revision, the
    server and client, the catalog it published (tools with their
    descriptions, resources, templates, prompts), every call in order
    (method, tool, short arguments, and a summary of the answer), the
    notifications by method, how the session ended, the recorded stderr
    and, for Streamable HTTP, its streams (drops, resumes, statuses).
    A task (the tasks extension) reads as a task: its handle, the first
    poll of each state, the polls repeating it counted on one line
    ("29 more polls of task T answered working (#17–#74)"), the result.
  --format mermaid: a Mermaid sequence diagram of the session: client and
    server, an arrow per message (requests, answers, notifications,
    server requests, continuations), notes for drops, resumes, failed
    requests and the ending; a task's repeated polls are one note, the
    arrows after it keeping their numbers. GitHub renders it in
    Markdown, in a mermaid code block.
  --format html: one self-contained HTML page (nothing loaded from the
    network) with a timeline of the session whose messages expand (a
    task's repeated polls in one group that expands);
    FILE.html#m12 opens message 12. A page shows the first 10,000
    messages and says so when there are more; a message whose indented
    JSON would be more than 4 times its size is shown compact.

Whatever the format, the cassette's control characters (terminal escapes,
bidi overrides, bytes that are not UTF-8) are shown as escapes: \x1b,
\u202e, \xff.

Messages are numbered (#N; the diagram's arrow numbers) in line order, as
cassette.Message numbers them and replay faults name them (--fault). Cassettes hold no clocks, so there
are no timings to show.

Exit status: 0, or 2 when FILE does not load (the error names the line).

Flags:
`

func runInspect(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("mcprig inspect", inspectUsage, stderr)
	format := fs.String("format", "text", "what to print: `text`, mermaid or html")
	out := fs.String("o", "", "write to `FILE` instead of standard output")
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "mcprig inspect", "want exactly one cassette FILE")
	}
	write, ok := formats[*format]
	if !ok {
		return usageError(stderr, "mcprig inspect", fmt.Sprintf("--format %q: want text, mermaid or html", *format))
	}
	c, err := cassette.Load(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "mcprig inspect: %v\n", err)
		return 2
	}
	if err := inspectTo(*out, stdout, write, c); err != nil {
		fmt.Fprintf(stderr, "mcprig inspect: %v\n", err)
		return 1
	}
	return 0
}

// inspectTo writes c with write to the file out, or to stdout when out is
// "", as it goes: the cassette's control characters made visible, whatever
// the format.
func inspectTo(out string, stdout io.Writer, write func(*bufio.Writer, *cassette.Cassette), c *cassette.Cassette) error {
	dst := stdout
	var f *os.File
	if out != "" {
		var err error
		if f, err = os.Create(out); err != nil {
			return err
		}
		dst = f
	}
	safe := safetext.NewWriter(dst)
	w := bufio.NewWriterSize(safe, 64<<10)
	write(w, c)
	err := errors.Join(w.Flush(), safe.Flush())
	if f != nil {
		err = errors.Join(err, f.Close())
	}
	return err
}

// formats are inspect's outputs.
var formats = map[string]func(*bufio.Writer, *cassette.Cassette){
	"text":    writeText,
	"mermaid": writeMermaid,
	"html":    writeHTML,
}

// readCassette reads what c's messages say.
func readCassette(c *cassette.Cassette) *transcript.Session {
	ms := c.Messages()
	msgs := make([]transcript.Message, len(ms))
	for i, m := range ms {
		msgs[i] = transcript.Message{Number: m.Number, Line: m.Line, From: m.From, Raw: m.Message}
	}
	s := transcript.Read(msgs, nil)
	s.Protocol = c.Header.Protocol
	if s.ServerName == "" {
		s.ServerName = c.Header.Server
	}
	return s
}

// writeText writes the readable summary. Each field of one line is kept
// on its line: a recorded newline in it is shown as \n (safetext.Line), so
// that it cannot start a line that looks like inspect's own.
func writeText(w *bufio.Writer, c *cassette.Cassette) {
	s := readCassette(c)
	fmt.Fprintf(w, "cassette:  %s\n", safetext.Line(c.File))
	fmt.Fprintf(w, "transport: %s\n", safetext.Line(c.Header.Transport))
	fmt.Fprintf(w, "protocol:  %s\n", safetext.Line(c.Header.Protocol))
	if len(c.Header.Volatile) > 0 {
		quoted := make([]string, len(c.Header.Volatile))
		for i, p := range c.Header.Volatile {
			quoted[i] = strconv.QuoteToASCII(p) // control characters made visible
		}
		fmt.Fprintf(w, "volatile:  %s\n", strings.Join(quoted, ", "))
	}
	if c.Header.Redaction != "" {
		fmt.Fprintf(w, "redaction: %s\n", safetext.Line(c.Header.Redaction)) // checked: sha256: and hex
	}
	fmt.Fprintf(w, "server:    %s\n", safetext.Line(strings.TrimSpace(s.ServerName+" "+s.ServerVersion)))
	if s.ClientName != "" {
		fmt.Fprintf(w, "client:    %s\n", safetext.Line(strings.TrimSpace(s.ClientName+" "+s.ClientVersion)))
	}
	if len(s.Capabilities) > 0 {
		fmt.Fprintf(w, "capabilities: %s\n", safetext.Line(strings.Join(s.Capabilities, ", ")))
	}
	fmt.Fprintf(w, "messages:  %d\n", s.Messages)
	for _, k := range transcript.Kinds {
		items, listed := s.Catalog[k]
		if !listed {
			continue
		}
		fmt.Fprintf(w, "\n%s (%d):\n", k, len(items))
		for _, it := range items {
			line := "  " + safetext.Line(it.Key)
			d, _ := it.Tree["description"].(string)
			if fm, ok := it.Tree["frontmatter"].(map[string]any); ok && d == "" { // a skill's
				d, _ = fm["description"].(string)
			}
			if d != "" {
				line += ": " + transcript.Short(d, 100)
			}
			fmt.Fprintln(w, line)
		}
	}
	writeCalls(w, s)
	if len(s.Notifications) > 0 {
		n := 0
		keys := make([]string, 0, len(s.Notifications))
		for k, v := range s.Notifications {
			keys = append(keys, k)
			n += v
		}
		sort.Strings(keys)
		fmt.Fprintf(w, "\nnotifications (%d):\n", n)
		for _, k := range keys {
			from, method, _ := strings.Cut(k, " ")
			fmt.Fprintf(w, "  %-6s %s: %d\n", safetext.Line(from), safetext.Line(method), s.Notifications[k])
		}
	}
	if h := readHTTP(c); h != nil {
		h.write(w)
	}
	if e, line := sessionEnding(c); e != nil {
		fmt.Fprintf(w, "\nending (line %d): %s\n", line, safetext.Line(describeEnding(e, listens(c))))
		if e.Stderr != "" {
			fmt.Fprintf(w, "\nstderr (%d bytes), last lines:\n", len(e.Stderr))
			lines := strings.Split(strings.TrimRight(e.Stderr, "\n"), "\n")
			for _, l := range lines[max(0, len(lines)-5):] {
				fmt.Fprintf(w, "  %s\n", transcript.Short(l, 120))
			}
		}
	}
}

// sessionEnding returns the session's ending and its line.
func sessionEnding(c *cassette.Cassette) (*cassette.Ending, int) {
	for i := len(c.Interactions) - 1; i >= 0; i-- {
		if in := &c.Interactions[i]; in.Kind == cassette.KindClose && in.HTTP == nil {
			return in.Ending, c.Line(i)
		}
	}
	return nil, 0
}

// listens returns the ids (as written) of the client's
// subscriptions/listen requests in c.
func listens(c *cassette.Cassette) map[string]bool {
	ids := map[string]bool{}
	for _, m := range c.Messages() {
		var r struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if m.From == cassette.FromClient && json.Unmarshal(m.Message, &r) == nil && r.Method == "subscriptions/listen" && len(r.ID) > 0 {
			ids[string(r.ID)] = true
		}
	}
	return ids
}

// describeEnding says how a session or stream ended. listens are the ids
// of the session's subscriptions/listen requests: one pending at the end
// is a subscription the client held open, not a lost call.
func describeEnding(e *cassette.Ending, listens map[string]bool) string {
	var s string
	switch e.End {
	case cassette.EndClient:
		s = "closed by the client"
		var calls, subs []string
		for _, id := range e.Pending {
			if listens[string(id)] {
				subs = append(subs, string(id))
			} else {
				calls = append(calls, string(id))
			}
		}
		if len(calls) > 0 {
			s += fmt.Sprintf(", %d call(s) unanswered (id %s)", len(calls), strings.Join(calls, ", "))
		}
		if len(subs) > 0 {
			s += fmt.Sprintf(", %d subscription(s) open (subscriptions/listen id %s)", len(subs), strings.Join(subs, ", "))
		}
	case cassette.EndEOF:
		s = "the server ended it"
	case cassette.EndError:
		s = "reading failed"
	case cassette.EndDropped:
		s = "dropped"
	case cassette.EndSession:
		s = "open when the session ended"
	default:
		s = e.End
	}
	if x := e.Exit; x != nil {
		if x.Signal != "" {
			s += ", killed by " + x.Signal
		} else {
			s += fmt.Sprintf(", exit status %d", x.Code)
		}
	}
	if e.Class != 0 {
		s += ", class " + e.Class.String()
	}
	if e.Error != "" {
		s += ": " + transcript.Short(e.Error, 120)
	}
	return s
}

// httpStats is what inspect shows of a Streamable HTTP session's streams.
type httpStats struct {
	streams  int
	methods  map[string]int // requests by HTTP method
	statuses map[int]int    // responses by status
	drops    []int          // lines of dropped streams
	resumes  []int          // lines of GETs with Last-Event-ID
	failed   []int          // lines of requests that failed before any response
	sessions []string       // Mcp-Session-Id values, in order of first appearance
}

func readHTTP(c *cassette.Cassette) *httpStats {
	if c.Kind().String() != "streamablehttp" {
		return nil
	}
	h := &httpStats{methods: map[string]int{}, statuses: map[int]int{}}
	for i := range c.Interactions {
		in := &c.Interactions[i]
		if in.HTTP == nil {
			continue
		}
		switch in.Kind {
		case cassette.KindRequest:
			h.streams++
			h.methods[in.HTTP.Method]++
			if in.HTTP.Headers.Get("Last-Event-ID") != "" {
				h.resumes = append(h.resumes, c.Line(i))
			}
		case cassette.KindResponse:
			h.statuses[in.HTTP.Status]++
			if id := in.HTTP.Headers.Get("Mcp-Session-Id"); id != "" && !contains(h.sessions, id) {
				h.sessions = append(h.sessions, id)
			}
		case cassette.KindClose:
			switch in.Ending.End {
			case cassette.EndDropped:
				h.drops = append(h.drops, c.Line(i))
			case cassette.EndError:
				h.failed = append(h.failed, c.Line(i))
			}
		}
	}
	return h
}

func (h *httpStats) write(w *bufio.Writer) {
	var methods []string
	for m, n := range h.methods {
		methods = append(methods, fmt.Sprintf("%s %d", m, n))
	}
	sort.Strings(methods)
	var statuses []string
	for s, n := range h.statuses {
		statuses = append(statuses, fmt.Sprintf("%d: %d", s, n))
	}
	sort.Strings(statuses)
	fmt.Fprintf(w, "\nhttp: %d streams (%s); statuses %s\n", h.streams, safetext.Line(strings.Join(methods, ", ")), strings.Join(statuses, ", "))
	if len(h.sessions) > 0 {
		fmt.Fprintf(w, "  session: %s\n", safetext.Line(strings.Join(h.sessions, ", ")))
	}
	for _, f := range []struct {
		name  string
		lines []int
	}{{"dropped", h.drops}, {"resumed", h.resumes}, {"failed before a response", h.failed}} {
		if len(f.lines) > 0 {
			fmt.Fprintf(w, "  %s: line %s\n", f.name, joinInts(f.lines))
		}
	}
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
