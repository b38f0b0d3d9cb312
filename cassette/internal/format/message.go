package format

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/looprig/mcp/internal/canonjson"
	"github.com/looprig/mcp/internal/jsonscan"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Message kinds, as the scheduler and the match keys tell them apart.
const (
	MsgCall     = 'c' // a request with an id
	MsgNote     = 'n' // a notification
	MsgResponse = 'r' // a response
)

// A MsgInfo is what this package reads of a canonical JSON-RPC message
// without decoding it: the rules of jsonrpc.DecodeMessage, applied to the
// bytes in one pass over the top-level members.
type MsgInfo struct {
	Kind   byte   // MsgCall, MsgNote, MsgResponse
	ID     string // the id as a key ("n:7", "s:abc"); "" for none
	RawID  []byte // the id as written
	Method string
	Params []byte // the raw params, result and error; nil when absent
	Result []byte
	Error  []byte
}

var errNotMessage = errors.New("not a JSON-RPC 2.0 message")

// ScanMessage reads a canonical JSON-RPC message.
func ScanMessage(canon []byte) (MsgInfo, error) {
	var m MsgInfo
	var version, method []byte
	hasMethod := false
	err := Members(canon, func(key, val []byte) error {
		switch string(key) {
		case "jsonrpc":
			version = val
		case "id":
			if string(val) != "null" {
				m.RawID = val
			}
		case "method":
			method, hasMethod = val, true
		case "params":
			m.Params = val
		case "result":
			m.Result = val
		case "error":
			m.Error = val
		}
		return nil
	})
	if err != nil {
		return m, err
	}
	if string(version) != `"2.0"` {
		return m, fmt.Errorf("%w: jsonrpc is %s, want \"2.0\"", errNotMessage, orNone(version))
	}
	if m.RawID != nil {
		if m.ID, err = IDKey(m.RawID); err != nil {
			return m, err
		}
	}
	switch {
	case hasMethod:
		if len(method) == 0 || method[0] != '"' {
			return m, fmt.Errorf("%w: method is %s", errNotMessage, method)
		}
		text, err := jsonscan.Unquote(method)
		if err != nil {
			return m, canonjson.ScanError(err)
		}
		m.Method = string(text)
		m.Kind = MsgNote
		if m.ID != "" {
			m.Kind = MsgCall
		}
	case m.ID == "":
		return m, fmt.Errorf("%w: a response without an id", errNotMessage)
	default:
		m.Kind = MsgResponse
		if m.Error != nil {
			var e jsonrpc.Error
			if err := json.Unmarshal(m.Error, &e); err != nil {
				return m, fmt.Errorf("%w: error: %v", errNotMessage, err)
			}
		}
	}
	return m, nil
}

func orNone(b []byte) string {
	if b == nil {
		return "missing"
	}
	return string(b)
}

// IDKey returns the key of a raw id: a string, or an integer compared by
// its value exactly ("3", "3.0" and "3e0" alike). A number that is not an
// integer, or not one an int64 holds, is no id: 3.5 never pairs with 3.
func IDKey(raw []byte) (string, error) {
	switch {
	case len(raw) > 0 && raw[0] == '"':
		text, err := jsonscan.Unquote(raw)
		if err != nil {
			return "", canonjson.ScanError(err)
		}
		return "s:" + string(text), nil
	case len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9'):
		n, err := integerID(raw)
		if err != nil {
			return "", err
		}
		return "n:" + strconv.FormatInt(n, 10), nil
	}
	return "", fmt.Errorf("%w: id %s is neither a number nor a string", errNotMessage, raw)
}

// errIDNotInteger is returned for a number id that is not an integer an
// int64 holds.
var errIDNotInteger = errors.New("not an integer id")

