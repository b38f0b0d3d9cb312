package cassette

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/transcript"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Checks Check runs, by the name a Finding gives.
const (
	// CheckHiddenInstructions: a description or the instructions tell the
	// model to ignore its instructions, hide something from the user, read
	// secrets or send data out, or wrap text in <IMPORTANT>-like tags.
	CheckHiddenInstructions = "hidden-instructions"
	// CheckInvisibleUnicode: a string holds characters a person does not
	// see: the tags block (U+E0000 to U+E007F), zero-width characters, bidi
	// controls, control characters.
	CheckInvisibleUnicode = "invisible-unicode"
	// CheckSchema: a tool's input or output schema is not valid JSON Schema
	// 2020-12, or an input schema is not of type "object".
	CheckSchema = "schema"
	// CheckModelNames: two tools get one model name across the servers
	// checked together, or a tool's model name had to be shortened or made
	// unique (client.ModelNames).
	CheckModelNames = "model-names"
	// CheckFingerprint: the catalog's fingerprint is not the pinned one.
	CheckFingerprint = "fingerprint"
)

// Checks lists every check, in the order Check runs them.
var Checks = []string{CheckHiddenInstructions, CheckInvisibleUnicode, CheckSchema, CheckModelNames, CheckFingerprint}

// A Finding is one problem Check found in a server's catalog.
type Finding struct {
	Server   string // CheckTarget.Name
	Source   string // CheckTarget.Source
	Check    string // CheckHiddenInstructions, CheckInvisibleUnicode, …
	Severity Severity
	Subject  string // where: `tool "lookup" description`, "instructions"
	Message  string // what, with the untrusted text quoted (%q)
}

// A CheckTarget is one server's catalog to check.
type CheckTarget struct {
	// Name is the server's name in the harness (client.Definition.Name):
	// model names are "mcp__" + Name + "__" + tool. Targets of one name
	// are one server (several cassettes of it): their tools share model
	// names without colliding.
	Name string
	// Source says where the catalog came from (a cassette's file, a URL);
	// findings repeat it.
	Source       string
	Instructions string // the server's instructions
	Catalog      *client.Catalog
}

// CheckOptions configures Check. The zero value runs every check but the
// fingerprint's.
type CheckOptions struct {
	// Fingerprints pins catalogs by target name: a target whose
	// Catalog.Fingerprint differs is a dangerous finding. Names absent are
	// not checked.
	Fingerprints map[string]string
}

// Check checks servers' catalogs for what agents trip over and attackers
// use, and returns the findings by target, then by check (Checks' order):
//
//   - dangerous: hidden instructions; invisible characters; a catalog
//     that differs from its pinned fingerprint.
//   - breaking: a schema that is not valid JSON Schema 2020-12 (or an input
//     schema not of type "object"); a model name two servers' tools share.
//   - minor: a model name made unique within one server.
//   - info: a schema that declares another draft than 2020-12 (which MCP
//     allows).
//
// Check reads nothing but its arguments; it never fails.
func Check(targets []CheckTarget, opts *CheckOptions) []Finding {
	var o CheckOptions
	if opts != nil {
		o = *opts
	}
	byTarget := make([][]Finding, len(targets))
	for i, t := range targets {
		texts := catalogTexts(t)
		byTarget[i] = append(byTarget[i], checkHidden(texts)...)
		byTarget[i] = append(byTarget[i], checkInvisible(texts)...)
		byTarget[i] = append(byTarget[i], checkSchemas(t)...)
	}
	for i, fs := range checkModelNames(targets) {
		byTarget[i] = append(byTarget[i], fs...)
	}
	var out []Finding
	for i, t := range targets {
		want, ok := o.Fingerprints[t.Name]
		if ok && t.Catalog != nil && t.Catalog.Fingerprint != want {
			byTarget[i] = append(byTarget[i], Finding{Check: CheckFingerprint, Severity: SeverityDangerous, Subject: "catalog",
				Message: fmt.Sprintf("fingerprint %s, pinned %s", t.Catalog.Fingerprint, want)})
		}
		for _, f := range byTarget[i] {
			f.Server, f.Source = t.Name, t.Source
			out = append(out, f)
		}
	}
	return out
}

