package cassette

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/transport"
)

// FormatName is the value of the header's "format" field.
const FormatName = format.FormatName

// Version is the format version this package writes. It reads versions 1
// and 2 (see FORMAT.md).
const Version = format.Version

// MaxSize bounds the size of a cassette file that Load reads, and of a
// recording.
const MaxSize = format.MaxSize

// MaxDepth bounds how deep a cassette line nests objects and arrays, the
// line's own object included: encoding/json's bound. A deeper line is a
// *FormatError whose Reason is FormatTooDeep.
const MaxDepth = format.MaxDepth

// Line kinds: an Interaction's Kind.
const (
	// KindMessage is one JSON-RPC message of a stdio, in-process or legacy
	// SSE session, in Message, sent by From.
	KindMessage = format.KindMessage
	// KindRequest is an HTTP request of a Streamable HTTP session: HTTP
	// holds its stream, method, URL and headers; its body is in Message (a
	// JSON-RPC message) or Text.
	KindRequest = format.KindRequest
	// KindResponse is the status and headers of a response (HTTP). A body
	// that is not an event stream is in Message or Text; the events of an
	// event stream follow as KindEvent lines.
	KindResponse = format.KindResponse
	// KindEvent is one server-sent event of a stream: HTTP holds its event
	// name, id and retry; its data is in Message or Text.
	KindEvent = format.KindEvent
	// KindClose is an ending, in Ending: of an HTTP stream (HTTP names it),
	// or of the session (HTTP is nil).
	KindClose = format.KindClose
	// KindStderr is the tail of the server's standard error in a version-1
	// cassette, in Text. Load turns it into the Stderr of the session's
	// ending; this package writes none.
	KindStderr = format.KindStderr
)

// Sides of a session: who sent a message.
const (
	FromClient = format.FromClient
	FromServer = format.FromServer
)

// How a stream or session ended: an Ending's End.
const (
	// EndEOF: the server ended it. For a session, the server's output ended
	// (a child that exited says how in Exit); for an HTTP stream, the body
	// ended. Replay ends it the same way at the same point.
	EndEOF = format.EndEOF
	// EndError: reading failed with an error (a malformed or oversize
	// frame: Error and Class say which), or, for an HTTP stream, the
	// request failed before any response. Replay fails the same way.
	EndError = format.EndError
	// EndDropped: an HTTP stream broke. Replay breaks it the same way, so
	// the client resumes as it did.
	EndDropped = format.EndDropped
	// EndClient: the client ended it: it closed the session (Pending names
	// the calls it left unanswered), or stopped reading a stream. Replay
	// keeps it open until the client does the same.
	EndClient = format.EndClient
	// EndSession: an HTTP stream was still open when the session ended.
	// Replay keeps it open until the client closes it.
	EndSession = format.EndSession
)

// A Cassette is one recorded session, as plain data: a cassette built or
// edited in code replays exactly as one loaded from a file.
type Cassette struct {
	File         string // where it was loaded from, or a name for errors
	Header       Header
	Interactions []Interaction // the lines after the header, in order
}

// Header is the first line of a cassette.
type Header struct {
	Format    string // always FormatName
	Version   int    // the format version
	Transport string // transport.Kind's String: "stdio", "inprocess", "streamablehttp", "sse"
	Protocol  string // the negotiated protocol revision
	Server    string // the server's name
	// Volatile are the paths (Options.IgnorePaths syntax) whose values
	// change every run, declared when the cassette was recorded. Replay
	// matching, Compare and Verify ignore them, as they do IgnorePaths.
	Volatile []string
	// Redaction names the redaction rules the cassette was recorded with
	// (RedactionDigest): "" when none were configured.
	Redaction string
}

// An Interaction is one line after the header. Kind says which fields it
// uses; the others are zero.
type Interaction struct {
	Kind    string          // KindMessage, KindRequest, KindResponse, KindEvent, KindClose
	From    string          // KindMessage: FromClient or FromServer
	Message json.RawMessage // a JSON-RPC message: the message, or the body or event data that is one
	Text    string          // a body or event data that is not a JSON-RPC message
	HTTP    *HTTP           // the HTTP fields of HTTP lines; nil otherwise
	Ending  *Ending         // KindClose: how the stream or session ended
}

