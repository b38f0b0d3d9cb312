package redact

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/looprig/mcp/cassette/internal/format"
)

// PlaceholderPrefix starts every placeholder: "REDACTED-1", "REDACTED-2", ….
const PlaceholderPrefix = "REDACTED-"

// A Redactor replaces secrets by numbered placeholders. The same value always
// gets the same placeholder. Literal secrets are numbered first, by their
// position in Options (Secrets, then Revealers, then the values the live
// factory hands its peer). Other values are numbered in order of first
// appearance, in a defined order that map order never changes: headers by
// sorted name, object keys sorted. It is not safe for concurrent use.
type Redactor struct {
	literals []literal // longest first, so a secret containing another is replaced whole
	patterns []*regexp.Regexp
	paths    []format.Path
	seen     map[string]string // value (or canonical JSON, for paths) → placeholder
	n        int               // placeholders handed out
}

type literal struct{ value, placeholder string }

// Learn adds v, a credential seen on the wire, to the literal secrets,
// numbered after the others by first appearance.
func (r *Redactor) Learn(v string) {
	if v == "" || placeholderRE.FindString(v) == v {
		return
	}
	for _, l := range r.literals {
		if l.value == v {
			return
		}
	}
	r.literals = append(r.literals, literal{v, r.Placeholder(v)})
	sort.SliceStable(r.literals, func(i, j int) bool { return len(r.literals[i].value) > len(r.literals[j].value) })
}

// LearnHeaders learns the credentials in the secret headers of h: the
// credential of an Authorization (its scheme left out), a Cookie or
// Set-Cookie whole and each cookie's value (of MinAutoSecret bytes or
// more), a RedactHeaders value whole. Headers are learnt by sorted name,
// so that the placeholders' numbers do not follow map order.
func (r *Redactor) LearnHeaders(secret map[string]bool, h http.Header) {
	for _, k := range slices.Sorted(maps.Keys(h)) {
		ck := http.CanonicalHeaderKey(k)
		if !secret[ck] {
			continue
		}
		for _, v := range h[k] {
			switch ck {
			case "Authorization", "Proxy-Authorization":
				if scheme, rest, ok := strings.Cut(v, " "); ok && format.IsToken(scheme) && strings.TrimSpace(rest) != "" {
					v = strings.TrimSpace(rest)
				}
				r.Learn(v)
			case "Cookie", "Set-Cookie":
				r.Learn(v)
				parts := strings.Split(v, ";")
				if ck == "Set-Cookie" {
					parts = parts[:1]
				}
				for _, p := range parts {
					if _, val, ok := strings.Cut(strings.TrimSpace(p), "="); ok && len(val) >= MinAutoSecret {
						r.Learn(strings.Trim(val, `"`))
					}
				}
			default:
				r.Learn(v)
			}
		}
	}
}

// Active reports whether r redacts anything.
func (r *Redactor) Active() bool {
	return len(r.literals) > 0 || len(r.patterns) > 0 || len(r.paths) > 0
}

// Placeholder returns v's placeholder, numbering v if it has none.
func (r *Redactor) Placeholder(v string) string {
	if ph, ok := r.seen[v]; ok {
		return ph
	}
	r.n++
	ph := PlaceholderPrefix + strconv.Itoa(r.n)
	r.seen[v] = ph
	return ph
}

// Tree redacts a decoded message in place and returns it.
func (r *Redactor) Tree(v any) any {
	if !r.Active() {
		return v
	}
	for _, p := range r.paths {
		format.WalkPath(v, p, func(old any) (any, bool) {
			if s, ok := old.(string); ok && placeholderRE.MatchString(s) && placeholderRE.FindString(s) == s {
				return s, false // already a placeholder
			}
			return r.Placeholder(string(format.EncodeTree(old))), false
		})
	}
	return format.MapStrings(mapNumbers(v, r.number), r.Text)
}

// number redacts a number whose text holds a secret: it becomes the
// redacted text, a string.
func (r *Redactor) number(n json.Number) any {
	if t := r.Text(n.String()); t != n.String() {
		return t
	}
	return n
}

// mapNumbers replaces each number in a decoded tree by f's result.
func mapNumbers(v any, f func(json.Number) any) any {
	switch v := v.(type) {
	case json.Number:
		return f(v)
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			v[k] = mapNumbers(v[k], f)
		}
	case []any:
		for i, c := range v {
			v[i] = mapNumbers(c, f)
		}
	}
	return v
}

// maxLiteralPasses bounds the passes that replace literal secrets in one
// string: a replacement can make a new occurrence out of a placeholder and
// the text beside it (secret "1abc" in "1abcabc" leaves "REDACTED-1abc").
const maxLiteralPasses = 8

// Text redacts one string. No literal secret is left in it: the literals
// are replaced again until none is, and a string where replacing never
// ends is replaced whole.
func (r *Redactor) Text(s string) string {
	for pass := 0; ; pass++ {
		found := false
		for _, l := range r.literals {
			if strings.Contains(s, l.value) {
				s = strings.ReplaceAll(s, l.value, l.placeholder)
				found = true
			}
		}
		if !found {
			break
		}
		if pass == maxLiteralPasses {
			for _, l := range r.literals {
				if strings.Contains(s, l.value) {
					s = l.placeholder
					break
				}
			}
			break
		}
	}
	for _, re := range r.patterns {
		s = r.pattern(re, s)
	}
	return s
}

