package transcript

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/looprig/mcp/internal/jsondiff"
	"github.com/looprig/mcp/internal/safetext"
	"github.com/looprig/mcp/protocol"
)

// Kinds of drift.
const (
	DriftSession = "session" // the revision, the server's identity or capabilities, the session's end
	DriftCatalog = "catalog" // a tool, resource, template or prompt added, removed or changed
	DriftResult  = "result"  // a call answered differently, or made in one session only
)

// A Drift is one way two sessions differ.
type Drift struct {
	Kind    string // DriftSession, DriftCatalog or DriftResult
	Subject string // what drifted: "server version", `tool "lookup"`, `tools/call lookup {"query":"x"}`
	OldLine int    // where the old session has it; 0 when it has not
	NewLine int    // where the new session has it; 0 when it has not
	Reason  string // "changed", "added", "removed", "not called in NEW", `"v1" -> "v2"`, …
	Diff    string // a line diff of indented JSON (-old +new); "" when there is none to show
	// Severity weighs the drift: the worst of its changes.
	Severity Severity
	// Detail names the changes that weigh ("argument \"limit\" now
	// required"), each with its severity when they differ; "" when Reason
	// says it all.
	Detail string
}

// Compare returns how new differs from old, session drift first, then
// catalog drift by kind and key, then result drift in old's order. Diffs
// and reasons name the sides oldName and newName ("OLD", "recorded").
func Compare(old, new *Session, oldName, newName string) []Drift {
	var out []Drift
	out = append(out, compareSessions(old, new)...)
	out = append(out, compareCatalogs(old, new, oldName, newName)...)
	out = append(out, compareCalls(old, new, oldName, newName)...)
	return out
}

func compareSessions(old, new *Session) []Drift {
	var out []Drift
	for _, f := range []struct{ name, old, new string }{
		{"protocol", old.Protocol, new.Protocol},
		{"server", old.ServerName, new.ServerName},
		{"server version", old.ServerVersion, new.ServerVersion},
		{"capabilities", strings.Join(old.Capabilities, ", "), strings.Join(new.Capabilities, ", ")},
		{"instructions", old.Instructions, new.Instructions},
	} {
		if f.old != f.new {
			out = append(out, Drift{Kind: DriftSession, Subject: f.name, Reason: fmt.Sprintf("%q -> %q", f.old, f.new), Severity: SessionSeverity(f.name, f.old, f.new)})
		}
	}
	return out
}

// compareCatalogs compares each catalog kind by key, and classes each
// drift by the kind's rule (catalogRules).
func compareCatalogs(old, new *Session, oldName, newName string) []Drift {
	var out []Drift
	for _, kind := range Kinds {
		rule := catalogRules[kind]
		olds, inOld := old.Catalog[kind]
		news, inNew := new.Catalog[kind]
		switch {
		case !inOld && !inNew:
			continue
		case inOld && !inNew:
			out = append(out, Drift{Kind: DriftCatalog, Subject: kind, Reason: "listed only in " + oldName, Severity: rule.removed})
			continue
		case !inOld:
			out = append(out, Drift{Kind: DriftCatalog, Subject: kind, Reason: "listed only in " + newName, Severity: rule.added})
			continue
		}
		was := map[string]Item{}
		for _, it := range olds {
			was[it.Key] = it
		}
		now := map[string]bool{}
		for _, it := range news {
			now[it.Key] = true
			prev, ok := was[it.Key]
			subject := fmt.Sprintf("%s %q", rule.noun, it.Key)
			switch {
			case !ok:
				out = append(out, Drift{Kind: DriftCatalog, Subject: subject, NewLine: it.Line, Reason: "added", Severity: rule.added})
			default:
				if d := jsondiff.Diff(oldName, prev.Tree, newName, it.Tree); d != "" {
					sev, why := summarise(classifyItem(rule, prev.Tree, it.Tree))
					out = append(out, Drift{Kind: DriftCatalog, Subject: subject, OldLine: prev.Line, NewLine: it.Line, Reason: "changed", Detail: why, Diff: d, Severity: sev})
				}
			}
		}
		for _, it := range olds {
			if !now[it.Key] {
				out = append(out, Drift{Kind: DriftCatalog, Subject: fmt.Sprintf("%s %q", rule.noun, it.Key), OldLine: it.Line, Reason: "removed", Severity: rule.removed})
			}
		}
		if reordered(old.Order[kind], new.Order[kind]) {
			out = append(out, Drift{Kind: DriftCatalog, Subject: kind, Reason: "listed in another order", Severity: Info})
		}
	}
	return out
}

