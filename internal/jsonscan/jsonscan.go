// Package jsonscan is this module's one JSON scanner: it finds where
// values, strings and object members begin and end in JSON text, checking
// the grammar as encoding/json does, without decoding anything.
//
// Its users add what is theirs: canonjson writes the canonical form,
// wire reads keys as the go-sdk does, and the cassette format reads a
// JSON-RPC message's members. A value may nest objects and arrays
// [MaxDepth] levels deep; deeper input is refused with [ErrTooDeep]. No
// function recurses: nesting costs one bit of a stack per level.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of objects and arrays a value may have:
// encoding/json's own bound.
const MaxDepth = 10000

var (
	// ErrSyntax is returned when the input is not JSON.
	ErrSyntax = errors.New("invalid JSON")
	// ErrTooDeep is returned when the input nests objects and arrays
	// deeper than MaxDepth.
	ErrTooDeep = fmt.Errorf("nested deeper than %d levels", MaxDepth)
)

// A Scanner reads the JSON text Data from Pos on.
type Scanner struct {
	Data  []byte
	Pos   int
	Depth int // objects and arrays open around Pos, counted against MaxDepth
}

// Valid reports whether data is one JSON value, as json.Valid does.
func Valid(data []byte) bool {
	s := Scanner{Data: data}
	if s.Skip() != nil {
		return false
	}
	s.Space()
	return s.Pos == len(data)
}

// Space moves past white space.
func (s *Scanner) Space() {
	for s.Pos < len(s.Data) && whiteSpace[s.Data[s.Pos]] {
		s.Pos++
	}
}

var whiteSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// Peek returns the byte at Pos, or 0 at the end.
func (s *Scanner) Peek() byte {
	if s.Pos < len(s.Data) {
		return s.Data[s.Pos]
	}
	return 0
}

// A Str tells what a string holds besides printable ASCII.
type Str uint8

const (
	Escaped  Str = 1 << iota // a backslash escape
	NonASCII                 // a byte of 0x80 or more
	Invalid                  // a control character or a malformed escape
)

// plainASCII holds the ASCII bytes a string holds as they are: all but
// the quote, the backslash and control characters below 0x20. plainAny
// holds them and the bytes of 0x80 or more.
var plainASCII, plainAny = func() (ascii, any [256]bool) {
	for c := 0x20; c < 0x100; c++ {
		any[c] = c != '"' && c != '\\'
		ascii[c] = any[c] && c < 0x80
	}
	return ascii, any
}()

// String moves past the string at Pos and reports what it holds. Its end
// is the first quote not escaped; the error is ErrSyntax only when there
// is none. A string holding an Invalid byte is not JSON.
func (s *Scanner) String() (Str, error) { return s.str(&plainASCII) }

// str is String, telling NonASCII only if plain does not hold those bytes.
func (s *Scanner) str(plain *[256]bool) (Str, error) {
	in := s.Data
	if s.Pos >= len(in) || in[s.Pos] != '"' {
		return 0, ErrSyntax
	}
	var str Str
	for i := s.Pos + 1; i < len(in); {
		for i < len(in) && plain[in[i]] {
			i++
		}
		if i >= len(in) {
			break
		}
		c := in[i]
		switch {
		case c == '"':
			s.Pos = i + 1
			return str, nil
		case c == '\\':
			str |= Escaped
			i += 2
			if i-1 < len(in) && !validEscape(in, i-1) {
				str |= Invalid
			} else if i-1 < len(in) && in[i-1] == 'u' {
				i += 4
			}
		case c < 0x20:
			str |= Invalid
			i++
		default:
			str |= NonASCII
			i++
		}
	}
	return 0, ErrSyntax
}

// validEscape reports whether the escape whose letter is at in[i] is one
// JSON has; a \u escape needs four hex digits.
func validEscape(in []byte, i int) bool {
	switch in[i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	case 'u':
		if i+5 > len(in) {
			return false
		}
		for _, c := range in[i+1 : i+5] {
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
		return true
	}
	return false
}

// Unquote returns the text of the string raw, as encoding/json decodes it:
// a slice of raw when it holds no escape, control character or invalid
// UTF-8, else a copy.
func Unquote(raw []byte) ([]byte, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, ErrSyntax
	}
	body := raw[1 : len(raw)-1]
	if plainText(body) {
		return body, nil
	}
	text, err := UnquoteString(raw)
	if err != nil {
		return nil, err
	}
	return []byte(text), nil
}

// UnquoteString returns the text of the string raw, as encoding/json
// decodes it, always a copy.
func UnquoteString(raw []byte) (string, error) {
	var text string
	err := json.Unmarshal(raw, &text)
	return text, err
}

// plainText reports whether b, a string's body, decodes to itself: it
// holds no escape or control character, and is valid UTF-8.
func plainText(b []byte) bool {
	ascii := true
	for _, c := range b {
		if !plainASCII[c] {
			if c < utf8.RuneSelf {
				return false
			}
			ascii = false
		}
	}
	return ascii || utf8.Valid(b)
}

// Literal moves past true, false or null.
func (s *Scanner) Literal() error {
	for _, lit := range [...]string{"true", "false", "null"} {
		if bytes.HasPrefix(s.Data[s.Pos:], []byte(lit)) {
			s.Pos += len(lit)
			return nil
		}
	}
	return ErrSyntax
}

// Number moves past the number at Pos, checking its grammar.
func (s *Scanner) Number() error {
	in := s.Data
	i := s.Pos
	digits := func() int {
		n := 0
		for i < len(in) && in[i] >= '0' && in[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(in) && in[i] == '-' {
		i++
	}
	if i < len(in) && in[i] == '0' {
		i++
	} else if digits() == 0 {
		return ErrSyntax
	}
	if i < len(in) && in[i] == '.' {
		i++
		if digits() == 0 {
			return ErrSyntax
		}
	}
	if i < len(in) && (in[i] == 'e' || in[i] == 'E') {
		i++
		if i < len(in) && (in[i] == '+' || in[i] == '-') {
			i++
		}
		if digits() == 0 {
			return ErrSyntax
		}
	}
	s.Pos = i
	return nil
}

// Scalar moves past the string, number or literal at Pos.
func (s *Scanner) Scalar() error { return s.scalar(s.Peek()) }

// scalar is Scalar of the value starting with c.
func (s *Scanner) scalar(c byte) error {
	switch {
	case c == '"':
		str, err := s.str(&plainAny)
		if err == nil && str&Invalid != 0 {
			err = ErrSyntax
		}
		return err
	case c == 't' || c == 'f' || c == 'n':
		return s.Literal()
	case c == '-' || c >= '0' && c <= '9':
		return s.Number()
	}
	return ErrSyntax
}
