package stdio

import (
	"errors"
	"fmt"
	"strings"

	"github.com/looprig/mcp/internal/safetext"
)

// errUnresponsive is returned by Close when the child or another process of
// its group is still running a few seconds after SIGKILL to the group. It
// may be stuck in an uninterruptible system call, for example. On Windows
// it is returned a few seconds after the job object was terminated. The
// child is reaped in the background once it exits. It is the only error
// Close returns, so a caller needs no sentinel to tell it.
var errUnresponsive = errors.New("stdio: child did not exit after SIGKILL")

// A StartError reports that the child process could not be started. The
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

// A FrameError reports an inbound frame that could not be read. The frame
// may be a line over [Options.MaxFrameBytes]: then Limit is that bound, and
// the error matches transport.ErrLimit. It may be a line that is not JSON
// or not a JSON-RPC message. It may be cut short by the end of the stream.
// It ends the connection, and [Conn.Diagnose] reports it.
type FrameError struct {
	Err   error
	Limit int // the bound a line crossed, in bytes; 0 if none was
}

func (e *FrameError) Error() string { return "stdio: reading frame: " + e.Err.Error() }

func (e *FrameError) Unwrap() error { return e.Err }

// stderrSuffix quotes the line of a stderr tail that says what went
// wrong, for one-line error messages; the whole tail is in the error's
// Stderr field. See whatWentWrong.
func stderrSuffix(tail []byte) string {
	line := whatWentWrong(tail)
	if line == "" {
		return ""
	}
	const max = 200
	if len(line) > max {
		line = line[len(line)-max:]
	}
	return " (stderr: " + safetext.Line(line) + ")"
}

// whatWentWrong picks the line of a stderr tail that says what went
// wrong. A program that fails at start says so first and then prints its
// usage (Go's flag package: "flag provided but not defined: -x", then
// "Usage of prog:" and indented defaults), so only the lines before a
// usage header count. Of those it picks the last that reads as an error
// and is not indented. An error line holds one of: error, panic, fatal,
// exception, failed, invalid, unknown, not defined, not found, cannot,
// denied, refused, missing. An indented line is a stack frame or a flag's
// help. Failing that it picks the last line that is not indented, and
// failing that the last line.
func whatWentWrong(tail []byte) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(string(tail), "\r\n\t "), "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(l)), "usage") && len(lines) > 0 {
			break
		}
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	plain := ""
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if l[0] == ' ' || l[0] == '\t' {
			continue
		}
		if readsAsError(l) {
			return l
		}
		if plain == "" {
			plain = l
		}
	}
	if plain != "" {
		return plain
	}
	return lines[len(lines)-1]
}

var errorWords = []string{"error", "panic", "fatal", "exception", "failed", "invalid", "unknown", "not defined", "not found", "cannot", "denied", "refused", "missing"}

func readsAsError(line string) bool {
	l := strings.ToLower(line)
	for _, w := range errorWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}