// reordered reports whether the keys both lists hold come in another
// order.
func reordered(a, b []string) bool {
	inB := map[string]bool{}
	for _, k := range b {
		inB[k] = true
	}
	inA := map[string]bool{}
	for _, k := range a {
		inA[k] = true
	}
	a = slices.DeleteFunc(slices.Clone(a), func(k string) bool { return !inB[k] })
	b = slices.DeleteFunc(slices.Clone(b), func(k string) bool { return !inA[k] })
	return !slices.Equal(a, b)
}

// compareCalls pairs each call in old with the first call in new, not yet
// paired, of the same sender, method and params, and compares their
// answers. A task's polls of one state count as one (Polls), and tasks
// are compared by their order, not by the ids and times their server
// made up.
func compareCalls(old, new *Session, oldName, newName string) []Drift {
	var out []Drift
	oldCalls, newCalls := Polls(old.Calls), Polls(new.Calls)
	on, nn := taskNames{}, taskNames{}
	for _, c := range oldCalls {
		on.answer(c) // names the tasks in order of their handles
	}
	for _, c := range newCalls {
		nn.answer(c)
	}
	used := make([]bool, len(newCalls))
	for _, o := range oldCalls {
		op := on.params(o)
		j := -1
		for k, n := range newCalls {
			if !used[k] && n.From == o.From && n.Method == o.Method && nn.params(n) == op {
				j = k
				break
			}
		}
		if j < 0 {
			out = append(out, Drift{Kind: DriftResult, Subject: o.Describe(), OldLine: o.Line, Reason: "not called in " + newName, Severity: Breaking})
			continue
		}
		used[j] = true
		n := newCalls[j]
		oa, na := on.answer(o), nn.answer(n)
		if d := jsondiff.Diff(oldName, oa, newName, na); d != "" {
			sev, why := classifyAnswer(oa, na)
			out = append(out, Drift{Kind: DriftResult, Subject: o.Describe(), OldLine: o.AnswerLine, NewLine: n.AnswerLine, Reason: "answered differently", Detail: why, Diff: d, Severity: sev})
		}
	}
	for k, n := range newCalls {
		if !used[k] {
			out = append(out, Drift{Kind: DriftResult, Subject: n.Describe(), NewLine: n.Line, Reason: "not called in " + oldName, Severity: Breaking})
		}
	}
	return out
}

// Describe says what was called: the method, and for the usual methods
// their subject and short arguments.
func (c *Call) Describe() string {
	d := c.Method
	if c.From == FromServer {
		d = "(server asks) " + d
	}
	switch c.Method {
	case "tools/call", "prompts/get":
		name, _ := c.Params["name"].(string)
		d += " " + name
		if args, ok := c.Params["arguments"]; ok && args != nil {
			d += " " + Short(Compact(args), 80)
		}
		if st, ok := c.Params["requestState"]; ok {
			d += " (continuation, state " + Short(Compact(st), 40) + ")"
		}
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		uri, _ := c.Params["uri"].(string)
		d += " " + uri
	case "tasks/get", "tasks/update", "tasks/cancel":
		id, _ := c.Params["taskId"].(string)
		d += " " + id
		if rs, ok := c.Params["inputResponses"].(map[string]any); ok {
			d += " answering " + strings.Join(slices.Sorted(maps.Keys(rs)), ", ")
		}
	default:
		if len(c.Params) > 0 {
			d += " " + Short(Compact(c.Params), 80)
		}
	}
	return d
}

