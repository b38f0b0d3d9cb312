package transport

import "fmt"

// A Class says what kind of thing went wrong, and so what a caller may do
// about it. It is the one vocabulary of failures of this module: a client's
// errors carry one (client.FailureClass is this type), a cassette's ending
// records one, and mcprig and the testscript commands print its String.
// Each of this package's failure sentinels stands for exactly one class
// ([Class.Err]); ClassTool and ClassClosed are a client's own and have
// none. The zero Class is no class.
type Class int

const (
	// ClassStart: the server could not be started or did not complete the
	// handshake (missing executable, exit before initialize). [ErrStart].
	ClassStart Class = iota + 1
	// ClassTransport: the connection broke (a stream dropped and could not
	// be resumed, a dial failed). [ErrBroken].
	ClassTransport
	// ClassProtocol: the server broke the protocol (malformed frame,
	// repeated pagination cursor, unexpected message), or speaks no
	// revision the client accepts. [ErrProtocol].
	ClassProtocol
	// ClassAuth: the server refused the credentials. [ErrAuth].
	ClassAuth
	// ClassPolicy: this library refused, by policy or by the client's
	// configuration. Examples: a disabled or held binding, an unknown
	// tool, a size or round limit, a cross-origin redirect. So is a
	// server's request for input the client does not serve or could not
	// answer. [ErrPolicy].
	ClassPolicy
	// ClassTimeout: a deadline passed (the caller's context's, a client's
	// or a transport's own bound), or the caller gave up (its context was
	// cancelled). [ErrTimeout].
	ClassTimeout
	// ClassServer: the server answered with an error, ended the session,
	// or exited while in use. [ErrServer].
	ClassServer
	// ClassTool: the tool ran and reported an error (CallToolResult.IsError).
	ClassTool
	// ClassClosed: the client was closed.
	ClassClosed
	// ClassMismatch: a replay mismatch. The session is replayed from a
	// recording (a cassette). The recording does not hold what the client
	// sent at this point, or it held its answer past the replay's bound; the
	// request was not executed. [ErrMismatch].
	ClassMismatch
)

// classes holds each class's stable name and sentinel, in Class order.
var classes = [...]struct {
	name string
	err  error
}{
	ClassStart:     {"start", ErrStart},
	ClassTransport: {"transport", ErrBroken},
	ClassProtocol:  {"protocol", ErrProtocol},
	ClassAuth:      {"auth", ErrAuth},
	ClassPolicy:    {"policy", ErrPolicy},
	ClassTimeout:   {"timeout", ErrTimeout},
	ClassServer:    {"server", ErrServer},
	ClassTool:      {"tool", nil},
	ClassClosed:    {"closed", nil},
	ClassMismatch:  {"mismatch", ErrMismatch},
}

// legacyNames are names a class was once written with, read as the class.
var legacyNames = map[string]Class{"broken": ClassTransport}

func (c Class) valid() bool { return c >= ClassStart && c <= ClassMismatch }

// String returns the class's stable short name, such as "policy"; "" for
// the zero Class.
func (c Class) String() string {
	switch {
	case c == 0:
		return ""
	case c.valid():
		return classes[c].name
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// Err returns the sentinel the class stands for, or nil for ClassTool,
// ClassClosed and the zero Class.
func (c Class) Err() error {
	if !c.valid() {
		return nil
	}
	return classes[c].err
}

// ParseClass returns the Class whose String is s ("broken", an older name
// of ClassTransport, included); "" is the zero Class.
func ParseClass(s string) (Class, error) {
	if s == "" {
		return 0, nil
	}
	for c := ClassStart; c <= ClassMismatch; c++ {
		if classes[c].name == s {
			return c, nil
		}
	}
	if c, ok := legacyNames[s]; ok {
		return c, nil
	}
	return 0, fmt.Errorf("transport: unknown failure class %q", s)
}

// MarshalText returns the class's String.
func (c Class) MarshalText() ([]byte, error) {
	if c != 0 && !c.valid() {
		return nil, fmt.Errorf("transport: unknown failure class %d", int(c))
	}
	return []byte(c.String()), nil
}

// UnmarshalText sets c to the class ParseClass(text) returns.
func (c *Class) UnmarshalText(text []byte) error {
	v, err := ParseClass(string(text))
	if err != nil {
		return err
	}
	*c = v
	return nil
}
