package transcript

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// A Severity weighs a drift; higher is worse. cassette.Severity has the
// same values.
type Severity int

// Severities, from the least to the worst.
const (
	Info      Severity = iota + 1 // order, titles, icons, the server's version
	Minor                         // an optional argument added, an argument's description reworded
	Dangerous                     // a description or instructions changed, annotations relaxed, a new tool
	Breaking                      // something removed, a required argument added, a type narrowed, a result's shape changed
)

// A change is one classified difference inside a drift.
type change struct {
	what string
	sev  Severity
}

// A fieldRule classes how one field of a catalog item changed; old or new
// is nil when the field is absent.
type fieldRule func(field string, old, new any) []change

// A kindRule says how the changes of one catalog kind weigh. A field
// without a rule weighs other.
type kindRule struct {
	noun    string
	added   Severity // a new item
	removed Severity // an item gone
	other   Severity // a change of a field without a rule
	fields  map[string]fieldRule
}

func resourceRule(noun string) kindRule {
	return kindRule{noun: noun, added: Minor, removed: Breaking, other: Minor, fields: map[string]fieldRule{
		"description": fixed(Dangerous, "description changed"),
		"title":       fixed(Info, "title changed"),
		"icons":       fixed(Info, "icons changed"),
		"name":        fixed(Info, "name changed"),
		"size":        fixed(Info, "size changed"),
		"annotations": fixed(Info, "annotations changed"),
		"mimeType":    fixed(Breaking, "MIME type changed"),
	}}
}

func fixed(sev Severity, what string) fieldRule {
	return func(string, any, any) []change { return []change{{what, sev}} }
}

// classifyItem returns how an item changed, field by field, in field
// order; nil when nothing did.
func classifyItem(r kindRule, old, new map[string]any) []change {
	var out []change
	for _, f := range unionKeys(old, new) {
		o, n := old[f], new[f]
		if reflect.DeepEqual(o, n) {
			continue
		}
		if rule, ok := r.fields[f]; ok {
			out = append(out, rule(f, o, n)...)
			continue
		}
		out = append(out, change{f + " changed", r.other})
	}
	if len(out) == 0 && !reflect.DeepEqual(old, new) { // no rule saw it: weigh it anyway
		out = append(out, change{"changed", r.other})
	}
	return out
}

// hints are the tool annotations whose change makes a tool riskier one
// way: the value that is riskier, and the default when absent (the MCP
// specification's).
type hint struct {
	name            string
	risky, default_ bool
}

var hints = []hint{
	{"readOnlyHint", false, false},
	{"destructiveHint", true, true},
	{"idempotentHint", false, false},
	{"openWorldHint", true, true},
}

// toolAnnotations classes annotation changes: a hint relaxed (towards
// riskier) is dangerous, tightened minor, the title info.
func toolAnnotations(_ string, old, new any) []change {
	o, _ := old.(map[string]any)
	n, _ := new.(map[string]any)
	var out []change
	for _, h := range hints {
		ov, nv := hintValue(o, h.name, h.default_), hintValue(n, h.name, h.default_)
		switch {
		case ov == nv:
		case nv == h.risky:
			out = append(out, change{fmt.Sprintf("annotation %s relaxed: %v -> %v", h.name, ov, nv), Dangerous})
		default:
			out = append(out, change{fmt.Sprintf("annotation %s tightened: %v -> %v", h.name, ov, nv), Minor})
		}
	}
	for _, k := range unionKeys(o, n) {
		if slices.ContainsFunc(hints, func(h hint) bool { return h.name == k }) || reflect.DeepEqual(o[k], n[k]) {
			continue
		}
		sev := Minor
		if k == "title" {
			sev = Info
		}
		out = append(out, change{"annotation " + k + " changed", sev})
	}
	return out
}

func hintValue(m map[string]any, name string, def bool) bool {
	if b, ok := m[name].(bool); ok {
		return b
	}
	return def
}

