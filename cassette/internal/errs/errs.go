package errs

import (
	"fmt"
	"strings"

	"github.com/looprig/mcp/internal/safetext"
	"github.com/looprig/mcp/transport"
)

// CodeMismatch is the JSON-RPC error code of the response replay sends to a
// request that matches no recorded request (or that a mismatch ends).
const CodeMismatch = -32050

// Errors makes the errors users branch on from their fields: package
// cassette's MismatchError, RecordedError and OptionsError. Package
// cassette passes it down in replay.Config and verify.Config.
type Errors struct {
	Mismatch func(*Mismatch) error
	Recorded func(*Recorded) error
	Options  func(*Options) error
}

// Mismatch holds the fields of package cassette's MismatchError.
type Mismatch struct {
	Cassette string // the cassette's file
	Position int    // line of the nearest recorded message; 0 if there is none
	Method   string // the live message's method (for a response: the method it answers)
	Diff     string // a unified line diff of the nearest recorded message's indented JSON against the live one's (-recorded +live); "" when there is nothing to compare
	Reason   string // why the nearest recorded message was not served
}

// Message is a MismatchError's message, its control characters made visible.
func (e *Mismatch) Message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cassette %s", safetext.Line(e.Cassette))
	if e.Position > 0 {
		fmt.Fprintf(&b, ":%d", e.Position)
	}
	fmt.Fprintf(&b, ": %s: %s", safetext.Line(e.Method), safetext.Line(e.Reason))
	if e.Diff != "" {
		fmt.Fprintf(&b, "; diff:\n%s", safetext.Text(e.Diff))
	}
	return b.String()
}

// Recorded holds the fields of package cassette's RecordedError.
type Recorded struct {
	Cassette string
	Line     int             // the line of the ending
	Text     string          // the recorded error's text
	Class    transport.Class // as Ending.Class
}

// Message is a RecordedError's message, its control characters made
// visible.
func (e *Recorded) Message() string {
	return fmt.Sprintf("cassette %s:%d: recorded: %s", safetext.Line(e.Cassette), e.Line, safetext.Text(e.Text))
}

// Options holds the fields of package cassette's OptionsError.
type Options struct {
	Func   string // the function: "Open", "Replay", "Verify", "Validate"
	Option string // what is wrong: "RedactPaths[1]", "IgnorePaths[0]", "Patterns[2]", "Hooks", "Stderr", "path", "live"
	Value  string // the offending value, quoted in the message; "" when there is none
	Err    error  // why
}

// Message is an OptionsError's message.
func (e *Options) Message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cassette.%s: %s", e.Func, e.Option)
	if e.Value != "" {
		fmt.Fprintf(&b, " %q", e.Value)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

// shownError is an error whose text may quote a cassette or a live peer:
// its control characters are made visible.
type shownError struct{ err error }

func (e shownError) Error() string { return safetext.Text(e.err.Error()) }
func (e shownError) Unwrap() error { return e.err }

// Visible returns err with its text made visible (shownError).
func Visible(err error) error { return shownError{err} }