// pattern replaces each match of re in s (its first group, if it has one).
func (r *Redactor) pattern(re *regexp.Regexp, s string) string {
	ms := re.FindAllStringSubmatchIndex(s, -1)
	if ms == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		lo, hi := m[0], m[1]
		if len(m) >= 4 && m[2] >= 0 {
			lo, hi = m[2], m[3]
		}
		if hi <= lo {
			continue
		}
		b.WriteString(s[last:lo])
		b.WriteString(r.Placeholder(s[lo:hi]))
		last = hi
	}
	b.WriteString(s[last:])
	return b.String()
}

// volatileHeaders are left out of a cassette: they change from run to run
// or describe the connection rather than the exchange.
var volatileHeaders = []string{"Date", "Content-Length", "Connection", "Keep-Alive", "Transfer-Encoding", "Te", "Trailer", "Upgrade", "Proxy-Connection"}

// secretHeaders are always redacted. DPoP carries a proof of possession
// (RFC 9449) that a server which keeps no record of proofs would take
// again within its time window.
var secretHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "DPoP"}

// Headers returns h without volatile headers, secret headers replaced
// by placeholders and every other value redacted as text.
func Headers(red *Redactor, secret map[string]bool, h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for _, k := range slices.Sorted(maps.Keys(h)) { // sorted: placeholders are numbered in this order
		vs := h[k]
		ck := http.CanonicalHeaderKey(k)
		if isVolatile(ck) {
			continue
		}
		nvs := make([]string, len(vs))
		for i, v := range vs {
			if secret[ck] {
				nvs[i] = redactCredential(red, v)
			} else {
				nvs[i] = red.Text(v)
			}
		}
		out[ck] = nvs
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func isVolatile(k string) bool {
	for _, v := range volatileHeaders {
		if k == v {
			return true
		}
	}
	return false
}

// redactCredential replaces a credential by a placeholder, keeping an
// authorization scheme ("Bearer REDACTED-1"). A value the recorder was told
// about (a Secret or Revealer) gets its own placeholder.
func redactCredential(red *Redactor, v string) string {
	if placeholderRE.FindString(v) == v && v != "" {
		return v
	}
	if scheme, rest, ok := strings.Cut(v, " "); ok && format.IsToken(scheme) && strings.TrimSpace(rest) != "" {
		rest = strings.TrimSpace(rest)
		if placeholderRE.FindString(rest) == rest {
			return scheme + " " + rest
		}
		return scheme + " " + red.Placeholder(rest)
	}
	return red.Placeholder(v)
}

// Message redacts a canonical message (or any JSON value), returning it
// canonical.
func (r *Redactor) Message(canon []byte) ([]byte, error) {
	if !r.Active() {
		return canon, nil
	}
	tree, err := format.DecodeTree(canon)
	if err != nil {
		return nil, err
	}
	return format.EncodeTree(r.Tree(tree)), nil
}

// Config is what a Redactor redacts: the redaction options of a
// cassette.Options.
type Config struct {
	Secrets   []string // literal secrets, numbered first in this order: Secrets, then the Revealers' values
	Auto      []string // values the live factory hands its peer, numbered after Secrets
	NotSecret []string // values of Auto that are not secrets
	Patterns  []*regexp.Regexp
	Paths     []string // RedactPaths, validated
}

// New returns a Redactor for c.
func New(c Config) *Redactor {
	r := &Redactor{patterns: c.Patterns, paths: format.ParsePaths(c.Paths), seen: map[string]string{}}
	values := append([]string(nil), c.Secrets...)
	for _, v := range c.Auto {
		if len(v) >= MinAutoSecret && !slices.Contains(c.NotSecret, v) {
			values = append(values, v)
		}
	}
	for i, v := range values {
		r.n = i + 1
		if v == "" {
			continue
		}
		if _, dup := r.seen[v]; dup {
			continue
		}
		ph := PlaceholderPrefix + strconv.Itoa(i+1)
		r.seen[v] = ph
		r.literals = append(r.literals, literal{v, ph})
	}
	sort.SliceStable(r.literals, func(i, j int) bool { return len(r.literals[i].value) > len(r.literals[j].value) })
	return r
}

// MinAutoSecret is the length from which a value the recorder learns by
// itself (an environment value handed to a stdio child, a cookie's value)
// is redacted: shorter ones ("1", "docs", "en") are ordinary words, which
// redacting everywhere would garble. Name them in Options.Secrets to
// redact them anyway. Credentials sent in Authorization, and values of
// Options.RedactHeaders, are learned whatever their length.
const MinAutoSecret = 8

// SecretHeaders returns the canonical names of the headers whose values
// are replaced by placeholders: the built-in ones and extra.
func SecretHeaders(extra []string) map[string]bool {
	secret := map[string]bool{}
	for _, h := range append(append([]string(nil), secretHeaders...), extra...) {
		secret[http.CanonicalHeaderKey(h)] = true
	}
	return secret
}

// placeholderRE matches a placeholder.
var placeholderRE = regexp.MustCompile(`REDACTED-[0-9]+`)

// Normalise spells every placeholder in b alike, so that matching does not
// depend on their numbers.
func Normalise(b []byte) []byte {
	if !bytes.Contains(b, []byte(PlaceholderPrefix)) {
		return b
	}
	return placeholderRE.ReplaceAll(b, []byte("REDACTED"))
}

// NormaliseString is Normalise of a string.
func NormaliseString(s string) string {
	if !bytes.Contains([]byte(s), []byte(PlaceholderPrefix)) {
		return s
	}
	return placeholderRE.ReplaceAllString(s, "REDACTED")
}
