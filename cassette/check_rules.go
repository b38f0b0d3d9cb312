package cassette

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/looprig/mcp/client"
)

// injections are the phrasings of hidden instructions, each with what it
// is: instructions to the model that a user reading a tool list would not
// expect from a description.
var injections = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`(?i)\b(ignore|disregard|forget|override)\b.{0,30}\b(previous|prior|above|earlier|all|other|your|system)\b.{0,20}\b(instructions?|prompts?|rules|directions|messages)\b`), "tells the model to ignore its instructions"},
	{regexp.MustCompile(`(?i)<\s*/?\s*(important|system|instructions?|secret|hidden|admin)\b[^>]*>`), "wraps text in a tag aimed at the model"},
	{regexp.MustCompile(`(?i)\b(do\s*n[o']t|never|without)\b.{0,20}\b(tell|telling|mention|mentioning|inform|informing|reveal|revealing|show|showing|notify|notifying)\b.{0,20}\b(the\s+)?user\b`), "tells the model to hide something from the user"},
	{regexp.MustCompile(`(?i)(~/\.ssh|\bid_(rsa|ed25519|ecdsa)\b|/etc/(passwd|shadow)|\.aws/credentials|\.netrc\b|\.env\b|mcp\.json\b|\.cursor/|private key)`), "points the model at secrets or configuration files"},
	{regexp.MustCompile(`(?i)\b(read|open|cat|load|fetch|include|attach)\b.{0,40}\b(file|contents?)\b.{0,40}\b(and|then)\b.{0,20}\b(send|pass|include|put|append)\b`), "tells the model to read a file and pass it on"},
	{regexp.MustCompile(`(?i)\b(exfiltrat\w*|send|post|upload|forward|leak)\b.{0,60}\b(https?://|webhook|to\s+(this|the\s+following|my)\s+(url|address|server|email))`), "tells the model to send data out"},
	{regexp.MustCompile(`(?i)\b(reveal|print|output|repeat|show)\b.{0,30}\bsystem\s+prompt\b`), "asks for the system prompt"},
}

// checkHidden finds hidden instructions in the texts.
func checkHidden(texts []text) []Finding {
	var out []Finding
	for _, t := range texts {
		// Invisible characters between letters do not hide a phrase.
		s := strings.Map(func(r rune) rune {
			if unicode.Is(unicode.Cf, r) || r >= 0xE0000 && r <= 0xE007F {
				return -1
			}
			return r
		}, t.s)
		for _, in := range injections {
			if m := in.re.FindString(s); m != "" {
				out = append(out, Finding{Check: CheckHiddenInstructions, Severity: SeverityDangerous, Subject: t.subject,
					Message: fmt.Sprintf("%s: %q", in.what, m)})
			}
		}
	}
	return out
}

// invisibles are the characters a person does not see, by what they are.
var invisibles = []struct {
	what string
	is   func(rune) bool
}{
	{"tag characters (U+E0000 to U+E007F)", func(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }},
	{"bidi controls", func(r rune) bool {
		return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C
	}},
	{"zero-width characters", func(r rune) bool { return r >= 0x200B && r <= 0x200D || r == 0x2060 || r == 0xFEFF || r == 0x180E }},
	{"control characters", func(r rune) bool { return r != '\n' && r != '\t' && r != '\r' && unicode.IsControl(r) }},
	{"other invisible format characters", func(r rune) bool { return unicode.Is(unicode.Cf, r) }},
}

// checkInvisible finds characters a person does not see. Tag characters
// spell ASCII: the finding spells it out.
func checkInvisible(texts []text) []Finding {
	var out []Finding
	for _, t := range texts {
		seen := map[string][]rune{}
		var order []string
		for _, r := range t.s {
			for _, inv := range invisibles {
				if inv.is(r) {
					if seen[inv.what] == nil {
						order = append(order, inv.what)
					}
					seen[inv.what] = append(seen[inv.what], r)
					break
				}
			}
		}
		for _, what := range order {
			rs := seen[what]
			msg := fmt.Sprintf("%d %s: %s", len(rs), what, codePoints(rs))
			if strings.HasPrefix(what, "tag") {
				msg += fmt.Sprintf("; they spell %q", tagText(rs))
			}
			out = append(out, Finding{Check: CheckInvisibleUnicode, Severity: SeverityDangerous, Subject: t.subject, Message: msg})
		}
	}
	return out
}