// Summary says what the call returned, in a few words.
func (c *Call) Summary() string {
	switch {
	case !c.Answered:
		return "no answer recorded"
	case c.Error != nil:
		return fmt.Sprintf("error %d: %s", c.Error.Code, Short(c.Error.Message, 100))
	}
	res, _ := c.Result.(map[string]any)
	if s, ok := taskSummary(c.Method, res); ok {
		return s
	}
	if reqs, ok := res["inputRequests"].(map[string]any); ok && res["resultType"] == "input_required" {
		keys := make([]string, 0, len(reqs))
		for k, v := range reqs {
			m, _ := v.(map[string]any)
			method, _ := m["method"].(string)
			keys = append(keys, k+" ("+method+")")
		}
		slices.Sort(keys)
		return "input required: " + strings.Join(keys, ", ")
	}
	switch c.Method {
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
				parts = append(parts, fmt.Sprintf("%q", Short(t, 60)))
			} else {
				parts = append(parts, "[blob]")
			}
		}
		return strings.Join(parts, ", ")
	}
	if lf, ok := lists[c.Method]; ok {
		items, _ := res[lf.field].([]any)
		return fmt.Sprintf("%d %s", len(items), lf.field)
	}
	if len(res) == 0 {
		return "ok"
	}
	return Short(Compact(res), 100)
}

// taskSummary says what a task handle (a tools/call answered with a task,
// the tasks extension) or a tasks/get answer holds: the task, its status
// and, once it ended, its result or error.
func taskSummary(method string, res map[string]any) (string, bool) {
	if (method == "tasks/update" || method == "tasks/cancel") && len(res) == 1 && res["resultType"] == "complete" {
		return "ok", true // the acknowledgement
	}
	id, _ := res["taskId"].(string)
	status, _ := res["status"].(string)
	if id == "" || status == "" || !(method == "tools/call" && res["resultType"] == "task" || method == "tasks/get") {
		return "", false
	}
	s := "task " + id + ": " + status
	switch protocol.TaskStatus(status) {
	case protocol.TaskCompleted:
		r, _ := res["result"].(map[string]any)
		out := contentSummary(r["content"])
		if isErr, _ := r["isError"].(bool); isErr {
			out = "tool error: " + out
		}
		s += ", " + out
	case protocol.TaskFailed:
		if e, ok := res["error"].(map[string]any); ok {
			msg, _ := e["message"].(string)
			s += fmt.Sprintf(", error %v: %s", e["code"], Short(msg, 100))
		}
	case protocol.TaskInputRequired:
		if reqs, ok := res["inputRequests"].(map[string]any); ok {
			s += ", asks " + strings.Join(slices.Sorted(maps.Keys(reqs)), ", ")
		}
	}
	return s, true
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
			parts = append(parts, fmt.Sprintf("%q", Short(t, 60)))
			continue
		}
		parts = append(parts, "["+typ+"]")
	}
	return strings.Join(parts, ", ")
}

// Short cuts s to at most n runes, marking the cut with "…", and puts it on
// one line, its control characters made visible.
func Short(s string, n int) string {
	s = safetext.Line(strings.Join(strings.Fields(s), " "))
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// Format writes drifts grouped by kind, as mcprig diff and drift errors
// show them; oldName and newName label the two sides' lines ("OLD",
// "recorded"). What came from a cassette or a peer has its control
// characters made visible.
func Format(b *strings.Builder, drifts []Drift, oldName, newName string) {
	for _, kind := range []string{DriftSession, DriftCatalog, DriftResult} {
		first := true
		for _, d := range drifts {
			if d.Kind != kind {
				continue
			}
			if first {
				fmt.Fprintf(b, "\n%s drift:\n", kind)
				first = false
			}
			fmt.Fprintf(b, "  [%s] %s: %s", d.Severity, safetext.Line(d.Subject), safetext.Line(d.Reason))
			if d.Detail != "" {
				fmt.Fprintf(b, ": %s", safetext.Line(d.Detail))
			}
			var at []string
			if d.OldLine > 0 {
				at = append(at, fmt.Sprintf("%s line %d", oldName, d.OldLine))
			}
			if d.NewLine > 0 {
				at = append(at, fmt.Sprintf("%s line %d", newName, d.NewLine))
			}
			if len(at) > 0 {
				fmt.Fprintf(b, " (%s)", strings.Join(at, ", "))
			}
			b.WriteString("\n")
			if d.Diff != "" {
				for _, l := range strings.SplitAfter(strings.TrimSuffix(d.Diff, "\n"), "\n") {
					b.WriteString("    " + safetext.Line(strings.TrimSuffix(l, "\n")) + "\n")
				}
			}
		}
	}
}
