package main

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
)

// A Change is one line of apidiff's report.
type Change struct {
	Package string // the package's path in the module ("transport/stdio"), or its import path for a package added or removed
	What    string // the rest of the line: "New: added", "removed"
}

// A Report is what apidiff found between the release and now.
type Report struct {
	Incompatible []Change
	Compatible   []Change
}

// ParseReport reads apidiff's text report in module mode (-m): an
// "Incompatible changes:" and a "Compatible changes:" section, each a list
// of "- ./PKG.NAME: CHANGE" or "- package PATH: CHANGE" lines. A line it
// cannot place is an error, so that a changed report format fails the
// check rather than passing it.
func ParseReport(r io.Reader) (Report, error) {
	var rep Report
	var section *[]Change
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
		case line == "Incompatible changes:":
			section = &rep.Incompatible
		case line == "Compatible changes:":
			section = &rep.Compatible
		case strings.HasPrefix(line, "- ") && section != nil:
			c, err := parseChange(strings.TrimPrefix(line, "- "))
			if err != nil {
				return Report{}, fmt.Errorf("report line %d: %w", n, err)
			}
			*section = append(*section, c)
		default:
			return Report{}, fmt.Errorf("report line %d: unexpected %q", n, line)
		}
	}
	if err := sc.Err(); err != nil {
		return Report{}, fmt.Errorf("reading report: %w", err)
	}
	return rep, nil
}

// parseChange splits "./transport/stdio.(*Transport).Close: removed" into
// its package and the rest.
func parseChange(s string) (Change, error) {
	if rest, ok := strings.CutPrefix(s, "package "); ok {
		path, what, ok := strings.Cut(rest, ": ")
		if !ok {
			return Change{}, fmt.Errorf("package change without a colon: %q", s)
		}
		return Change{Package: path, What: "package " + what}, nil
	}
	name, what, ok := strings.Cut(s, ": ")
	if !ok || !strings.HasPrefix(name, "./") {
		return Change{}, fmt.Errorf("change not of the form ./PKG.NAME: CHANGE: %q", s)
	}
	name = strings.TrimPrefix(name, "./")
	slash := strings.LastIndex(name, "/")
	dot := strings.Index(name[slash+1:], ".")
	if dot < 0 {
		return Change{}, fmt.Errorf("change names no identifier: %q", s)
	}
	dot += slash + 1
	return Change{Package: name[:dot], What: name[dot+1:] + ": " + what}, nil
}

// Write prints the report grouped by package, incompatible changes first.
func (r Report) Write(w io.Writer) {
	writeGroup(w, "incompatible", r.Incompatible)
	writeGroup(w, "compatible", r.Compatible)
}

func writeGroup(w io.Writer, title string, changes []Change) {
	fmt.Fprintf(w, "%s changes: %d\n", title, len(changes))
	byPkg := map[string][]string{}
	for _, c := range changes {
		byPkg[c.Package] = append(byPkg[c.Package], c.What)
	}
	pkgs := make([]string, 0, len(byPkg))
	for p := range byPkg {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		fmt.Fprintf(w, "  %s (%d)\n", p, len(byPkg[p]))
		for _, what := range byPkg[p] {
			fmt.Fprintf(w, "    %s\n", what)
		}
	}
}
