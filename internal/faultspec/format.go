package faultspec

import (
	"math"
	"strconv"
	"strings"
)

const maxInt = math.MaxInt

// From returns the integers from min up.
func From(min int) []Range { return []Range{{min, maxInt}} }

// Format returns a fault's text form from its parts: KIND[@TARGET][:ARG].
// target is empty for none; arg is written when hasArg.
func Format(kind, target, arg string, hasArg bool) string {
	s := kind
	if target != "" {
		s += "@" + target
	}
	if hasArg {
		s += ":" + arg
	}
	return s
}

// RequestTarget returns a Request TARGET: the message number, or, when
// method is set, METHOD[=NAME][#NTH]. #NTH is written when nth is over 1,
// or when name ends in '#' and digits, which would read as #NTH.
func RequestTarget(message int, method, name string, nth int) string {
	if method == "" {
		return strconv.Itoa(message)
	}
	s := method
	if name != "" {
		s += "=" + name
	}
	if nth > 1 || nth == 1 && endsInNumber(name) {
		s += "#" + strconv.Itoa(nth)
	}
	return s
}

// endsInNumber reports whether a name ends in '#' and digits.
func endsInNumber(name string) bool {
	i := strings.LastIndexByte(name, '#')
	return i >= 0 && isNumber(name[i+1:])
}

// Row returns the kind's row in FAULTS.md's table: its text form, its
// package, where it acts, its target and its argument.
func Row(owner string, k Kind, where string) string {
	return "| `" + k.Usage() + "` | " + owner + " | " + where + " | " + k.Target.doc() + " | " + k.Arg.doc() + " |"
}

func (t Target) doc() string {
	switch {
	case t.Need == None:
		return "none"
	case t.Form == Request:
		return "N, a message number from 1, or METHOD[=NAME][#NTH]"
	case t.Need == Optional:
		return t.Name + ", optional"
	}
	return t.Name
}

func (a Arg) doc() string {
	var s string
	switch a.Form {
	case Duration:
		s = a.Name + ", a positive duration"
	case Number:
		s = a.Name + ", " + ranges(a.In)
	case Text:
		s = a.Name + ", any text"
	case Word:
		s = "`" + a.Name + "`"
	}
	switch {
	case a.Need == None:
		return "none"
	case a.Need == Optional && a.Default != "":
		s += ", optional (default " + a.Default + ")"
	case a.Need == Optional:
		s += ", optional"
	}
	return s
}

// Allows reports whether a Number ARG may be n.
func (a Arg) Allows(n int) bool { return within(n, a.In) }

// Rows returns the rows of doc's table of kinds (FAULTS.md) whose package
// is owner, or every row when owner is empty.
func Rows(doc, owner string) []string {
	var rows []string
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, " | ")
		if owner == "" || len(cells) > 1 && cells[1] == owner {
			rows = append(rows, line)
		}
	}
	return rows
}
