package wire

import (
	stdjson "encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/segmentio/encoding/json"
)

// A Header is what a reader of a message needs to route it: whether it is
// a request (a call or a notification) or a response, its id and its
// method.
type Header struct {
	Request   bool       // a request (Method set); else a response
	ID        jsonrpc.ID // invalid for a notification
	Method    string     // a request's method
	HasResult bool       // a response with a result (null counts)
	HasError  bool       // a response with an error
}

// IsCall reports whether the message is a request with an id.
func (h Header) IsCall() bool { return h.Request && h.ID.IsValid() }

// DecodeHeader reads data as DecodeMessage does, accepting and refusing
// the same input, and returns the header of the message DecodeMessage
// would return. It does not copy the params, result or error: reading a
// large result's header allocates nothing for the result.
func DecodeHeader(data []byte) (Header, error) {
	if tooDeep(data) {
		return Header{}, fmt.Errorf("unmarshaling jsonrpc message: %w", ErrTooDeep)
	}
	var r rawHeader
	if _, err := json.Parse(data, &r, json.DontMatchCaseInsensitiveStructFields|json.DontCopyRawMessage); err == nil {
		if h, ok := r.header(); ok {
			return h, nil
		}
	}
	var m message
	if _, err := json.Parse(data, &m, json.DontMatchCaseInsensitiveStructFields|json.DontCopyRawMessage); err != nil {
		return Header{}, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	if m.Version != "2.0" {
		return Header{}, fmt.Errorf("invalid message version tag %q; expected %q", m.Version, "2.0")
	}
	id, err := jsonrpc.MakeID(m.ID)
	if err != nil {
		return Header{}, err
	}
	if len(m.Method) > 0 {
		var method string
		if err := Unmarshal(m.Method, &method); err != nil {
			return Header{}, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
		return Header{Request: true, ID: id, Method: method}, nil
	}
	if !id.IsValid() {
		return Header{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request"}
	}
	return Header{ID: id, HasResult: len(m.Result) > 0, HasError: m.Error != nil}, nil
}

// rawHeader is a message's header as written. Its values need no decoding
// in the common case (header): a version of "2.0", an id that is null, a
// small integer or a plain string, a plain string method, no error; that
// is the message DecodeMessage reads, and it reads it without a copy.
// Anything else is read the go-sdk's way, through message.
type rawHeader struct {
	Version stdjson.RawMessage `json:"jsonrpc"`
	ID      stdjson.RawMessage `json:"id"`
	Method  stdjson.RawMessage `json:"method"`
	Result  stdjson.RawMessage `json:"result"`
	Error   stdjson.RawMessage `json:"error"`
}

// header returns the header r is of, if r is of the common case.
func (r *rawHeader) header() (Header, bool) {
	if string(r.Version) != `"2.0"` || len(r.Error) > 0 {
		return Header{}, false
	}
	var id jsonrpc.ID
	switch {
	case len(r.ID) == 0 || string(r.ID) == "null":
	case r.ID[0] == '"':
		s, ok := plainString(r.ID)
		if !ok {
			return Header{}, false
		}
		id, _ = jsonrpc.MakeID(s) // a string: it cannot fail
	default:
		n, ok := smallInteger(r.ID)
		if !ok {
			return Header{}, false
		}
		id, _ = jsonrpc.MakeID(float64(n)) // as the go-sdk makes it: it cannot fail
	}
	if len(r.Method) == 0 {
		if !id.IsValid() {
			return Header{}, false
		}
		return Header{ID: id, HasResult: len(r.Result) > 0}, true
	}
	method, ok := plainString(r.Method)
	return Header{Request: true, ID: id, Method: method}, ok
}

// plainString returns the value of the JSON string raw if it is printable
// ASCII without escapes: a value that decodes to its bytes as they are.
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c < 0x20 || c >= 0x7f || c == '\\' || c == '"' {
			return "", false
		}
	}
	return string(body), true
}

// smallInteger returns the value of the JSON number raw if it is an
// integer written with at most 15 digits and no fraction or exponent: one
// a float64 holds exactly, as the go-sdk reads ids.
func smallInteger(raw []byte) (int64, bool) {
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && len(digits) > 1) {
		return 0, false
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = 10*n + int64(c-'0')
	}
	if raw[0] == '-' {
		n = -n
	}
	return n, true
}
