package cassette

import (
	"errors"

	"github.com/looprig/mcp/cassette/internal/errs"
	"github.com/looprig/mcp/cassette/internal/record"
)

// CodeMismatch is the JSON-RPC error code of the response replay sends to a
// request that matches no recorded request (or that a MismatchError ends).
const CodeMismatch = errs.CodeMismatch

// The errors replay and Open return, which users branch on.
type (
	// A MismatchError reports a message the client sent that the cassette
	// does not hold at this point of the session, a recorded request with
	// nothing to answer it, or an answer held past Options.Wait. The
	// request it concerns is answered with a JSON-RPC error (code
	// CodeMismatch) carrying this error's text, which the factory's
	// Classify turns back into this error: with this module's client,
	// errors.As finds it on the call's error itself, whose class is
	// client.ClassMismatch. The factory's Close returns the first one too,
	// for callers that swallow errors. It unwraps to transport.ErrMismatch.
	//
	// Its fields (Cassette, Position, Method, Diff, Reason) hold the text
	// as recorded; Error makes their control characters visible (see
	// FORMAT.md, "Untrusted input").
	MismatchError = errs.MismatchError
	// An UnusedError reports recorded client requests that the client
	// never made. The replaying factory's Close returns it unless
	// Options.AllowUnused.
	UnusedError = errs.UnusedError
	// Unused is one recorded client message that was never matched.
	Unused = errs.Unused
	// A RecordedError is the error a replayed session or request ends
	// with, standing for the one the recording ended with. It matches
	// (errors.Is) the transport sentinel of its class, so a client
	// classifies it as it did the original.
	RecordedError = errs.RecordedError
	// An OptionsError reports an argument or option a constructor cannot
	// use. It matches ErrInvalidOptions, and unwraps to the reason
	// (ErrEmptySegment, ErrNilPattern, ErrNoFile, ErrNoLive,
	// ErrNotForTransport, or a hook's error).
	OptionsError = errs.OptionsError
)

var (
	// ErrNotRecorded is returned by Open in ModeReplay when the cassette does
	// not exist.
	ErrNotRecorded = errors.New("cassette not recorded")

	// ErrNoLive is returned (inside an *OptionsError) by Open when the mode
	// needs the live server and none was given, and by Verify without one.
	ErrNoLive = errors.New("no live transport to record from")

	// ErrUsed is returned by a cassette factory's Transport when its one
	// session has already been made: a cassette holds exactly one session.
	ErrUsed = errors.New("cassette: factory already made its session")

	// ErrIncomplete is returned by a recording factory's Close, and nothing
	// is written, when the session never told its protocol revision and
	// server: no initialize exchange and no server/discover (or _meta) that
	// names them.
	ErrIncomplete = record.ErrIncomplete

	// ErrTooLarge is returned by a recording factory's Close, and nothing is
	// written, when the recording grew past MaxSize.
	ErrTooLarge = record.ErrTooLarge
)