// inputSchema classes a tool's input schema change argument by argument.
// A change it cannot class (a constraint, a nested schema) is breaking.
func inputSchema(_ string, old, new any) []change {
	o, _ := old.(map[string]any)
	n, _ := new.(map[string]any)
	op, _ := o["properties"].(map[string]any)
	np, _ := n["properties"].(map[string]any)
	oreq, nreq := stringSet(o["required"]), stringSet(n["required"])
	var out []change
	names := unionKeys(oreq, nreq)
	for _, k := range unionKeys(op, np) {
		if !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		ov, inOld := op[name]
		nv, inNew := np[name]
		switch {
		case !inOld && !inNew && nreq[name] && !oreq[name]: // required, but no property
			out = append(out, change{fmt.Sprintf("argument %q now required", name), Breaking})
		case !inOld && !inNew && oreq[name] && !nreq[name]:
			out = append(out, change{fmt.Sprintf("argument %q now optional", name), Minor})
		case !inOld && !inNew:
		case !inNew:
			out = append(out, change{fmt.Sprintf("argument %q removed", name), Breaking})
		case !inOld && nreq[name]:
			out = append(out, change{fmt.Sprintf("required argument %q added", name), Breaking})
		case !inOld:
			out = append(out, change{fmt.Sprintf("optional argument %q added", name), Minor})
		default:
			om, _ := ov.(map[string]any)
			nm, _ := nv.(map[string]any)
			out = append(out, argumentSchema(name, om, nm)...)
			if !oreq[name] && nreq[name] {
				out = append(out, change{fmt.Sprintf("argument %q now required", name), Breaking})
			} else if oreq[name] && !nreq[name] {
				out = append(out, change{fmt.Sprintf("argument %q now optional", name), Minor})
			}
		}
	}
	for _, k := range unionKeys(o, n) {
		if k == "properties" || k == "required" || reflect.DeepEqual(o[k], n[k]) {
			continue
		}
		switch k {
		case "description":
			out = append(out, change{"input schema description reworded", Minor})
		case "title":
			out = append(out, change{"input schema title changed", Info})
		default:
			out = append(out, change{fmt.Sprintf("input schema %q changed", k), Breaking})
		}
	}
	return out
}

// argumentSchema classes the change of one argument's schema.
func argumentSchema(name string, o, n map[string]any) []change {
	var out []change
	for _, k := range unionKeys(o, n) {
		if reflect.DeepEqual(o[k], n[k]) {
			continue
		}
		switch k {
		case "description":
			out = append(out, change{fmt.Sprintf("argument %q description reworded", name), Minor})
		case "title":
			out = append(out, change{fmt.Sprintf("argument %q title changed", name), Info})
		case "type":
			if covers(types(o[k]), types(n[k])) {
				out = append(out, change{fmt.Sprintf("argument %q type widened: %s -> %s", name, Compact(o[k]), Compact(n[k])), Minor})
			} else {
				out = append(out, change{fmt.Sprintf("argument %q type narrowed: %s -> %s", name, Compact(o[k]), Compact(n[k])), Breaking})
			}
		case "enum":
			ov, _ := o[k].([]any)
			nv, _ := n[k].([]any)
			if n[k] == nil || o[k] != nil && !slices.ContainsFunc(ov, func(v any) bool { return !slices.ContainsFunc(nv, func(w any) bool { return reflect.DeepEqual(v, w) }) }) {
				out = append(out, change{fmt.Sprintf("argument %q enum widened", name), Minor})
			} else {
				out = append(out, change{fmt.Sprintf("argument %q enum narrowed", name), Breaking})
			}
		default:
			out = append(out, change{fmt.Sprintf("argument %q schema %q changed", name, k), Breaking})
		}
	}
	return out
}

// types returns a schema's "type" as a set; nil (any type) when absent.
func types(v any) map[string]bool {
	switch t := v.(type) {
	case string:
		return map[string]bool{t: true}
	case []any:
		return stringSet(t)
	}
	return nil
}

// covers reports whether every value of type set a is accepted by b. A nil
// set accepts everything; "number" accepts "integer".
func covers(a, b map[string]bool) bool {
	if b == nil {
		return true
	}
	if a == nil {
		return false
	}
	for t := range a {
		if !b[t] && !(t == "integer" && b["number"]) {
			return false
		}
	}
	return true
}

