package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/safetext"
)

// Exit statuses of diff, verify and check: stable, documented in
// mcprig help and the package doc.
const (
	exitOK     = 0 // nothing at or above --fail-on
	exitFail   = 1 // drift or findings at or above --fail-on
	exitUsage  = 2 // a usage error, or a cassette that does not load
	exitNotRun = 3 // the live server could not be run, or its session failed
)

// reportSchema names the JSON report's schema and its version (REPORT.md).
const reportSchema = "looprig.mcprig.report/v1"

// A report is what diff, verify and check found, in every format.
type report struct {
	Schema  string            `json:"schema"`
	Command string            `json:"command"` // "diff", "verify", "check"
	FailOn  cassette.Severity `json:"failOn"`
	Exit    int               `json:"exit"`
	Counts  map[string]int    `json:"counts"` // items by severity, every severity present
	Cases   []reportCase      `json:"cases"`
}

// A reportCase is one cassette compared or verified, or one check of one
// catalog.
type reportCase struct {
	Name   string       `json:"name"`
	Old    string       `json:"old,omitempty"` // diff: OLD; verify: the cassette
	New    string       `json:"new,omitempty"` // diff: NEW; verify: the live server
	Error  string       `json:"error,omitempty"`
	Failed bool         `json:"failed"` // an item at or above failOn, or an error
	Items  []reportItem `json:"items"`
}

// A reportItem is one drift or finding.
type reportItem struct {
	Severity cassette.Severity `json:"severity"`
	Kind     string            `json:"kind"` // "session", "catalog", "result", or a check's name
	Subject  string            `json:"subject"`
	Reason   string            `json:"reason"`
	Detail   string            `json:"detail,omitempty"`
	OldLine  int               `json:"oldLine,omitempty"`
	NewLine  int               `json:"newLine,omitempty"`
	Diff     string            `json:"diff,omitempty"`
}

// reportFlags are the flags every reporting command shares.
type reportFlags struct {
	format string
	failOn cassette.Severity
}

func (f *reportFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.format, "format", "text", "write the report as `FORMAT`: text, junit, json or markdown")
	fs.TextVar(&f.failOn, "fail-on", cassette.SeverityInfo, "exit 1 on drift or findings of `LEVEL` or worse: info, minor, dangerous or breaking")
}

// check returns an error for a format no renderer writes.
func (f *reportFlags) check() error {
	switch f.format {
	case "text", "junit", "json", "markdown":
		return nil
	}
	return fmt.Errorf("--format %q: want text, junit, json or markdown", f.format)
}

func newReport(command string, failOn cassette.Severity) *report {
	return &report{Schema: reportSchema, Command: command, FailOn: failOn, Counts: map[string]int{}}
}

// add adds c, marks it failed if it holds an item at or above failOn, and
// counts its items.
func (r *report) add(c reportCase) {
	for _, it := range c.Items {
		r.Counts[it.Severity.String()]++
		if it.Severity >= r.FailOn {
			c.Failed = true
		}
	}
	if c.Error != "" {
		c.Failed = true
	}
	if c.Items == nil {
		c.Items = []reportItem{}
	}
	r.Cases = append(r.Cases, c)
}

// exit returns the report's exit status, and records it.
func (r *report) exit() int {
	r.Exit = exitOK
	for _, c := range r.Cases {
		switch {
		case c.Error != "":
			r.Exit = exitNotRun
			return r.Exit
		case c.Failed:
			r.Exit = exitFail
		}
	}
	return r.Exit
}

// driftItems turns drifts into report items.
func driftItems(ds []cassette.Drift) []reportItem {
	out := make([]reportItem, len(ds))
	for i, d := range ds {
		out[i] = reportItem{Severity: d.Severity, Kind: d.Kind, Subject: d.Subject, Reason: d.Reason, Detail: d.Detail, OldLine: d.Line, NewLine: d.NewLine, Diff: d.Diff}
	}
	return out
}

// write writes the report in format (not text: each command writes its
// own text).
func (r *report) write(w io.Writer, format string) error {
	for _, s := range cassette.Severities {
		r.Counts[s.String()] += 0
	}
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "junit":
		return writeJUnit(w, r)
	case "markdown":
		_, err := io.WriteString(w, markdown(r))
		return err
	}
	return fmt.Errorf("report format %q", format)
}

// summary says how many items of each severity there are, worst first:
// "1 breaking, 2 minor"; "nothing" when there are none.
func (r *report) summary() string {
	var parts []string
	for i := len(cassette.Severities) - 1; i >= 0; i-- {
		s := cassette.Severities[i]
		if n := r.Counts[s.String()]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// textVerdict is the last line of a text report with drift.
func (r *report) textVerdict() string {
	verdict := "below it: exit 0"
	if r.Exit == exitFail {
		verdict = "at or above it: exit 1"
	}
	return fmt.Sprintf("\n%s; --fail-on %s, %s\n", r.summary(), r.FailOn, verdict)
}

// visible returns s with its control and format characters written as
// escapes, newlines and tabs kept: the one rule, safetext's.
func visible(s string) string { return safetext.Text(s) }
