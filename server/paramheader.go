package server

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"

	"github.com/looprig/mcp/internal/wire"
	"github.com/looprig/mcp/protocol"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A paramHeader is an argument of a tool mirrored in an Mcp-Param-*
// header (an x-mcp-header annotation of its input schema).
type paramHeader struct {
	path   []string // the property names from the arguments' root
	header string   // the name after Mcp-Param-
}

// maxSafeInteger bounds the integers an Mcp-Param-* header carries
// (SEP-2243: the integers a double holds exactly).
const maxSafeInteger = 1<<53 - 1

// checkParamHeaders checks the Mcp-Param-* headers of a 2026-07-28
// tools/call before the go-sdk's own checks do. It refuses two faults.
// The go-sdk would report them as a header mismatch although the header is
// not at fault, or would not report them at all:
//
//   - a mirrored argument whose value no header can carry (not a string,
//     a boolean or an integer of at most 2^53-1 in magnitude: 1e300, 1.5,
//     an object) is an invalid argument: -32602, invalid params;
//   - an Mcp-Param-* header that no argument of the tool is mirrored in
//     (or any Mcp-Param-* header on another method) does not match the
//     body: -32020, header mismatch (the go-sdk ignores it).
//
// Requests whose Mcp-Method or Mcp-Name header does not match their body
// are left to the go-sdk, which refuses them for that first.
func (s *Server) checkParamHeaders(req *http.Request, in *inbound) *refusal {
	if in == nil || req.Header.Get("Mcp-Protocol-Version") < protocol.Revision20260728 {
		return nil
	}
	r, id, ok := in.single()
	if !ok || req.Header.Get("Mcp-Method") != r.Method {
		return nil
	}
	var sent []string
	for name := range req.Header {
		if h, ok := strings.CutPrefix(name, "Mcp-Param-"); ok {
			sent = append(sent, h)
		}
	}
	slices.Sort(sent)
	mismatch := func(format string, args ...any) *refusal {
		return &refusal{status: http.StatusBadRequest, code: mcp.CodeHeaderMismatch, msg: "mcp: header mismatch: " + fmt.Sprintf(format, args...), id: id}
	}
	if r.Method != "tools/call" {
		if len(sent) > 0 {
			return mismatch("Mcp-Param-%s is defined for tools/call only, not %s", sent[0], r.Method)
		}
		return nil
	}
	var p struct {
		Name      string                     `json:"name"`
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	if wire.Unmarshal(r.Params, &p) != nil || req.Header.Get("Mcp-Name") != p.Name {
		return nil
	}
	s.mu.Lock()
	bindings, registered := s.headers[p.Name]
	s.mu.Unlock()
	if !registered {
		return nil // the go-sdk's unknown tool
	}
	for _, h := range sent {
		if !slices.ContainsFunc(bindings, func(b paramHeader) bool { return strings.EqualFold(b.header, h) }) {
			return mismatch("Mcp-Param-%s mirrors no argument of tool %q", h, p.Name)
		}
	}
	for _, b := range bindings {
		raw, ok := lookupArgument(p.Arguments, b.path)
		if !ok || string(raw) == "null" || headerValue(raw) {
			continue
		}
		return &refusal{status: http.StatusBadRequest, code: jsonrpc.CodeInvalidParams, id: id,
			msg: fmt.Sprintf("mcp: argument %q of tool %q is mirrored in the Mcp-Param-%s header, which carries a string, a boolean or an integer of at most 2^53-1 in magnitude, not %.64s",
				strings.Join(b.path, "."), p.Name, b.header, raw)}
	}
	return nil
}

// lookupArgument returns the value at path in args, read as the go-sdk
// reads it.
func lookupArgument(args map[string]json.RawMessage, path []string) (json.RawMessage, bool) {
	cur, ok := args[path[0]]
	for _, part := range path[1:] {
		var obj map[string]json.RawMessage
		if !ok || wire.Unmarshal(cur, &obj) != nil {
			return nil, false
		}
		cur, ok = obj[part]
	}
	return cur, ok
}

// headerValue reports whether an Mcp-Param-* header can carry the JSON
// value raw, as the go-sdk decides it.
func headerValue(raw json.RawMessage) bool {
	var v any
	if wire.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v := v.(type) {
	case string, bool:
		return true
	case float64:
		return v == math.Trunc(v) && math.Abs(v) <= maxSafeInteger
	}
	return false
}