// promptArguments classes a prompt's argument list change.
func promptArguments(_ string, old, new any) []change {
	index := func(v any) map[string]any {
		m := map[string]any{}
		list, _ := v.([]any)
		for _, a := range list {
			if am, ok := a.(map[string]any); ok {
				name, _ := am["name"].(string)
				m[name] = am
			}
		}
		return m
	}
	om, nm := index(old), index(new)
	var out []change
	for _, name := range unionKeys(om, nm) {
		oa, _ := om[name].(map[string]any)
		na, _ := nm[name].(map[string]any)
		oreq, _ := oa["required"].(bool)
		nreq, _ := na["required"].(bool)
		switch {
		case na == nil:
			out = append(out, change{fmt.Sprintf("argument %q removed", name), Breaking})
		case oa == nil && nreq:
			out = append(out, change{fmt.Sprintf("required argument %q added", name), Breaking})
		case oa == nil:
			out = append(out, change{fmt.Sprintf("optional argument %q added", name), Minor})
		default:
			if !oreq && nreq {
				out = append(out, change{fmt.Sprintf("argument %q now required", name), Breaking})
			} else if oreq && !nreq {
				out = append(out, change{fmt.Sprintf("argument %q now optional", name), Minor})
			}
			for _, k := range unionKeys(oa, na) {
				if k == "required" || k == "name" || reflect.DeepEqual(oa[k], na[k]) {
					continue
				}
				sev := Minor
				if k == "title" {
					sev = Info
				}
				out = append(out, change{fmt.Sprintf("argument %q %s changed", name, k), sev})
			}
		}
	}
	if len(out) == 0 { // the same arguments in another order
		out = append(out, change{"arguments reordered", Info})
	}
	return out
}

// summarise returns the worst severity of cs and a reason naming each
// change, with its severity when they differ.
func summarise(cs []change) (Severity, string) {
	worst := Severity(0)
	mixed := false
	for i, c := range cs {
		worst = max(worst, c.sev)
		mixed = mixed || i > 0 && c.sev != cs[0].sev
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.what
		if mixed {
			parts[i] += " (" + c.sev.String() + ")"
		}
	}
	return worst, strings.Join(parts, "; ")
}

// String returns the severity's name: "info", "minor", "dangerous",
// "breaking".
func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Minor:
		return "minor"
	case Dangerous:
		return "dangerous"
	case Breaking:
		return "breaking"
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// unionKeys returns the keys of a and b, sorted, each once.
func unionKeys[V any](a, b map[string]V) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func stringSet(v any) map[string]bool {
	list, _ := v.([]any)
	m := map[string]bool{}
	for _, s := range list {
		if str, ok := s.(string); ok {
			m[str] = true
		}
	}
	return m
}

// classifyAnswer classes how a call's answer changed: an error or a
// result's shape changed is breaking; values changed in the same shape are
// minor.
func classifyAnswer(old, new map[string]any) (Severity, string) {
	oe, ne := old["error"] != nil || old["answered"] == false, new["error"] != nil || new["answered"] == false
	or, _ := old["result"].(map[string]any)
	nr, _ := new["result"].(map[string]any)
	switch {
	case oe || ne:
		return Breaking, "error changed"
	case or["isError"] != nr["isError"]:
		return Breaking, "error changed (isError)"
	case !reflect.DeepEqual(shape(old["result"]), shape(new["result"])):
		return Breaking, "shape changed"
	}
	return Minor, "values changed, same shape"
}

// shape returns v's shape: objects' keys with their shapes, arrays' distinct
// element shapes, scalars' JSON types. A "type" string is kept as it is
// (a content block's kind).
func shape(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			if s, ok := e.(string); ok && k == "type" {
				m[k] = "=" + s
				continue
			}
			m[k] = shape(e)
		}
		return m
	case []any:
		var out []any
		for _, e := range t {
			s := shape(e)
			if !slices.ContainsFunc(out, func(o any) bool { return reflect.DeepEqual(o, s) }) {
				out = append(out, s)
			}
		}
		return out
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "number"
}

// SessionSeverity classes a change of a session field: "protocol",
// "ending", "instructions", "server", "server version", "capabilities".
func SessionSeverity(field, old, new string) Severity {
	switch field {
	case "protocol", "ending":
		return Breaking
	case "instructions":
		return Dangerous
	case "server":
		return Minor
	case "server version":
		return Info
	case "capabilities":
		now := map[string]bool{}
		for _, c := range strings.Split(new, ", ") {
			now[c] = true
		}
		for _, c := range strings.Split(old, ", ") {
			if c != "" && !now[c] {
				return Breaking
			}
		}
		return Minor
	}
	return Breaking
}
