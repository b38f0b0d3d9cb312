// Package canonjson is this module's one canonical JSON encoder. The
// canonical form of a JSON value is what decoding it into Go values
// (objects as maps, numbers as json.Number) and encoding them again without
// HTML escaping gives: object keys sorted by their unescaped text, the last
// of duplicate keys kept, no insignificant white space, strings escaped as
// encoding/json escapes them (U+2028, U+2029 and invalid UTF-8 included)
// but with <, > and & as they are, numbers exactly as written.
//
// [Canonical] and [Append] compute it from the bytes in one pass, without
// building a tree: they copy what is already canonical and re-order only
// the objects whose keys are out of order. Cassettes, catalog fingerprints
// and everything else that must give the same bytes for the same value use
// it.
//
// A value may nest objects and arrays [MaxDepth] levels deep, as
// encoding/json decodes them; deeper input is refused with [ErrTooDeep]
// before the stack or the heap grows with it.
package canonjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"
)

// ErrSyntax is returned when the input is not one JSON value.
var ErrSyntax = errors.New("canonjson: invalid JSON")

// MaxDepth is the deepest nesting of objects and arrays a value may have:
// encoding/json's own bound, so that what it decodes is accepted here.
const MaxDepth = 10000

// ErrTooDeep is returned when the input nests objects and arrays deeper
// than MaxDepth.
var ErrTooDeep = fmt.Errorf("canonjson: nested deeper than %d levels", MaxDepth)

// Canonical returns the canonical encoding of the JSON value data. When data
// is already canonical it returns data itself.
func Canonical(data []byte) ([]byte, error) { return CanonicalNested(data, 0) }

// Append appends the canonical encoding of the JSON value data to dst.
func Append(dst, data []byte) ([]byte, error) { return AppendNested(dst, data, 0) }

// CanonicalNested is Canonical of a value that sits outer levels deep in
// the document it came from: it may nest MaxDepth-outer levels itself.
func CanonicalNested(data []byte, outer int) ([]byte, error) {
	out, err := AppendNested(make([]byte, 0, len(data)), data, outer)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(out, data) {
		return data, nil
	}
	return out, nil
}

// AppendNested is Append of a value that sits outer levels deep in the
// document it goes into.
func AppendNested(dst, data []byte, outer int) ([]byte, error) {
	cs := canonScanner{in: data, depth: outer}
	out, err := cs.value(dst)
	if err != nil {
		return nil, err
	}
	cs.space()
	if cs.i != len(cs.in) {
		return nil, ErrSyntax
	}
	return out, nil
}

// Marshal returns the canonical encoding of v, as encoding/json encodes it.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return Canonical(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// AppendString appends s as a canonical JSON string.
func AppendString(dst []byte, s string) []byte { return appendString(dst, s) }

