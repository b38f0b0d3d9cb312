package cassette

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"unicode/utf8"
)

// canonicalBytes returns the canonical encoding of the JSON value data, the
// same bytes as encodeTree(decodeTree(data)) (object keys sorted by their
// unescaped text, the last of duplicate keys kept, no insignificant space,
// strings escaped as encoding/json escapes them without HTML escaping,
// numbers as written), without building a tree: it scans the input once,
// copying what is already canonical and re-ordering only objects whose keys
// are out of order. When data is already canonical it returns data itself.
func canonicalBytes(data []byte) ([]byte, error) {
	cs := canonScanner{in: data}
	out, err := cs.value(make([]byte, 0, len(data)))
	if err != nil {
		return nil, err
	}
	cs.space()
	if cs.i != len(cs.in) {
		return nil, errSyntax
	}
	if bytes.Equal(out, data) {
		return data, nil
	}
	return out, nil
}

var errSyntax = errors.New("cassette: invalid JSON")

type canonScanner struct {
	in      []byte
	i       int
	scratch []byte // reused to re-order an object's members
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
		return nil, errSyntax
	}
	switch c := cs.in[cs.i]; {
	case c == '{':
		return cs.object(dst)
	case c == '[':
		return cs.array(dst)
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
	return nil, errSyntax
}

func (cs *canonScanner) literal(dst []byte, lit string) ([]byte, error) {
	if !bytes.HasPrefix(cs.in[cs.i:], []byte(lit)) {
		return nil, errSyntax
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
		return nil, errSyntax
	}
	if cs.i < len(in) && in[cs.i] == '.' {
		cs.i++
		if digits() == 0 {
			return nil, errSyntax
		}
	}
	if cs.i < len(in) && (in[cs.i] == 'e' || in[cs.i] == 'E') {
		cs.i++
		if cs.i < len(in) && (in[cs.i] == '+' || in[cs.i] == '-') {
			cs.i++
		}
		if digits() == 0 {
			return nil, errSyntax
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
	return nil, nil, errSyntax
}

// slowStr handles a string with escapes or characters encoding/json
// re-escapes: it unescapes the string with encoding/json and encodes it
// again as encodeTree would.
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
		return nil, nil, errSyntax
	}
	cs.i = i + 1
	var s string
	if err := json.Unmarshal(cs.in[start:cs.i], &s); err != nil {
		return nil, nil, err
	}
	return append(dst, encodeTree(s)...), []byte(s), nil
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
			return nil, errSyntax
		}
		switch cs.in[cs.i] {
		case ',':
			cs.i++
			dst = append(dst, ',')
		case ']':
			cs.i++
			return append(dst, ']'), nil
		default:
			return nil, errSyntax
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
			return nil, errSyntax
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
			return nil, errSyntax
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
			return nil, errSyntax
		}
		switch cs.in[cs.i] {
		case ',':
			cs.i++
			continue
		case '}':
			cs.i++
		default:
			return nil, errSyntax
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