// codePoints names up to 8 distinct runes: "U+200B U+202E".
func codePoints(rs []rune) string {
	var names []string
	for _, r := range rs {
		n := fmt.Sprintf("%U", r)
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) > 8 {
		names = append(names[:8], "…")
	}
	return strings.Join(names, " ")
}

// tagText returns the ASCII tag characters stand for.
func tagText(rs []rune) string {
	var b strings.Builder
	for _, r := range rs {
		if c := r - 0xE0000; c >= 0x20 && c < 0x7F {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// draft202012 is the $schema of JSON Schema 2020-12, MCP's default.
const draft202012 = "https://json-schema.org/draft/2020-12/schema"

// checkSchemas checks every tool's input and output schema.
func checkSchemas(t CheckTarget) []Finding {
	if t.Catalog == nil {
		return nil
	}
	var out []Finding
	for _, tool := range t.Catalog.Tools {
		for _, s := range []struct {
			name   string
			schema any
			input  bool
		}{{"input schema", tool.InputSchema, true}, {"output schema", tool.OutputSchema, false}} {
			if s.schema == nil && !s.input {
				continue
			}
			subject := fmt.Sprintf("tool %q %s", tool.Name, s.name)
			sev, msg := checkSchema(s.schema, s.input)
			if msg != "" {
				out = append(out, Finding{Check: CheckSchema, Severity: sev, Subject: subject, Message: msg})
			}
		}
	}
	return out
}

// checkSchema returns what is wrong with one schema; "" when nothing is.
func checkSchema(v any, input bool) (Severity, string) {
	b, err := json.Marshal(v)
	if err != nil {
		return SeverityBreaking, fmt.Sprintf("not JSON: %v", err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return SeverityBreaking, fmt.Sprintf("not a JSON Schema: %v", err)
	}
	if _, err := s.Resolve(nil); err != nil {
		return SeverityBreaking, fmt.Sprintf("not a valid JSON Schema: %v", err)
	}
	if input && s.Type != "object" {
		return SeverityBreaking, fmt.Sprintf(`type %q, want "object" (MCP)`, s.Type)
	}
	if s.Schema != "" && s.Schema != draft202012 {
		return SeverityInfo, fmt.Sprintf("$schema %q: MCP's default is JSON Schema 2020-12", s.Schema)
	}
	return 0, ""
}

// checkModelNames finds tools of servers of other names that share a
// model name, and names made unique within one server; findings by
// target.
func checkModelNames(targets []CheckTarget) [][]Finding {
	type owner struct {
		server, tool string
		targets      []int
	}
	owners := map[string][]*owner{}
	out := make([][]Finding, len(targets))
	for i, t := range targets {
		if t.Catalog == nil {
			continue
		}
		names := make([]string, len(t.Catalog.Tools))
		for j, tool := range t.Catalog.Tools {
			names[j] = tool.Name
		}
		models := client.ModelNames(t.Name, names)
		for _, tool := range names {
			m := models[tool]
			k := slices.IndexFunc(owners[m], func(o *owner) bool { return o.server == t.Name && o.tool == tool })
			if k < 0 {
				owners[m] = append(owners[m], &owner{server: t.Name, tool: tool})
				k = len(owners[m]) - 1
			}
			owners[m][k].targets = append(owners[m][k].targets, i)
			// Alone, the tool would have its plain name (shortened if long).
			if alone := client.ModelNames(t.Name, []string{tool})[tool]; m != alone {
				out[i] = append(out[i], Finding{Check: CheckModelNames, Severity: SeverityMinor, Subject: fmt.Sprintf("tool %q", tool),
					Message: fmt.Sprintf("model name %s, not %s: another tool of the server maps to that", m, alone)})
			}
		}
	}
	for _, m := range slices.Sorted(maps.Keys(owners)) {
		shared := owners[m]
		if len(shared) < 2 {
			continue
		}
		var who []string
		for _, o := range shared {
			who = append(who, fmt.Sprintf("%q of %q", o.tool, o.server))
		}
		for _, o := range shared {
			for _, i := range o.targets {
				out[i] = append(out[i], Finding{Check: CheckModelNames, Severity: SeverityBreaking, Subject: fmt.Sprintf("tool %q", o.tool),
					Message: fmt.Sprintf("model name %s is shared by tools %s", m, strings.Join(who, ", "))})
			}
		}
	}
	return out
}
