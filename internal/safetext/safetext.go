// Package safetext makes untrusted text safe to show: on a terminal, in a
// log, in an error message. A cassette, a peer's message and a child's
// standard error are untrusted; a string of theirs could clear the
// screen, set the window title, write the clipboard (OSC 52), show a link
// whose text lies about its target (OSC 8) or reorder what is read (a
// bidi override). Every place that shows such a string passes it through
// this package.
//
// A character is made visible as an escape that names it: \x1b for a
// byte of C0 or DEL, \u009b for a C1 control, \u202e for a format
// character, \xff for a byte that is not UTF-8, \n, \r and \t for those.
// A backslash already in the text is kept as it is: the result is for
// reading, not for decoding.
//
//	fmt.Fprintf(os.Stderr, "server said: %s\n", safetext.Line(msg))
package safetext

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Line returns s with every control, format and invalid character made
// visible, newlines and tabs included: the result is one line.
func Line(s string) string { return visible(s, false) }

// Text returns s as Line does, but keeps newlines and tabs: the result may
// be several lines.
func Text(s string) string { return visible(s, true) }

// Hidden reports whether r is shown escaped (newlines and tabs aside): a
// C0 or C1 control character, DEL, a format character (Unicode category
// Cf: bidi controls, zero-width characters, the byte order mark, tag
// characters), or a line or paragraph separator.
func Hidden(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f:
		return true
	case r < 0x80:
		return false
	case r <= 0x9f:
		return true
	}
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

func visible(s string, keepLines bool) string {
	i := clean(s, keepLines)
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	b = append(b, s[:i]...)
	return string(appendVisible(b, s[i:], keepLines))
}

// clean returns the length of the prefix of s that needs no escape.
func clean(s string, keepLines bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f || keepLines && (c == '\n' || c == '\t') {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			return i
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || Hidden(r) {
			return i
		}
		i += size
	}
	return len(s)
}

// appendVisible appends s to b, each character that needs it escaped.
func appendVisible(b []byte, s string, keepLines bool) []byte {
	for i := 0; i < len(s); {
		if n := clean(s[i:], keepLines); n > 0 {
			b = append(b, s[i:i+n]...)
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\x`...)
			b = appendHex(b, uint32(s[i]), 2)
		case keepLines && (r == '\n' || r == '\t'):
			b = append(b, byte(r))
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r < 0x80 && Hidden(r):
			b = append(b, `\x`...)
			b = appendHex(b, uint32(r), 2)
		case r <= 0xffff && Hidden(r):
			b = append(b, `\u`...)
			b = appendHex(b, uint32(r), 4)
		case Hidden(r):
			b = append(b, `\U`...)
			b = appendHex(b, uint32(r), 8)
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return b
}

func appendHex(b []byte, v uint32, digits int) []byte {
	h := strconv.FormatUint(uint64(v), 16)
	for n := len(h); n < digits; n++ {
		b = append(b, '0')
	}
	return append(b, h...)
}
