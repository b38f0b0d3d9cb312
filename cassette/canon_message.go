package cassette

import (
	"strconv"

	"github.com/looprig/mcp/internal/canonjson"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// canonicalMessage returns the canonical encoding of m: the same bytes as
// canonjson.Canonical(jsonrpc.EncodeMessage(m)), built directly from the
// message's fields, whose params and result are already encoded JSON. It
// handles requests, notifications and responses without an error; for any
// other message (and a string id or method that needs escaping) ok is false
// and the caller takes the general path.
func canonicalMessage(m jsonrpc.Message) (out []byte, ok bool, err error) {
	switch m := m.(type) {
	case *jsonrpc.Request:
		out = make([]byte, 0, len(m.Params)+64)
		out = append(out, '{')
		if out, ok = appendID(out, m.ID); !ok {
			return nil, false, nil
		}
		out = append(out, `"jsonrpc":"2.0"`...)
		if m.Method != "" {
			if !plain(m.Method) {
				return nil, false, nil
			}
			out = append(out, `,"method":"`...)
			out = append(out, m.Method...)
			out = append(out, '"')
		}
		if len(m.Params) > 0 {
			if out, err = canonjson.Append(append(out, `,"params":`...), m.Params); err != nil {
				return nil, false, err
			}
		}
		return append(out, '}'), true, nil
	case *jsonrpc.Response:
		if m.Error != nil {
			return nil, false, nil
		}
		out = make([]byte, 0, len(m.Result)+48)
		out = append(out, '{')
		if out, ok = appendID(out, m.ID); !ok {
			return nil, false, nil
		}
		out = append(out, `"jsonrpc":"2.0"`...)
		if len(m.Result) > 0 {
			if out, err = canonjson.Append(append(out, `,"result":`...), m.Result); err != nil {
				return nil, false, err
			}
		}
		return append(out, '}'), true, nil
	}
	return nil, false, nil
}

// appendID appends `"id":ID,` for a valid id, nothing for none.
func appendID(out []byte, id jsonrpc.ID) ([]byte, bool) {
	switch v := id.Raw().(type) {
	case nil:
		return out, true
	case int64:
		out = append(out, `"id":`...)
		return append(strconv.AppendInt(out, v, 10), ','), true
	case string:
		if !plain(v) {
			return out, false
		}
		out = append(out, `"id":"`...)
		out = append(out, v...)
		return append(out, `",`...), true
	}
	return out, false
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