// HTTP holds the fields of an HTTP line.
type HTTP struct {
	Stream  int         // the stream (one HTTP request and its response), numbered from 1 in request order
	Method  string      // KindRequest: the HTTP method
	URL     string      // KindRequest: path and query; the origin is not recorded
	Status  int         // KindResponse: the status code
	Headers http.Header // KindRequest, KindResponse: headers, redacted, without volatile ones
	Event   string      // KindEvent: the "event" field
	ID      string      // KindEvent: the "id" field
	Retry   string      // KindEvent: the "retry" field
}

// An Ending says how a stream or a session ended.
type Ending struct {
	End     string            // EndEOF, EndError, EndDropped, EndClient, EndSession
	Error   string            // the error that ended it, redacted; "" for none
	Class   transport.Class   // the error's class: start, policy, auth, protocol, timeout or transport; 0 for none
	Written bool              // an HTTP request that failed (EndError) had been sent
	Exit    *Exit             // the child process exited, and how
	Stderr  string            // the tail of the server's standard error, redacted
	Pending []json.RawMessage // EndClient of a session: the ids of the calls still unanswered
}

// Exit is how a child process exited.
type Exit struct {
	Code   int    // the exit code; -1 when killed by a signal
	Signal string // the signal that killed it ("SIGKILL"), if any
}

// Kind returns the transport kind the header names, or 0.
func (c *Cassette) Kind() transport.Kind { return c.head().Kind() }

// Line returns the line of the file that interaction i is on: the header is
// line 1.
func (c *Cassette) Line(i int) int { return c.head().Line(i) }

// Marshal encodes c in the cassette format, at Version. Encoding is
// deterministic, messages are written canonical, and Parse of the result
// gives c back. It returns an error only for a message that is not JSON.
func (c *Cassette) Marshal() ([]byte, error) {
	data, err := c.toFormat().Marshal()
	return data, exported(err)
}

// A Message is one JSON-RPC message of a cassette, whatever its transport:
// a message line, or the body or event data of an HTTP line that is one.
type Message struct {
	// Number is the message's place among the cassette's messages, from 1,
	// in line order: what Options.Faults and mcprig inspect number.
	Number  int
	Line    int    // the cassette line it is on
	From    string // FromClient or FromServer
	Message json.RawMessage
}

// Messages returns the cassette's JSON-RPC messages in order. A stdio and
// an HTTP recording of the same session hold the same messages: Compare,
// Verify and mcprig compare cassettes by them.
func (c *Cassette) Messages() []Message { return messagesOf(c.toFormat().Messages()) }

// A FormatError reports a cassette that cannot be loaded or replayed:
// truncated, corrupted, of a future version, or edited (or built) into
// something inconsistent.
type FormatError struct {
	File string // the file's path, or the cassette's File
	Line int    // 1-based line of the offending interaction; 0 for the whole file
	Err  error
}

func (e *FormatError) Error() string { return (*format.FormatError)(e).Error() }

func (e *FormatError) Unwrap() error { return e.Err }

// FormatReason says why a cassette cannot be read (FormatError.Reason).
type FormatReason int

const (
	// FormatInvalid is any reason below: a corrupted, edited or
	// inconsistent cassette. Record it again.
	FormatInvalid FormatReason = iota
	// FormatTruncated is a cassette that ends before its end line.
	// Record it again.
	FormatTruncated
	// FormatVersion is a cassette whose format or version this package
	// does not read: a newer one needs a newer module.
	FormatVersion
	// FormatTooDeep is a line that nests objects and arrays deeper than
	// MaxDepth.
	FormatTooDeep
)

var formatReasons = [...]string{
	FormatInvalid:   "invalid",
	FormatTruncated: "truncated",
	FormatVersion:   "version",
	FormatTooDeep:   "too deep",
}

// String returns the reason's name: "invalid", "truncated", "version" or
// "too deep".
func (r FormatReason) String() string {
	if r >= 0 && int(r) < len(formatReasons) {
		return formatReasons[r]
	}
	return "FormatReason(" + strconv.Itoa(int(r)) + ")"
}

// Reason says why the cassette cannot be read.
func (e *FormatError) Reason() FormatReason {
	switch {
	case errors.Is(e.Err, format.ErrTruncated):
		return FormatTruncated
	case errors.Is(e.Err, format.ErrVersion):
		return FormatVersion
	case errors.Is(e.Err, format.ErrTooDeep):
		return FormatTooDeep
	}
	return FormatInvalid
}