func appendString(dst []byte, s string) []byte {
	if plain(s) {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// plain reports whether s encodes as a JSON string with no escape: printable
// ASCII other than the quote and the backslash.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

type canonScanner struct {
	in      []byte
	i       int
	scratch []byte // reused to re-order an object's members
	depth   int    // objects and arrays open around the scanner
}

// member is one object member: its unescaped key and where its canonical
// encoding ("key":value) lies in the output.
type member struct {
	key        []byte
	start, end int
}

func (cs *canonScanner) space() {
	for cs.i < len(cs.in) {
		switch cs.in[cs.i] {
		case ' ', '\t', '\n', '\r':
			cs.i++
		default:
			return
		}
	}
}

// value appends the canonical encoding of the next value to dst.
func (cs *canonScanner) value(dst []byte) ([]byte, error) {
	cs.space()
	if cs.i >= len(cs.in) {
		return nil, ErrSyntax
	}
	switch c := cs.in[cs.i]; {
	case c == '{' || c == '[':
		if cs.depth++; cs.depth > MaxDepth {
			return nil, ErrTooDeep
		}
		var err error
		if c == '{' {
			dst, err = cs.object(dst)
		} else {
			dst, err = cs.array(dst)
		}
		cs.depth--
		return dst, err
	case c == '"':
		out, _, err := cs.str(dst)
		return out, err
	case c == 't':
		return cs.literal(dst, "true")
	case c == 'f':
		return cs.literal(dst, "false")
	case c == 'n':
		return cs.literal(dst, "null")
	case c == '-' || c >= '0' && c <= '9':
		return cs.number(dst)
	}
	return nil, ErrSyntax
}

func (cs *canonScanner) literal(dst []byte, lit string) ([]byte, error) {
	if !bytes.HasPrefix(cs.in[cs.i:], []byte(lit)) {
		return nil, ErrSyntax
	}
	cs.i += len(lit)
	return append(dst, lit...), nil
}

// number copies a number as written, after checking its grammar.
func (cs *canonScanner) number(dst []byte) ([]byte, error) {
	start := cs.i
	in := cs.in
	digits := func() int {
		n := 0
		for cs.i < len(in) && in[cs.i] >= '0' && in[cs.i] <= '9' {
			cs.i++
			n++
		}
		return n
	}
	if in[cs.i] == '-' {
		cs.i++
	}
	if cs.i < len(in) && in[cs.i] == '0' {
		cs.i++
	} else if digits() == 0 {
		return nil, ErrSyntax
	}
	if cs.i < len(in) && in[cs.i] == '.' {
		cs.i++
		if digits() == 0 {
			return nil, ErrSyntax
		}
	}
	if cs.i < len(in) && (in[cs.i] == 'e' || in[cs.i] == 'E') {
		cs.i++
		if cs.i < len(in) && (in[cs.i] == '+' || in[cs.i] == '-') {
			cs.i++
		}
		if digits() == 0 {
			return nil, ErrSyntax
		}
	}
	return append(dst, in[start:cs.i]...), nil
}

// str appends the canonical encoding of the string at cs.i to dst and
// returns its unescaped text (a slice of the input when it needs no
// unescaping).
func (cs *canonScanner) str(dst []byte) ([]byte, []byte, error) {
	in := cs.in
	start := cs.i
	i := start + 1
	for i < len(in) {
		c := in[i]
		switch {
		case c == '"':
			cs.i = i + 1
			raw := in[start+1 : i]
			return append(append(append(dst, '"'), raw...), '"'), raw, nil
		case c == '\\' || c < 0x20:
			return cs.slowStr(dst)
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(in[i:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				return cs.slowStr(dst)
			}
			i += size
		}
	}
	return nil, nil, ErrSyntax
}

// slowStr handles a string with escapes or characters encoding/json
// re-escapes: it unescapes the string with encoding/json and encodes it
// again.
func (cs *canonScanner) slowStr(dst []byte) ([]byte, []byte, error) {
	start := cs.i
	i := start + 1
	for i < len(cs.in) && cs.in[i] != '"' {
		if cs.in[i] == '\\' {
			i++
		}
		i++
	}
	if i >= len(cs.in) {
		return nil, nil, ErrSyntax
	}
	cs.i = i + 1
	var s string
	if err := json.Unmarshal(cs.in[start:cs.i], &s); err != nil {
		return nil, nil, err
	}
	return appendString(dst, s), []byte(s), nil
}

func (cs *canonScanner) array(dst []byte) ([]byte, error) {
	cs.i++ // [
	dst = append(dst, '[')
	cs.space()
	if cs.i < len(cs.in) && cs.in[cs.i] == ']' {
		cs.i++
		return append(dst, ']'), nil
	}
	for {
		var err error
		if dst, err = cs.value(dst); err != nil {
			return nil, err
		}
		cs.space()
		if cs.i >= len(cs.in) {
			return nil, ErrSyntax
		}
		switch cs.in[cs.i] {
		case ',':
			cs.i++
			dst = append(dst, ',')
		case ']':
			cs.i++
			return append(dst, ']'), nil
		default:
			return nil, ErrSyntax
		}
	}
}

func (cs *canonScanner) object(dst []byte) ([]byte, error) {
	cs.i++ // {
	open := len(dst)
	dst = append(dst, '{')
	cs.space()
	if cs.i < len(cs.in) && cs.in[cs.i] == '}' {
		cs.i++
		return append(dst, '}'), nil
	}
	var stack [8]member
	ms := stack[:0]
	sorted := true
	for {
		cs.space()
		if cs.i >= len(cs.in) || cs.in[cs.i] != '"' {
			return nil, ErrSyntax
		}
		if len(ms) > 0 {
			dst = append(dst, ',')
		}
		m := member{start: len(dst)}
		var err error
		if dst, m.key, err = cs.str(dst); err != nil {
			return nil, err
		}
		cs.space()
		if cs.i >= len(cs.in) || cs.in[cs.i] != ':' {
			return nil, ErrSyntax
		}
		cs.i++
		dst = append(dst, ':')
		if dst, err = cs.value(dst); err != nil {
			return nil, err
		}
		m.end = len(dst)
		if len(ms) > 0 && bytes.Compare(ms[len(ms)-1].key, m.key) >= 0 {
			sorted = false
		}
		ms = append(ms, m)
		cs.space()
		if cs.i >= len(cs.in) {
			return nil, ErrSyntax
		}
		switch cs.in[cs.i] {
		case ',':
			cs.i++
			continue
		case '}':
			cs.i++
		default:
			return nil, ErrSyntax
		}
		break
	}
	if !sorted {
		dst = cs.reorder(dst, open, ms)
	}
	return append(dst, '}'), nil
}

// reorder rewrites the members after dst[open] ('{') sorted by key, keeping
// the last of duplicate keys, as decoding into a map and encoding it does.
func (cs *canonScanner) reorder(dst []byte, open int, ms []member) []byte {
	base := open + 1
	cs.scratch = append(cs.scratch[:0], dst[base:]...)
	slices.SortStableFunc(ms, func(a, b member) int { return bytes.Compare(a.key, b.key) })
	dst = dst[:base]
	for i, m := range ms {
		if i+1 < len(ms) && bytes.Equal(m.key, ms[i+1].key) {
			continue // a later duplicate wins
		}
		if len(dst) > base {
			dst = append(dst, ',')
		}
		dst = append(dst, cs.scratch[m.start-base:m.end-base]...)
	}
	return dst
}
