package cassette

import (
	"errors"

	"github.com/looprig/mcp/cassette/internal/errs"
	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/internal/transcript"
)

// This file holds the one converter of each public type from and to the
// internal part that works with it. The internal packages cannot name this
// package's types: cassette converts what crosses its boundary, and hands
// the parts the constructors of its errors (madeErrors).

// madeErrors makes this package's errors from the fields the parts build;
// replay.Config and verify.Config carry it.
var madeErrors = &errs.Errors{
	Mismatch: func(m *errs.Mismatch) error { return (*MismatchError)(m) },
	Recorded: func(r *errs.Recorded) error { return (*RecordedError)(r) },
	Options:  func(o *errs.Options) error { return (*OptionsError)(o) },
}

// toFormat returns c as the internal parts read it. Messages, headers and
// the HTTP fields are shared, not copied.
func (c *Cassette) toFormat() *format.Cassette {
	out := &format.Cassette{File: c.File, Header: format.Header(c.Header), Interactions: make([]format.Interaction, len(c.Interactions))}
	for i := range c.Interactions {
		in := &c.Interactions[i]
		out.Interactions[i] = format.Interaction{Kind: in.Kind, From: in.From, Message: in.Message, Text: in.Text,
			HTTP: (*format.HTTP)(in.HTTP), Ending: in.Ending.toFormat()}
	}
	return out
}

// head returns c's file and header, without its lines, as the parts read
// them.
func (c *Cassette) head() *format.Cassette {
	return &format.Cassette{File: c.File, Header: format.Header(c.Header)}
}

// fromFormat returns c as users see it. Messages, headers and the HTTP
// fields are shared, not copied.
func fromFormat(c *format.Cassette) *Cassette {
	if c == nil {
		return nil
	}
	out := &Cassette{File: c.File, Header: Header(c.Header), Interactions: make([]Interaction, len(c.Interactions))}
	for i := range c.Interactions {
		in := &c.Interactions[i]
		out.Interactions[i] = Interaction{Kind: in.Kind, From: in.From, Message: in.Message, Text: in.Text,
			HTTP: (*HTTP)(in.HTTP), Ending: endingOf(in.Ending)}
	}
	return out
}

// toFormat returns e as the parts read it; nil for nil.
func (e *Ending) toFormat() *format.Ending {
	if e == nil {
		return nil
	}
	return &format.Ending{End: e.End, Error: e.Error, Class: e.Class, Written: e.Written, Exit: (*format.Exit)(e.Exit), Stderr: e.Stderr, Pending: e.Pending}
}

// endingOf returns e as users see it; nil for nil.
func endingOf(e *format.Ending) *Ending {
	if e == nil {
		return nil
	}
	return &Ending{End: e.End, Error: e.Error, Class: e.Class, Written: e.Written, Exit: (*Exit)(e.Exit), Stderr: e.Stderr, Pending: e.Pending}
}

// messagesOf returns ms as users see them.
func messagesOf(ms []format.Message) []Message {
	out := make([]Message, len(ms))
	for i, m := range ms {
		out[i] = Message(m)
	}
	return out
}

// driftsOf returns ds as users see them.
func driftsOf(ds []transcript.Drift) []Drift {
	out := make([]Drift, len(ds))
	for i, d := range ds {
		out[i] = Drift{Kind: d.Kind, Subject: d.Subject, Line: d.OldLine, NewLine: d.NewLine, Reason: d.Reason, Diff: d.Diff, Severity: Severity(d.Severity), Detail: d.Detail}
	}
	return out
}

// toTranscript returns ds as package transcript formats them.
func toTranscript(ds []Drift) []transcript.Drift {
	out := make([]transcript.Drift, len(ds))
	for i, d := range ds {
		out[i] = transcript.Drift{Kind: d.Kind, Subject: d.Subject, OldLine: d.Line, NewLine: d.NewLine, Reason: d.Reason, Diff: d.Diff, Severity: transcript.Severity(d.Severity), Detail: d.Detail}
	}
	return out
}

// exported returns err, from package format, as users see it: its
// *format.FormatError a *FormatError.
func exported(err error) error {
	var ferr *format.FormatError
	switch {
	case !errors.As(err, &ferr):
		return err
	case err == error(ferr):
		return (*FormatError)(ferr)
	}
	return formatErrorIn{err}
}

// formatErrorIn is an error whose chain holds a *format.FormatError:
// errors.As finds it as the *FormatError it is. Its text is err's.
type formatErrorIn struct{ err error }

func (e formatErrorIn) Error() string { return e.err.Error() }
func (e formatErrorIn) Unwrap() error { return e.err }

// As sets target, a **FormatError, to the format error in e's chain.
func (e formatErrorIn) As(target any) bool {
	t, ok := target.(**FormatError)
	var ferr *format.FormatError
	if !ok || !errors.As(e.err, &ferr) {
		return false
	}
	*t = (*FormatError)(ferr)
	return true
}
