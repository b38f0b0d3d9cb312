package faultspec

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/looprig/mcp/internal/safetext"
)

// Parse reads a fault's text form, KIND[@TARGET][:ARG], by g's kinds. A
// fault that does not read is an [*Error].
func (g *Grammar) Parse(s string) (Spec, error) {
	if s == "" {
		return Spec{}, g.bad(s, "empty: want KIND[@TARGET][:ARG] (FAULTS.md lists the kinds)")
	}
	name, rest := s, ""
	if i := strings.IndexAny(s, "@=:"); i >= 0 {
		name, rest = s[:i], s[i:]
	}
	k, ok := g.kind(name)
	if !ok {
		return Spec{}, g.unknown(s, name)
	}
	sp := Spec{Kind: name}
	hasTarget := rest != "" && rest[0] != ':'
	if hasTarget {
		sp.Old = rest[0] == '='
		rest = rest[1:]
		if k.Target.Need == None {
			return Spec{}, g.noTarget(s, k)
		}
		sp.Target, rest = cutTarget(k, rest)
	}
	if rest != "" {
		sp.Arg, sp.HasArg = rest[1:], true
	}
	if why := g.read(k, &sp, hasTarget); why != "" {
		return Spec{}, g.bad(s, why)
	}
	return sp, nil
}

// cutTarget splits what follows '@' into TARGET and what is left: ":ARG",
// or nothing.
func cutTarget(k Kind, rest string) (target, arg string) {
	i := strings.IndexByte(rest, ':')
	if k.Target.Form == Request {
		switch {
		case k.Arg.Need != None:
			i = strings.LastIndexByte(rest, ':')
		case i < 0 || !isNumber(rest[:i]):
			i = -1 // a request's name may hold ':'
		}
	}
	if i < 0 {
		return rest, ""
	}
	return rest[:i], rest[i:]
}

// Check reads a fault given by its parts, not its text, as Parse would:
// a value of a consumer's Fault type. target and arg are empty for none.
func (g *Grammar) Check(kind, target, arg string, hasArg bool) (Spec, error) {
	text := Format(kind, target, arg, hasArg)
	k, ok := g.kind(kind)
	if !ok {
		return Spec{}, g.unknown(text, kind)
	}
	if target != "" && k.Target.Need == None {
		return Spec{}, g.noTarget(text, k)
	}
	sp := Spec{Kind: kind, Target: target, Arg: arg, HasArg: hasArg}
	if why := g.read(k, &sp, target != ""); why != "" {
		return Spec{}, g.bad(text, why)
	}
	return sp, nil
}

// read checks sp's target and argument against k and fills in what they
// say. It returns what is wrong, or "".
func (g *Grammar) read(k Kind, sp *Spec, hasTarget bool) string {
	switch {
	case k.Target.Need == Required && sp.Target == "":
		return k.Name + " needs a " + k.Target.Name + " (want " + k.Usage() + ")"
	case hasTarget && sp.Target == "":
		return "empty " + k.Target.Name + " (want " + k.Usage() + ")"
	case hasHidden(sp.Target):
		return k.Target.Name + " " + quote(sp.Target) + " holds a control or format character"
	}
	if sp.Target != "" && k.Target.Form == Request {
		if why := sp.readRequest(sp.Target); why != "" {
			return why
		}
	}
	switch {
	case sp.HasArg && k.Arg.Need == None:
		return k.Name + " takes no ARG (want " + k.Usage() + ")"
	case !sp.HasArg && k.Arg.Need == Required:
		return k.Name + " needs :" + k.Arg.Name + " (want " + k.Usage() + ")"
	case !sp.HasArg:
		return ""
	}
	return sp.readArg(k)
}

// readArg reads sp.Arg by k's form. It returns what is wrong, or "".
func (sp *Spec) readArg(k Kind) string {
	a := k.Arg
	switch a.Form {
	case Duration:
		d, err := time.ParseDuration(sp.Arg)
		if err != nil || d <= 0 {
			return k.Name + " takes a positive duration as " + a.Name + " (200ms, 1s), not " + quote(sp.Arg)
		}
		sp.Duration = d
	case Number:
		n, err := strconv.Atoi(sp.Arg)
		if err != nil || !isNumber(sp.Arg) || !within(n, a.In) {
			return k.Name + " takes a " + a.Name + " " + ranges(a.In) + ", not " + quote(sp.Arg)
		}
		sp.Number = n
	case Word:
		if sp.Arg != a.Name {
			return k.Name + " takes no ARG or " + quote(a.Name) + ", not " + quote(sp.Arg)
		}
	}
	return ""
}

// readRequest reads a Request target: N or METHOD[=NAME][#NTH]. It
// returns what is wrong, or "".
func (sp *Spec) readRequest(t string) string {
	if isNumber(t) {
		n, err := strconv.Atoi(t)
		if err != nil || n < 1 {
			return "N must be a message number from 1, not " + t
		}
		sp.Message = n
		return ""
	}
	if i := strings.LastIndexByte(t, '#'); i >= 0 && isNumber(t[i+1:]) {
		n, err := strconv.Atoi(t[i+1:])
		if err != nil || n < 1 {
			return "NTH counts from 1, not " + t[i+1:]
		}
		sp.Nth, t = n, t[:i]
	}
	method, name, _ := strings.Cut(t, "=")
	if !strings.Contains(method, "/") && method != "ping" && method != "initialize" || strings.ContainsAny(method, " \t") {
		return "TARGET must be a message number or a request's method (tools/call, ping, …), not " + quote(method)
	}
	sp.Method, sp.Name = method, name
	return ""
}

// quote returns s in double quotes, its control characters visible.
func quote(s string) string { return `"` + safetext.Line(s) + `"` }

func (g *Grammar) bad(text, why string) *Error {
	return &Error{Owner: g.Owner, Text: text, Why: why, Class: g.Class}
}

func (g *Grammar) unknown(text, kind string) *Error {
	return g.bad(text, "unknown kind "+quote(kind)+" (FAULTS.md lists the kinds)")
}

func (g *Grammar) noTarget(text string, k Kind) *Error {
	return g.bad(text, k.Name+" takes no TARGET (want "+k.Usage()+")")
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// hasHidden reports whether s holds a character safetext shows escaped,
// or is not UTF-8.
func hasHidden(s string) bool {
	return safetext.Line(s) != s || !utf8.ValidString(s)
}

func within(n int, in []Range) bool {
	for _, r := range in {
		if n >= r.Min && n <= r.Max {
			return true
		}
	}
	return false
}

// ranges writes in for an error or the document: "from 1", "301, 302 or 500 to 599".
func ranges(in []Range) string {
	parts := make([]string, len(in))
	for i, r := range in {
		switch {
		case r.Min == r.Max:
			parts[i] = strconv.Itoa(r.Min)
		case r.Max == maxInt:
			parts[i] = "from " + strconv.Itoa(r.Min)
		default:
			parts[i] = strconv.Itoa(r.Min) + " to " + strconv.Itoa(r.Max)
		}
	}
	if len(parts) <= 1 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}
