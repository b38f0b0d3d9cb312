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

	"github.com/looprig/mcp/internal/jsonscan"
)

// ErrSyntax is returned when the input is not one JSON value.
var ErrSyntax = errors.New("canonjson: invalid JSON")

// MaxDepth is the deepest nesting of objects and arrays a value may have:
// encoding/json's own bound, so that what it decodes is accepted here.
const MaxDepth = jsonscan.MaxDepth

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
	cs := canonScanner{Scanner: jsonscan.Scanner{Data: data, Depth: outer}}
	out, err := cs.value(dst)
	if err != nil {
		return nil, ScanError(err)
	}
	cs.Space()
	if cs.Pos != len(data) {
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
	jsonscan.Scanner
	scratch []byte // reused to re-order an object's members
}

// member is one object member: its unescaped key and where its canonical
// encoding ("key":value) lies in the output.
type member struct {
	key        []byte
	start, end int
}

// ScanError returns an error of jsonscan as this package's: ErrSyntax or
// ErrTooDeep for jsonscan's, err itself for any other.
func ScanError(err error) error {
	switch err {
	case jsonscan.ErrSyntax:
		return ErrSyntax
	case jsonscan.ErrTooDeep:
		return ErrTooDeep
	}
	return err
}

// value appends the canonical encoding of the next value to dst.
func (cs *canonScanner) value(dst []byte) ([]byte, error) {
	cs.Space()
	switch c := cs.Peek(); c {
	case '{', '[':
		if err := cs.Open(); err != nil {
			return nil, err
		}
		if c == '{' {
			return cs.object(dst)
		}
		return cs.array(dst)
	case '"':
		out, _, err := cs.str(dst, false)
		return out, err
	}
	start := cs.Pos
	if err := cs.Scalar(); err != nil { // a number or a literal, copied as written
		return nil, err
	}
	return append(dst, cs.Data[start:cs.Pos]...), nil
}

// str appends the canonical encoding of the string at Pos to dst and, if
// key, returns its unescaped text (a slice of the input when it needs no
// unescaping).
func (cs *canonScanner) str(dst []byte, key bool) ([]byte, []byte, error) {
	start := cs.Pos
	str, err := cs.String()
	if err != nil {
		return nil, nil, err
	}
	raw := cs.Data[start:cs.Pos]
	if str == 0 || str == jsonscan.NonASCII && canonicalText(raw[1:len(raw)-1]) {
		return append(dst, raw...), raw[1 : len(raw)-1], nil
	}
	// An escape, or a character encoding/json escapes: decode and encode
	// again.
	s, err := jsonscan.UnquoteString(raw)
	if err != nil {
		return nil, nil, err
	}
	var text []byte
	if key {
		text = []byte(s)
	}
	return appendString(dst, s), text, nil
}

// canonicalText reports whether text, a string's body without escapes or
// control characters, is as encoding/json writes it: valid UTF-8 without
// U+2028 or U+2029, which it escapes.
func canonicalText(text []byte) bool {
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += size
	}
	return true
}

func (cs *canonScanner) array(dst []byte) ([]byte, error) {
	dst = append(dst, '[')
	for first := true; ; first = false {
		more, err := cs.More(']', first)
		if err != nil {
			return nil, err
		}
		if !more {
			return append(dst, ']'), nil
		}
		if !first {
			dst = append(dst, ',')
		}
		if dst, err = cs.value(dst); err != nil {
			return nil, err
		}
	}
}

func (cs *canonScanner) object(dst []byte) ([]byte, error) {
	open := len(dst)
	dst = append(dst, '{')
	var stack [8]member
	ms := stack[:0]
	sorted := true
	for first := true; ; first = false {
		more, err := cs.More('}', first)
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
		cs.Space()
		if !first {
			dst = append(dst, ',')
		}
		m := member{start: len(dst)}
		if dst, m.key, err = cs.str(dst, true); err != nil {
			return nil, err
		}
		if err := cs.Colon(); err != nil {
			return nil, err
		}
		dst = append(dst, ':')
		if dst, err = cs.value(dst); err != nil {
			return nil, err
		}
		m.end = len(dst)
		if len(ms) > 0 && bytes.Compare(ms[len(ms)-1].key, m.key) >= 0 {
			sorted = false
		}
		ms = append(ms, m)
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
