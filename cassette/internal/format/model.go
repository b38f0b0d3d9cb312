package format

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/looprig/mcp/internal/canonjson"
	"github.com/looprig/mcp/internal/safetext"
	"github.com/looprig/mcp/transport"
)

// FormatName is the value of the header's "format" field.
const FormatName = "mcprig-cassette"

// Version is the format version this package writes. It reads versions 1
// and 2 (see FORMAT.md).
const Version = 2

// MaxSize bounds the size of a cassette file that Load reads, and of a
// recording.
const MaxSize = 64 << 20

// MaxDepth bounds how deep a cassette line nests objects and arrays, the
// line's own object included: encoding/json's bound. A deeper line is a
// *FormatError wrapping ErrTooDeep.
const MaxDepth = canonjson.MaxDepth

// Limit is the bound the code applies: MaxSize, a variable only so that
// tests can show the bound at its edge without files of 64 MiB.
var Limit = MaxSize

// Line kinds: an Interaction's Kind.
const (
	// KindMessage is one JSON-RPC message of a stdio, in-process or legacy
	// SSE session, in Message, sent by From.
	KindMessage = "message"
	// KindRequest is an HTTP request of a Streamable HTTP session: HTTP
	// holds its stream, method, URL and headers; its body is in Message (a
	// JSON-RPC message) or Text.
	KindRequest = "request"
	// KindResponse is the status and headers of a response (HTTP). A body
	// that is not an event stream is in Message or Text; the events of an
	// event stream follow as KindEvent lines.
	KindResponse = "response"
	// KindEvent is one server-sent event of a stream: HTTP holds its event
	// name, id and retry; its data is in Message or Text.
	KindEvent = "event"
	// KindClose is an ending, in Ending: of an HTTP stream (HTTP names it),
	// or of the session (HTTP is nil).
	KindClose = "close"
	// KindStderr is the tail of the server's standard error in a version-1
	// cassette, in Text. Load turns it into the Stderr of the session's
	// ending; this package writes none.
	KindStderr = "stderr"
	// KindEnd is the last line of a complete cassette.
	KindEnd = "end"
)

// Sides of a session: who sent a message.
const (
	FromClient = "client"
	FromServer = "server"
)

// How a stream or session ended: an Ending's End.
const (
	// EndEOF: the server ended it. For a session, the server's output ended
	// (a child that exited says how in Exit); for an HTTP stream, the body
	// ended. Replay ends it the same way at the same point.
	EndEOF = "eof"
	// EndError: reading failed with an error (a malformed or oversize
	// frame: Error and Class say which), or, for an HTTP stream, the
	// request failed before any response. Replay fails the same way.
	EndError = "error"
	// EndDropped: an HTTP stream broke. Replay breaks it the same way, so
	// the client resumes as it did.
	EndDropped = "dropped"
	// EndClient: the client ended it: it closed the session (Pending names
	// the calls it left unanswered), or stopped reading a stream. Replay
	// keeps it open until the client does the same.
	EndClient = "client"
	// EndSession: an HTTP stream was still open when the session ended.
	// Replay keeps it open until the client closes it.
	EndSession = "session"
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
func (c *Cassette) Kind() transport.Kind {
	k, _ := transport.ParseKind(c.Header.Transport)
	return k
}

// Line returns the line of the file that interaction i is on: the header is
// line 1.
func (c *Cassette) Line(i int) int { return i + 2 }

var (
	// ErrTruncated is returned (inside a *FormatError) when a cassette ends
	// before its end line.
	ErrTruncated = errors.New("truncated: no end line")
	// ErrVersion is returned (inside a *FormatError) when a cassette's format
	// version is newer than this package reads.
	ErrVersion = errors.New("unsupported format version")
	// ErrTooDeep is returned (inside a *FormatError) when a line nests
	// objects and arrays deeper than MaxDepth.
	ErrTooDeep = canonjson.ErrTooDeep
)

// A FormatError reports a cassette that cannot be loaded or replayed:
// truncated, corrupted, of a future version, or edited (or built) into
// something inconsistent.
type FormatError struct {
	File string // the file's path, or the cassette's File
	Line int    // 1-based line of the offending interaction; 0 for the whole file
	Err  error
}

func (e *FormatError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("cassette %s:%d: %s", safetext.Line(e.File), e.Line, safetext.Line(e.Err.Error()))
	}
	return fmt.Sprintf("cassette %s: %s", safetext.Line(e.File), safetext.Line(e.Err.Error()))
}

func (e *FormatError) Unwrap() error { return e.Err }

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
func (c *Cassette) Messages() []Message {
	var out []Message
	for i := range c.Interactions {
		in := &c.Interactions[i]
		if in.Message == nil {
			continue
		}
		out = append(out, Message{Number: len(out) + 1, Line: c.Line(i), From: Side(in), Message: in.Message})
	}
	return out
}

// Side returns who sent a line: the client for a request, the server for a
// response or event, and From for a message line.
func Side(in *Interaction) string {
	switch in.Kind {
	case KindRequest:
		return FromClient
	case KindResponse, KindEvent:
		return FromServer
	}
	return in.From
}

// Recordable are the failure classes an Ending records (ClassStart,
// ClassPolicy, ClassAuth, ClassProtocol, ClassTimeout, ClassTransport), in the order an
// error is matched against their sentinels (transport.Class.Err): a
// replayed ending's error matches the sentinel of its class. They are
// written as their String ("transport", "broken" once, is read as
// transport.ClassTransport).
var Recordable = []transport.Class{
	transport.ClassStart, transport.ClassPolicy, transport.ClassAuth,
	transport.ClassProtocol, transport.ClassTimeout, transport.ClassTransport,
}

// CancelledID returns the key of the request a notifications/cancelled
// names, or "".
func CancelledID(params []byte) string {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return ""
	}
	k, _ := IDKey(p.RequestID)
	return k
}

// Standalone reports whether a request opens the standalone GET stream,
// whose messages relate to no request.
func Standalone(in *Interaction) bool {
	return in.Kind == KindRequest && in.HTTP.Method == http.MethodGet && in.HTTP.Headers.Get("Last-Event-ID") == ""
}
