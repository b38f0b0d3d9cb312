// Package wire reads JSON-RPC messages exactly as the go-sdk reads them.
//
// Whatever in this module decides something from a message before the
// go-sdk sees it (how a server routes a request, what a transport hands on)
// must read that message as the go-sdk will, or the two readings can be
// played against each other: a body whose "_META" key one parser matches
// and the other ignores is served down one path and decoded on another. The
// go-sdk v1.8.0 decodes with github.com/segmentio/encoding/json, matching
// object keys case-sensitively, keeping the last of duplicate keys, and
// refusing input nested deeper than 1,000 levels before decoding it; it
// reads the first JSON value of its input and ignores what follows it. This
// package does the same, with the same decoder, and without the 32 KiB
// buffer the go-sdk's decoder allocates for every message it reads.
//
// Its tests fuzz it differentially against the go-sdk's
// jsonrpc.DecodeMessage, and against the decoder configured as the go-sdk
// configures it.
package wire

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"

	"github.com/looprig/mcp/internal/jsonscan"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/segmentio/encoding/json"
)

// MaxDepth is the deepest nesting of objects and arrays that Unmarshal
// accepts, as the go-sdk's decoder does.
const MaxDepth = 1000

// ErrTooDeep is returned when the input nests objects and arrays deeper
// than MaxDepth.
var ErrTooDeep = fmt.Errorf("json: exceeded maximum nesting depth of %d", MaxDepth)

// Unmarshal decodes the first JSON value of data into v as the go-sdk's
// internal decoder does: keys match struct fields case-sensitively, the
// last of duplicate keys wins, and bytes after the first value are
// ignored. Input nested deeper than MaxDepth is refused with ErrTooDeep
// before anything is decoded.
func Unmarshal(data []byte, v any) error {
	if tooDeep(data) {
		return ErrTooDeep
	}
	_, err := json.Parse(data, v, json.DontMatchCaseInsensitiveStructFields)
	return err
}

// tooDeep reports whether data opens more than MaxDepth objects and arrays
// at once, counting the brackets outside strings through the whole input.
// Input with no more than MaxDepth opening brackets anywhere, strings
// included, cannot: most messages are told so by their length, or by a
// vectorised count, without the byte-by-byte scan.
func tooDeep(data []byte) bool {
	if len(data) <= MaxDepth || bytes.Count(data, openObject)+bytes.Count(data, openArray) <= MaxDepth {
		return false
	}
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			s := jsonscan.Scanner{Data: data, Pos: i}
			if _, err := s.String(); err != nil {
				return false // the rest is a string
			}
			i = s.Pos - 1
		case '{', '[':
			if depth++; depth > MaxDepth {
				return true
			}
		case '}', ']':
			depth = max(depth-1, 0)
		}
	}
	return false
}

var openObject, openArray = []byte("{"), []byte("[")

// message is the shape in which the go-sdk decodes every JSON-RPC message.
// Method is raw so that a "method" key whose value is "" is told from a
// missing one.
type message struct {
	Version string             `json:"jsonrpc"`
	ID      any                `json:"id,omitempty"`
	Method  stdjson.RawMessage `json:"method"`
	Params  stdjson.RawMessage `json:"params,omitempty"`
	Result  stdjson.RawMessage `json:"result,omitempty"`
	Error   *jsonrpc.Error     `json:"error,omitempty"`
}

// DecodeMessage decodes one JSON-RPC message as jsonrpc.DecodeMessage does:
// a *jsonrpc.Request when the "method" key is present, else a
// *jsonrpc.Response, which must have an id.
func DecodeMessage(data []byte) (jsonrpc.Message, error) {
	var m message
	if err := Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	if m.Version != "2.0" {
		return nil, fmt.Errorf("invalid message version tag %q; expected %q", m.Version, "2.0")
	}
	id, err := jsonrpc.MakeID(m.ID)
	if err != nil {
		return nil, err
	}
	if len(m.Method) > 0 {
		var method string
		if err := Unmarshal(m.Method, &method); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: m.Params}, nil
	}
	if !id.IsValid() {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request"}
	}
	resp := &jsonrpc.Response{ID: id, Result: m.Result}
	if m.Error != nil {
		resp.Error = m.Error
	}
	return resp, nil
}

// ReadBatch decodes a body that is one JSON-RPC message or an array of
// them, as the go-sdk's transports read a body or a line: an array is a
// batch (an empty one is refused), anything else one message.
func ReadBatch(data []byte) (msgs []jsonrpc.Message, isBatch bool, err error) {
	var raw []stdjson.RawMessage
	if Unmarshal(data, &raw) == nil {
		if len(raw) == 0 {
			return nil, true, errors.New("empty batch")
		}
		for _, r := range raw {
			msg, err := DecodeMessage(r)
			if err != nil {
				return nil, true, err
			}
			msgs = append(msgs, msg)
		}
		return msgs, true, nil
	}
	msg, err := DecodeMessage(data)
	return []jsonrpc.Message{msg}, false, err
}
