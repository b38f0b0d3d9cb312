package wire

import (
	"bytes"
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
	// A request's params as written (nil if it has none), which the
	// go-sdk's Request.Params holds: a slice of the input, not a copy.
	Params stdjson.RawMessage
	// Trailing: more than white space follows the message, which the
	// go-sdk ignores (a stricter reader refuses the input).
	Trailing bool
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
	if rest, err := json.Parse(data, &r, json.DontMatchCaseInsensitiveStructFields|json.DontCopyRawMessage); err == nil {
		if h, ok := r.header(); ok {
			h.Trailing = len(bytes.TrimSpace(rest)) > 0
			return h, nil
		}
	}
	return decodeHeader(data)
}

// decodeHeader is DecodeHeader of a message not of the common case, read
// the go-sdk's way.
func decodeHeader(data []byte) (Header, error) {
	var m message
	rest, err := json.Parse(data, &m, json.DontMatchCaseInsensitiveStructFields|json.DontCopyRawMessage)
	if err != nil {
		return Header{}, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	trailing := len(bytes.TrimSpace(rest)) > 0
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
		return Header{Request: true, ID: id, Method: method, Params: m.Params, Trailing: trailing}, nil
	}
	if !id.IsValid() {
		return Header{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request"}
	}
	return Header{ID: id, HasResult: len(m.Result) > 0, HasError: m.Error != nil, Trailing: trailing}, nil
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
	Params  stdjson.RawMessage `json:"params"`
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
	method, ok := methodName(r.Method)
	return Header{Request: true, ID: id, Method: method, Params: r.Params}, ok
}

// methodName is plainString of a method: the methods MCP names are
// returned without allocating a string for them.
func methodName(raw []byte) (string, bool) {
	if len(raw) < 2 || !isPlain(raw) {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if m, ok := methodNames[string(body)]; ok { // looked up without a conversion
		return m, true
	}
	return string(body), true
}

// methodNames holds each method MCP names, under itself.
var methodNames = func() map[string]string {
	names := map[string]string{}
	for _, m := range []string{
		"initialize", "ping", "server/discover", "logging/setLevel", "completion/complete",
		"tools/call", "tools/list", "resources/read", "resources/list", "resources/templates/list",
		"resources/subscribe", "prompts/get", "prompts/list",
		"sampling/createMessage", "elicitation/create", "roots/list",
		"tasks/get", "tasks/result", "tasks/cancel", "tasks/update", "tasks/list",
		"notifications/initialized", "notifications/message", "notifications/progress",
		"notifications/cancelled", "notifications/resources/updated", "notifications/tools/list_changed",
	} {
		names[m] = m
	}
	return names
}()

// plainString returns the value of the JSON string raw if it is printable
// ASCII without escapes: a value that decodes to its bytes as they are.
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || !isPlain(raw) {
		return "", false
	}
	return string(raw[1 : len(raw)-1]), true
}

// isPlain reports whether raw, of two bytes or more, is a JSON string of
// printable ASCII without escapes.
func isPlain(raw []byte) bool {
	if raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	for _, c := range raw[1 : len(raw)-1] {
		if c < 0x20 || c >= 0x7f || c == '\\' || c == '"' {
			return false
		}
	}
	return true
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
