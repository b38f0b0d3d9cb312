package stdio

import (
	"bytes"
	"errors"
	"fmt"
)

// ErrFrameTooLarge is returned (wrapped in a [*FrameError]) by a connection's
// Read when one inbound line from the child is longer than
// [Options.MaxFrameBytes] before its terminating newline.
var ErrFrameTooLarge = errors.New("frame too large")

// ErrUnresponsive is returned by Close when the child or another process of
// its group is still running a few seconds after SIGKILL to the group (for
// example, stuck in an uninterruptible system call), or on Windows a few
// seconds after its job object was terminated. The child is reaped in the
// background once it exits.
var ErrUnresponsive = errors.New("stdio: child did not exit after SIGKILL")

// A StartError reports that the child process could not be started: the
// executable is missing or not executable, the directory does not exist, a
// pipe could not be created, or the context was done.
//
// It unwraps to the cause, so errors.Is(err, exec.ErrNotFound) and
// errors.Is(err, fs.ErrNotExist) work.
type StartError struct {
	Path   string // the executable, as given to New
	Err    error  // the cause
	Stderr []byte // the tail of the child's standard error, if it ran at all
}

func (e *StartError) Error() string {
	return "stdio: starting " + e.Path + ": " + e.Err.Error() + stderrSuffix(e.Stderr)
}

func (e *StartError) Unwrap() error { return e.Err }

// An ExitError is returned by a connection's Read when the child ended its
// output on its own (it exited or crashed) rather than because the
// connection was closed. Read returns it only once the exit status is known,
// or after [Options.CloseGrace] if the child keeps running with its output
// closed (then Exited is false).
//
// It unwraps to the error that ended reading: io.EOF for a clean end of
// stream, so the go-sdk treats it as an orderly disconnect, or a
// [*FrameError] wrapping io.ErrUnexpectedEOF when the child died mid-frame.
type ExitError struct {
	Pid      int
	Exited   bool   // whether the exit status below is known
	ExitCode int    // the exit code; -1 when killed by a signal
	Signal   string // the signal that killed it ("SIGKILL"), if any
	Stderr   []byte // the tail of the child's standard error
	Err      error  // what ended reading
}

func (e *ExitError) Error() string {
	var s string
	switch {
	case !e.Exited:
		s = fmt.Sprintf("stdio: child %d closed its output", e.Pid)
	case e.Signal != "":
		s = fmt.Sprintf("stdio: child %d killed by %s", e.Pid, e.Signal)
	default:
		s = fmt.Sprintf("stdio: child %d exited with status %d", e.Pid, e.ExitCode)
	}
	return s + stderrSuffix(e.Stderr)
}

func (e *ExitError) Unwrap() error { return e.Err }

// A FrameError reports an inbound frame that could not be read: a line over
// [Options.MaxFrameBytes] (Err wraps [ErrFrameTooLarge]), a line that is not
// JSON or not a JSON-RPC message, or a frame cut short by the end of the
// stream. It ends the connection, and [Conn.Diagnose] reports it.
type FrameError struct {
	Err error
}

func (e *FrameError) Error() string { return "stdio: reading frame: " + e.Err.Error() }

func (e *FrameError) Unwrap() error { return e.Err }

// stderrSuffix is the last non-empty line of a stderr tail, for one-line
// error messages; the whole tail is in the error's Stderr field.
func stderrSuffix(tail []byte) string {
	tail = bytes.TrimRight(tail, "\r\n\t ")
	if len(tail) == 0 {
		return ""
	}
	if i := bytes.LastIndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:]
	}
	const max = 200
	if len(tail) > max {
		tail = tail[len(tail)-max:]
	}
	return " (stderr: " + string(tail) + ")"
}
