package cassette

import "github.com/looprig/mcp/cassette/internal/format"

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
// *FormatError wrapping ErrTooDeep.
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

// The model: a cassette as plain data. A cassette built or edited in code
// replays exactly as one loaded from a file.
type (
	// A Cassette is one recorded session (File, Header, Interactions).
	Cassette = format.Cassette
	// Header is the first line of a cassette.
	Header = format.Header
	// An Interaction is one line after the header.
	Interaction = format.Interaction
	// HTTP holds the fields of an HTTP line.
	HTTP = format.HTTP
	// An Ending says how a stream or a session ended.
	Ending = format.Ending
	// Exit is how a child process exited.
	Exit = format.Exit
	// A Message is one JSON-RPC message of a cassette, whatever its
	// transport (Cassette.Messages).
	Message = format.Message
	// A FormatError reports a cassette that cannot be loaded or replayed:
	// truncated, corrupted, of a future version, or edited (or built) into
	// something inconsistent.
	FormatError = format.FormatError
)

var (
	// ErrTruncated is returned (inside a *FormatError) when a cassette ends
	// before its end line.
	ErrTruncated = format.ErrTruncated
	// ErrVersion is returned (inside a *FormatError) when a cassette's format
	// version is newer than this package reads.
	ErrVersion = format.ErrVersion
	// ErrTooDeep is returned (inside a *FormatError) when a line nests
	// objects and arrays deeper than MaxDepth.
	ErrTooDeep = format.ErrTooDeep
)

// side returns who sent a line's message.
func side(in *Interaction) string { return format.Side(in) }
