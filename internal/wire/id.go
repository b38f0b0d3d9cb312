package wire

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SameID reports whether id, a request id as the go-sdk read it, is the
// value of raw, the id's bytes as sent (Envelope.ID), so that a reply
// carrying id carries the request's own id. The go-sdk reads a number
// into a float64 and keeps int64(that): 9007199254740993 becomes
// 9007199254740992, 1.5 becomes 1, and a number past the int64 range the
// smallest int64. It reads a string with invalid UTF-8 or a lone surrogate
// escape with U+FFFD in their place. Such ids are not the same; a number
// whose value is the integer kept (1e2 for 100, -0 for 0) and a string
// whose value is the one kept (escaped or not) are.
func SameID(raw []byte, id jsonrpc.ID) bool {
	switch v := id.Raw().(type) {
	case int64:
		d, ok := integerOf(raw)
		return ok && d == strconv.FormatInt(v, 10)
	case string:
		s, ok := exactString(raw)
		return ok && s == v
	}
	return false
}

// integerOf returns the decimal form of the JSON number raw (an optional
// minus sign, then digits without leading zeros) if its value is an
// integer of at most 19 digits, the most an int64 has. It works on the
// digits as written, so an exponent of any size costs nothing.
func integerOf(raw []byte) (string, bool) {
	s := string(raw)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return "", false
	}
	point := len(intPart) // the value is 0.digits × 10^point
	if hasExp {
		e, err := strconv.ParseInt(exp, 10, 32)
		if err != nil {
			// An exponent past ±2^31 makes a number no int64 holds,
			// unless its digits are all zero.
			if errors.Is(err, strconv.ErrRange) && strings.Trim(digits, "0") == "" {
				return "0", true
			}
			return "", false
		}
		point += int(e)
	}
	trimmed := strings.TrimLeft(digits, "0")
	point -= len(digits) - len(trimmed)
	trimmed = strings.TrimRight(trimmed, "0")
	switch {
	case trimmed == "":
		return "0", true
	case point < len(trimmed), point > 19:
		return "", false
	}
	d := trimmed + strings.Repeat("0", point-len(trimmed))
	if neg {
		d = "-" + d
	}
	return d, true
}

// exactString decodes a JSON string, reporting false if it holds invalid
// UTF-8, a control character, or an escape that is not one (a lone
// surrogate among them): anything a decoder would have to replace.
func exactString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	raw = raw[1 : len(raw)-1]
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			r, n, ok := unescape(raw[i:])
			if !ok {
				return "", false
			}
			out = utf8.AppendRune(out, r)
			i += n
		case c < 0x20 || c == '"':
			return "", false
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, n := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && n <= 1 {
				return "", false
			}
			out = append(out, raw[i:i+n]...)
			i += n
		}
	}
	return string(out), true
}

// unescape decodes the escape at the start of b: one character, or a
// surrogate pair of \u escapes.
func unescape(b []byte) (rune, int, bool) {
	if len(b) < 2 {
		return 0, 0, false
	}
	switch b[1] {
	case '"', '\\', '/':
		return rune(b[1]), 2, true
	case 'b':
		return '\b', 2, true
	case 'f':
		return '\f', 2, true
	case 'n':
		return '\n', 2, true
	case 'r':
		return '\r', 2, true
	case 't':
		return '\t', 2, true
	case 'u':
		r, ok := hex4(b[2:])
		if !ok {
			return 0, 0, false
		}
		if !utf16.IsSurrogate(r) {
			return r, 6, true
		}
		if len(b) < 12 || b[6] != '\\' || b[7] != 'u' {
			return 0, 0, false
		}
		r2, ok := hex4(b[8:])
		if d := utf16.DecodeRune(r, r2); ok && d != utf8.RuneError {
			return d, 12, true
		}
	}
	return 0, 0, false
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 16)
	return rune(n), err == nil
}

// ProtocolVersion returns the protocol version a request's params name in
// their _meta ("io.modelcontextprotocol/protocolVersion"), read as the
// go-sdk reads it: the value when it is a string, "" when it is anything
// else, is missing, or the params do not decode.
func ProtocolVersion(params []byte) string {
	if len(params) == 0 {
		return ""
	}
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	if Unmarshal(params, &p) != nil {
		return ""
	}
	v, _ := p.Meta[mcp.MetaKeyProtocolVersion].(string)
	return v
}
