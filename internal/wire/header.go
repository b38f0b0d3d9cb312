package wire

import (
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
