package cassette

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// ErrMismatch is matched (errors.Is) by every *MismatchError.
var ErrMismatch = errors.New("cassette: no recorded message matches")

// CodeMismatch is the JSON-RPC error code of the response a Player sends to a
// request that matches no recorded request.
const CodeMismatch = -32050

// A MismatchError reports a message the client sent that the cassette does
// not hold at this point of the session. The request it concerns is answered
// with a JSON-RPC error (code CodeMismatch) carrying this error's text, and
// the error is kept for the connection's Close and Player.Err.
type MismatchError struct {
	Cassette string // the cassette's file
	Position int    // line of the nearest recorded message; 0 if there is none
	Method   string // the live message's method (for a response: the method it answers)
	Diff     string // cmp.Diff of the nearest recorded message against the live one (-recorded +live)
	Reason   string // why the nearest recorded message was not served
}

func (e *MismatchError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cassette %s", e.Cassette)
	if e.Position > 0 {
		fmt.Fprintf(&b, ":%d", e.Position)
	}
	fmt.Fprintf(&b, ": %s: %s", e.Method, e.Reason)
	if e.Diff != "" {
		fmt.Fprintf(&b, "; diff (-recorded +live):\n%s", e.Diff)
	}
	return b.String()
}

// Unwrap returns ErrMismatch.
func (e *MismatchError) Unwrap() error { return ErrMismatch }

// An UnusedError reports recorded client messages that the client never
// sent. A Player's connection returns it from Close in strict mode.
type UnusedError struct {
	Cassette string
	Unused   []Unused
}

// Unused is one recorded client message that was never matched.
type Unused struct {
	Line   int
	Method string // "" for a response
}

func (e *UnusedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cassette %s: %d recorded client message(s) never sent:", e.Cassette, len(e.Unused))
	for _, u := range e.Unused {
		m := u.Method
		if m == "" {
			m = "response"
		}
		fmt.Fprintf(&b, " line %d (%s);", u.Line, m)
	}
	return strings.TrimSuffix(b.String(), ";")
}

// matcher builds the comparable form of messages: the decoded message
// without "jsonrpc", without the id of a request (ids are rewritten), without
// ignored paths, with placeholders spelled alike.
type matcher struct {
	ignore []path
}

func newMatcher(o *Options) *matcher {
	return &matcher{ignore: parsePaths(append(append([]string(nil), defaultIgnore...), o.IgnorePaths...))}
}

// tree returns the comparable form of an encoded message; red, if not nil,
// redacts it first (live messages, so that they compare with recorded ones).
func (mt *matcher) tree(data []byte, red *redactor) (any, error) {
	v, err := decodeTree(data)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("message is not an object")
	}
	delete(obj, "jsonrpc")
	if _, isReq := obj["method"]; isReq {
		delete(obj, "id")
	}
	if red != nil {
		red.tree(obj)
	}
	for _, p := range mt.ignore {
		walkPath(obj, p, func(any) (any, bool) { return nil, true })
	}
	return normalisePlaceholders(obj), nil
}

// kindOf classifies a message: "call", "notification" or "response".
func kindOf(m jsonrpc.Message) string {
	switch m := m.(type) {
	case *jsonrpc.Request:
		if m.IsCall() {
			return "call"
		}
		return "notification"
	}
	return "response"
}

func diff(want, got any) string {
	return cmp.Diff(want, got)
}
