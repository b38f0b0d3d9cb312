package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// JUnit XML as GitHub, GitLab and Jenkins read it: one testsuite per
// command, a testcase per cassette compared or verified and per check of
// each catalog.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// writeJUnit writes r as JUnit XML. Items at or above --fail-on are the
// failure's text; those below go to system-out. Strings are made visible
// first; encoding/xml escapes the rest.
func writeJUnit(w io.Writer, r *report) error {
	suite := junitSuite{Name: "mcprig " + r.Command, Time: "0"}
	for _, c := range r.Cases {
		jc := junitCase{Name: visible(c.Name), Classname: "mcprig." + r.Command, Time: "0"}
		var fail, pass strings.Builder
		for _, it := range c.Items {
			b := &pass
			if it.Severity >= r.FailOn {
				b = &fail
			}
			writeItemText(b, it)
		}
		switch {
		case c.Error != "":
			jc.Error = &junitProblem{Message: visible(c.Error), Type: "error", Text: visible(c.Error)}
			suite.Errors++
		case c.Failed:
			jc.Failure = &junitProblem{Message: fmt.Sprintf("%s at or above %s", itemCounts(c.Items, r), r.FailOn), Type: worst(c.Items).String(), Text: visible(fail.String())}
			suite.Failures++
		}
		jc.SystemOut = visible(pass.String())
		suite.Cases = append(suite.Cases, jc)
	}
	suite.Tests = len(suite.Cases)
	all := junitSuites{Name: suite.Name, Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// writeItemText writes one item as a line, its detail and its diff.
func writeItemText(b *strings.Builder, it reportItem) {
	fmt.Fprintf(b, "[%s] %s %s: %s", it.Severity, it.Kind, it.Subject, it.Reason)
	if it.Detail != "" {
		fmt.Fprintf(b, ": %s", it.Detail)
	}
	b.WriteString("\n")
	if it.Diff != "" {
		for _, l := range strings.SplitAfter(strings.TrimSuffix(it.Diff, "\n"), "\n") {
			b.WriteString("    " + strings.TrimSuffix(l, "\n") + "\n")
		}
	}
}

// itemCounts counts the items of a case at or above failOn: "2 drifts".
func itemCounts(items []reportItem, r *report) string {
	n := 0
	for _, it := range items {
		if it.Severity >= r.FailOn {
			n++
		}
	}
	noun := "drift"
	if r.Command == "check" {
		noun = "finding"
	}
	if n != 1 {
		noun += "s"
	}
	return fmt.Sprintf("%d %s", n, noun)
}
