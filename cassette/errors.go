package cassette

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/looprig/mcp/cassette/internal/errs"
	"github.com/looprig/mcp/cassette/internal/record"
	"github.com/looprig/mcp/internal/safetext"
	"github.com/looprig/mcp/transport"
)

// CodeMismatch is the JSON-RPC error code of the response replay sends to a
// request that matches no recorded request (or that a MismatchError ends).
const CodeMismatch = errs.CodeMismatch

// A MismatchError reports a message the client sent that the cassette does
// not hold at this point of the session, a recorded request with nothing to
// answer it, or an answer held past Options.Wait. The request it concerns is
// answered with a JSON-RPC error (code CodeMismatch) carrying this error's
// text, which the factory's Classify turns back into this error: with this
// module's client, errors.As finds it on the call's error itself, whose
// class is client.ClassMismatch. The factory's Close returns the first
// one too, for callers that swallow errors. It unwraps to
// transport.ErrMismatch.
//
// Its fields hold the text as recorded; Error makes their control
// characters visible (see FORMAT.md, "Untrusted input").
type MismatchError struct {
	Cassette string // the cassette's file
	Position int    // line of the nearest recorded message; 0 if there is none
	Method   string // the live message's method (for a response: the method it answers)
	Diff     string // a unified line diff of the nearest recorded message's indented JSON against the live one's (-recorded +live); "" when there is nothing to compare
	Reason   string // why the nearest recorded message was not served
}

func (e *MismatchError) Error() string { return (*errs.Mismatch)(e).Message() }

// Unwrap returns transport.ErrMismatch, the sentinel of every replay
// mismatch, which a client classifies as one.
func (e *MismatchError) Unwrap() error { return transport.ErrMismatch }

// An UnusedError reports recorded client requests that the client never
// made. The replaying factory's Close returns it unless
// Options.AllowUnused.
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
	fmt.Fprintf(&b, "cassette %s: %d recorded request(s) never made (Options.AllowUnused allows it):", safetext.Line(e.Cassette), len(e.Unused))
	for _, u := range e.Unused {
		m := safetext.Line(u.Method)
		if m == "" {
			m = "response"
		}
		fmt.Fprintf(&b, " line %d (%s);", u.Line, m)
	}
	return strings.TrimSuffix(b.String(), ";")
}

// A RecordedError is the error a replayed session or request ends with,
// standing for the one the recording ended with. It matches (errors.Is)
// the transport sentinel of its class, so a client classifies it as it did
// the original.
type RecordedError struct {
	Cassette string
	Line     int             // the line of the ending
	Text     string          // the recorded error's text
	Class    transport.Class // as Ending.Class
}

func (e *RecordedError) Error() string { return (*errs.Recorded)(e).Message() }

// Is reports whether target is the sentinel of e's class.
func (e *RecordedError) Is(target error) bool {
	s := e.Class.Err()
	return s != nil && target == s
}

// Timeout reports whether the recorded error was a timeout.
func (e *RecordedError) Timeout() bool { return e.Class == transport.ClassTimeout }

// ErrInvalidOptions is matched (errors.Is) by every *OptionsError: it is
// returned when a constructor is given an argument or option it cannot use.
// The error of a name or value that is not a Severity matches it too.
var ErrInvalidOptions = errors.New("cassette: invalid options")

// An OptionsError reports an argument or option a constructor cannot use.
// It matches ErrInvalidOptions; Option names the option, and it unwraps to
// the reason (a hook's error, or one whose text says why). Option "path" is
// a file path that is empty or names a directory; Option "live" is a
// missing live transport that the mode or Verify needs.
type OptionsError struct {
	Func   string // the function: "Open", "Replay", "Verify", "Validate"
	Option string // what is wrong: "RedactPaths[1]", "IgnorePaths[0]", "Patterns[2]", "Hooks", "Stderr", "path", "live"
	Value  string // the offending value, quoted in the message; "" when there is none
	Err    error  // why
}

func (e *OptionsError) Error() string { return (*errs.Options)(e).Message() }

// Unwrap returns the reason.
func (e *OptionsError) Unwrap() error { return e.Err }

// Is reports whether target is ErrInvalidOptions.
func (e *OptionsError) Is(target error) bool { return target == ErrInvalidOptions }

// invalidArgument is an argument error of its own text (not an
// *OptionsError) that matches ErrInvalidOptions.
type invalidArgument string

func (e invalidArgument) Error() string { return string(e) }

// Is reports whether target is ErrInvalidOptions.
func (e invalidArgument) Is(target error) bool { return target == ErrInvalidOptions }

// ErrNotRecorded is returned by Open in ModeReplay when the cassette does
// not exist.
var ErrNotRecorded = errors.New("cassette not recorded")

// A RecordError reports a recording that a recording factory did not
// write. Reason says why; the cassette recorded before it, if any, is
// left as it was.
type RecordError struct {
	Cassette string       // the cassette's file
	Reason   RecordReason // why nothing was written
	Err      error        // the cause
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("cassette %s: %v (nothing written)", e.Cassette, e.Err)
}

// Unwrap returns the cause.
func (e *RecordError) Unwrap() error { return e.Err }

// RecordReason says why a recording was not written (RecordError.Reason).
type RecordReason int

const (
	// RecordIncomplete is a session that never told its protocol revision
	// and server: no initialize exchange, and no server/discover (or _meta)
	// that names them. Record a session that makes one.
	RecordIncomplete RecordReason = iota
	// RecordTooLarge is a recording that grew past MaxSize. Record a
	// shorter session.
	RecordTooLarge
	// RecordInvalid is a recorded session that cannot be a cassette: it
	// would not load (the live peer or a go-vcr hook broke a rule replay
	// relies on), or a go-vcr hook failed.
	RecordInvalid
	// RecordWrite is a write that failed: Err is the storage's error.
	RecordWrite
)

var recordReasons = [...]string{
	RecordIncomplete: "incomplete",
	RecordTooLarge:   "too large",
	RecordInvalid:    "invalid",
	RecordWrite:      "write",
}

// String returns the reason's name: "incomplete", "too large", "invalid"
// or "write".
func (r RecordReason) String() string {
	if r >= 0 && int(r) < len(recordReasons) {
		return recordReasons[r]
	}
	return "RecordReason(" + strconv.Itoa(int(r)) + ")"
}

// recordReason returns the reason of err, an error of the recording;
// otherwise is the reason when err is neither bound's.
func recordReason(err error, otherwise RecordReason) RecordReason {
	switch {
	case errors.Is(err, record.ErrIncomplete):
		return RecordIncomplete
	case errors.Is(err, record.ErrTooLarge):
		return RecordTooLarge
	}
	return otherwise
}