// A text is one string of a catalog and where it is.
type text struct {
	subject string
	s       string
}

// catalogTexts returns every string of the target's catalog (keys
// included) and its instructions, each with where it is.
func catalogTexts(t CheckTarget) []text {
	out := []text{{"instructions", t.Instructions}}
	if t.Catalog == nil {
		return out
	}
	add := func(noun, key string, item any) {
		b, err := json.Marshal(item)
		if err != nil {
			return
		}
		var v any
		if json.Unmarshal(b, &v) != nil {
			return
		}
		walkStrings(fmt.Sprintf("%s %q", noun, key), v, func(where, s string) { out = append(out, text{where, s}) })
	}
	for _, it := range t.Catalog.Tools {
		add("tool", it.Name, it)
	}
	for _, it := range t.Catalog.Resources {
		add("resource", it.URI, it)
	}
	for _, it := range t.Catalog.ResourceTemplates {
		add("resource template", it.URITemplate, it)
	}
	for _, it := range t.Catalog.Prompts {
		add("prompt", it.Name, it)
	}
	return out
}

// walkStrings calls f with each string in v and its path below at.
func walkStrings(at string, v any, f func(where, s string)) {
	switch v := v.(type) {
	case string:
		f(at, v)
	case map[string]any:
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range v {
				if !yield(k) {
					return
				}
			}
		}) {
			f(at+" key", k)
			walkStrings(at+" "+k, v[k], f)
		}
	case []any:
		for i, e := range v {
			walkStrings(fmt.Sprintf("%s[%d]", at, i), e, f)
		}
	}
}

// CatalogOf returns the catalog recorded in c (the last listing of each
// kind), as client.Connect builds it, fingerprint included, and the
// server's instructions. Redacted values stay as their placeholders.
func CatalogOf(cas *Cassette) (*client.Catalog, string, error) {
	c := cas.toFormat()
	infos, err := format.Analyse(c)
	if err != nil {
		return nil, "", exported(err)
	}
	var msgs []transcript.Message
	for i := range c.Interactions {
		if infos[i].Canon != nil {
			msgs = append(msgs, transcript.Message{Number: len(msgs) + 1, Line: c.Line(i), From: format.Side(&c.Interactions[i]), Raw: infos[i].Canon})
		}
	}
	s := transcript.Read(msgs, nil)
	var tools []*mcp.Tool
	var resources []*mcp.Resource
	var templates []*mcp.ResourceTemplate
	var prompts []*mcp.Prompt
	for _, err := range []error{
		items(c, s, "tools", &tools), items(c, s, "resources", &resources),
		items(c, s, "resourceTemplates", &templates), items(c, s, "prompts", &prompts),
	} {
		if err != nil {
			return nil, "", err
		}
	}
	cat, err := client.NewCatalog(tools, resources, templates, prompts)
	if err != nil {
		return nil, "", fmt.Errorf("cassette %s: %w", c.File, err)
	}
	return cat, s.Instructions, nil
}

// items decodes the listed items of kind into dst.
func items[T any](c *format.Cassette, s *transcript.Session, kind string, dst *[]*T) error {
	for _, it := range s.Catalog[kind] {
		b, err := json.Marshal(it.Tree)
		if err != nil {
			return fmt.Errorf("cassette %s:%d: %s: %w", c.File, it.Line, kind, err)
		}
		v := new(T)
		if err := json.Unmarshal(b, v); err != nil {
			return fmt.Errorf("cassette %s:%d: %s %q: %w", c.File, it.Line, kind, it.Key, err)
		}
		*dst = append(*dst, v)
	}
	return nil
}