// integerID returns the value of the JSON number raw, exactly, when it is
// an integer an int64 holds.
func integerID(raw []byte) (int64, error) {
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return n, nil
	}
	bad := fmt.Errorf("%w: id %s", errIDNotInteger, raw)
	num := string(raw)
	neg := strings.HasPrefix(num, "-")
	num = strings.TrimPrefix(num, "-")
	mant, exp, hasExp := strings.Cut(strings.ToLower(num), "e")
	whole, frac, _ := strings.Cut(mant, ".")
	e := 0
	if hasExp {
		var err error
		// More than 6 digits of exponent says out of range, or a fraction,
		// either way no id; a bound, so that nothing is computed from it.
		if e, err = strconv.Atoi(strings.TrimPrefix(exp, "+")); err != nil || e > 1e6 || e < -1e6 {
			return 0, bad
		}
	}
	digits := strings.TrimLeft(whole+frac, "0")
	e -= len(frac)
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits, e = digits[:len(digits)-1], e+1
	}
	if digits == "" {
		return 0, nil
	}
	if e < 0 || len(digits)+e > 19 {
		return 0, bad
	}
	if neg {
		digits = "-" + digits
	}
	n, err := strconv.ParseInt(digits+strings.Repeat("0", e), 10, 64)
	if err != nil {
		return 0, bad
	}
	return n, nil
}

// LiveIDKey returns the key of a live message's id.
func LiveIDKey(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case int64:
		return "n:" + strconv.FormatInt(v, 10)
	case string:
		return "s:" + v
	}
	return ""
}

// ToMessage builds the jsonrpc.Message that m describes, without decoding
// its params or result.
func (m *MsgInfo) ToMessage() jsonrpc.Message {
	id := makeID(m.ID)
	if m.Kind != MsgResponse {
		return &jsonrpc.Request{ID: id, Method: m.Method, Params: json.RawMessage(m.Params)}
	}
	r := &jsonrpc.Response{ID: id, Result: json.RawMessage(m.Result)}
	if m.Error != nil {
		e := new(jsonrpc.Error)
		json.Unmarshal(m.Error, e) // ScanMessage checked it
		r.Error = e
	}
	return r
}

// makeID returns the id whose key is k.
func makeID(k string) jsonrpc.ID {
	var v any
	switch {
	case len(k) > 2 && k[0] == 's':
		v = k[2:]
	case len(k) > 2 && k[0] == 'n':
		n, _ := strconv.ParseInt(k[2:], 10, 64)
		v = float64(n)
	case k == "s:":
		v = ""
	default:
		return jsonrpc.ID{}
	}
	id, _ := jsonrpc.MakeID(v)
	return id
}

// CanonicalMessage returns the canonical encoding of a live message.
func CanonicalMessage(m jsonrpc.Message) ([]byte, error) {
	data, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return nil, err
	}
	return canonjson.Canonical(data)
}

// Members calls f with the text of each key and the raw value of each
// member of the JSON object obj, which is canonical.
func Members(obj []byte, f func(key, val []byte) error) error {
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' {
		return fmt.Errorf("%w: not an object", errNotMessage)
	}
	s := jsonscan.Scanner{Data: obj}
	err := s.Members(func(key, val []byte) error {
		text, err := jsonscan.Unquote(key)
		if err != nil {
			return err
		}
		return f(text, val)
	})
	if err == nil && s.Pos != len(obj) {
		err = jsonscan.ErrSyntax
	}
	return canonjson.ScanError(err)
}

// SkipValue returns the end of the JSON value that starts at b[i].
func SkipValue(b []byte, i int) (int, error) {
	s := jsonscan.Scanner{Data: b, Pos: i}
	if err := s.Skip(); err != nil {
		return 0, canonjson.ScanError(err)
	}
	return s.Pos, nil
}

// AsMessage reports whether raw is a JSON-RPC message, and returns it
// canonical.
func AsMessage(raw []byte) ([]byte, MsgInfo, bool) {
	canon, err := canonjson.CanonicalNested(raw, 1) // as a line holds it
	if err != nil {
		return nil, MsgInfo{}, false
	}
	info, err := ScanMessage(canon)
	return canon, info, err == nil
}
