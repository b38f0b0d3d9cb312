package cassette

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"

	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// HTTP interaction kinds: the lines of a "streamablehttp" cassette. Each
// belongs to one stream (one HTTP request and its response), numbered from 1
// in the order the requests were made.
const (
	// KindRequest is an HTTP request: method, URL (path and query), headers,
	// and its body in Message (a JSON-RPC message) or Text.
	KindRequest = "request"
	// KindResponse is the status and headers of a response. A JSON body is in
	// Message (or Text); the events of a text/event-stream body follow as
	// KindEvent lines.
	KindResponse = "response"
	// KindEvent is one server-sent event of a stream: its event name, id,
	// retry, and data in Message (a JSON-RPC message) or Text.
	KindEvent = "event"
	// KindClose is the end of an event stream (or of a request that got no
	// response), with how it ended in End.
	KindClose = "close"
)

// How a stream ended, in a KindClose line's End.
const (
	// EndEOF: the server ended the body.
	EndEOF = "eof"
	// EndDropped: the body broke (a reset connection, a cut stream). Replay
	// breaks the replayed body the same way, so the client resumes.
	EndDropped = "dropped"
	// EndClient: the client stopped reading (it closed the body or cancelled
	// the request). Replay keeps the body open until the client does.
	EndClient = "client"
	// EndSession: the stream was still open when the session ended (the
	// client sent DELETE, or the recorder was closed). Replay keeps it open
	// until the client closes it.
	EndSession = "session"
	// EndError: the request failed before any response came. Replay fails
	// the request.
	EndError = "error"
)

// HTTP holds the fields of the HTTP lines of a cassette; it is empty in the
// message-level lines.
type HTTP struct {
	Stream  int         `json:"stream,omitempty"`  // the stream (request) the line belongs to, from 1
	Method  string      `json:"method,omitempty"`  // request: the HTTP method
	URL     string      `json:"url,omitempty"`     // request: path and query; the origin is not recorded
	Status  int         `json:"status,omitempty"`  // response: the status code
	Headers http.Header `json:"headers,omitempty"` // request, response: headers, redacted, without volatile ones
	Event   string      `json:"event,omitempty"`   // event: the "event" field
	ID      string      `json:"id,omitempty"`      // event: the "id" field
	Retry   string      `json:"retry,omitempty"`   // event: the "retry" field, as written
	End     string      `json:"end,omitempty"`     // close: how the stream ended (EndEOF, …)
}

func (h *HTTP) isZero() bool {
	return h.Stream == 0 && h.Method == "" && h.URL == "" && h.Status == 0 && h.Headers == nil &&
		h.Event == "" && h.ID == "" && h.Retry == "" && h.End == ""
}

// side returns who sent the line's message: FromClient or FromServer.
func (in *Interaction) side() string {
	switch in.Kind {
	case KindRequest:
		return FromClient
	case KindResponse, KindEvent:
		return FromServer
	}
	return in.From
}

// isSSE reports whether h declares a text/event-stream body.
func isSSE(h http.Header) bool {
	ct, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return ct == "text/event-stream"
}

// httpScan checks the HTTP lines of a cassette as Parse reads them.
type httpScan struct {
	last    int
	streams map[int]*streamScan
}

type streamScan struct {
	line     int // the request's line
	response bool
	sse      bool
	closed   bool
}

func newHTTPScan() *httpScan { return &httpScan{streams: map[int]*streamScan{}} }

// line checks one HTTP line and decodes its message.
func (hs *httpScan) line(c *Cassette, in *Interaction) error {
	if k := c.Kind(); k != transport.KindStreamableHTTP {
		return fmt.Errorf("%s line in a %s cassette", in.Kind, k)
	}
	if in.From != "" {
		return fmt.Errorf("%s line with from", in.Kind)
	}
	h := &in.HTTP
	if h.Stream <= 0 {
		return fmt.Errorf("%s line without a stream number", in.Kind)
	}
	if in.Message != nil {
		if in.Text != "" {
			return errors.New("line with both message and text")
		}
		msg, err := jsonrpc.DecodeMessage(in.Message)
		if err != nil {
			return fmt.Errorf("message: %v", err)
		}
		if in.Message, err = canonical(in.Message); err != nil {
			return fmt.Errorf("message: %v", err)
		}
		in.msg = msg
	}
	if h.Headers != nil {
		h.Headers = canonicalHeader(h.Headers)
	}
	s := hs.streams[h.Stream]
	only := func(ok bool, what string) error {
		if !ok {
			return fmt.Errorf("%s line with %s", in.Kind, what)
		}
		return nil
	}
	switch in.Kind {
	case KindRequest:
		if h.Stream <= hs.last {
			return fmt.Errorf("request for stream %d after stream %d: streams are numbered in order", h.Stream, hs.last)
		}
		if !isToken(h.Method) || h.URL == "" || h.URL[0] != '/' {
			return fmt.Errorf("request with method %q and url %q, want a method and a path", h.Method, h.URL)
		}
		if err := only(h.Status == 0 && h.Event == "" && h.ID == "" && h.Retry == "" && h.End == "", "response, event or close fields"); err != nil {
			return err
		}
		hs.last = h.Stream
		hs.streams[h.Stream] = &streamScan{line: in.Line}
		return nil
	}
	if s == nil {
		return fmt.Errorf("%s line for stream %d, which has no request", in.Kind, h.Stream)
	}
	if s.closed {
		return fmt.Errorf("%s line for stream %d, which is closed", in.Kind, h.Stream)
	}
	if err := only(h.Method == "" && h.URL == "", "request fields"); err != nil {
		return err
	}
	switch in.Kind {
	case KindResponse:
		if s.response {
			return fmt.Errorf("second response for stream %d", h.Stream)
		}
		if h.Status < 100 || h.Status > 599 {
			return fmt.Errorf("response status %d", h.Status)
		}
		if err := only(h.Event == "" && h.ID == "" && h.Retry == "" && h.End == "", "event or close fields"); err != nil {
			return err
		}
		s.response, s.sse = true, isSSE(h.Headers)
		if s.sse && (in.Message != nil || in.Text != "") {
			return errors.New("event-stream response with a body: its events are lines of their own")
		}
	case KindEvent:
		if !s.sse {
			return fmt.Errorf("event for stream %d, which has no event-stream response", h.Stream)
		}
		if err := only(h.Status == 0 && h.Headers == nil && h.End == "", "response or close fields"); err != nil {
			return err
		}
	case KindClose:
		if err := only(h.Status == 0 && h.Headers == nil && h.Event == "" && h.ID == "" && h.Retry == "" && in.Message == nil && in.Text == "", "other fields"); err != nil {
			return err
		}
		switch h.End {
		case EndError:
			if s.response {
				return fmt.Errorf("close %q for stream %d, which has a response", h.End, h.Stream)
			}
		case EndSession:
		case EndEOF, EndDropped, EndClient:
			if !s.sse {
				return fmt.Errorf("close %q for stream %d, which has no event-stream response", h.End, h.Stream)
			}
		default:
			return fmt.Errorf("close with end %q, want eof, dropped, client, session or error", h.End)
		}
		s.closed = true
	}
	return nil
}

// done checks that every stream was answered and every event stream closed.
func (hs *httpScan) done(c *Cassette) error {
	keys := make([]int, 0, len(hs.streams))
	for k := range hs.streams {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		s := hs.streams[k]
		switch {
		case !s.response && !s.closed:
			return &FormatError{File: c.File, Line: s.line, Err: fmt.Errorf("request of stream %d has no response and no close line", k)}
		case s.sse && !s.closed:
			return &FormatError{File: c.File, Line: s.line, Err: fmt.Errorf("event stream %d has no close line", k)}
		}
	}
	return nil
}

// canonicalHeader returns h with canonical keys, values of keys that
// canonicalise alike joined in sorted key order.
func canonicalHeader(h http.Header) http.Header {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make(http.Header, len(h))
	for _, k := range keys {
		ck := http.CanonicalHeaderKey(k)
		if h[k] == nil {
			if _, ok := out[ck]; !ok {
				out[ck] = nil
			}
			continue
		}
		out[ck] = append(out[ck], h[k]...)
	}
	return out
}

// isToken reports whether s is an HTTP token (a method or header name).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r >= 0x7f || r == '(' || r == ')' || r == '<' || r == '>' || r == '@' || r == ',' || r == ';' ||
			r == ':' || r == '\\' || r == '"' || r == '/' || r == '[' || r == ']' || r == '?' || r == '=' || r == '{' || r == '}' {
			return false
		}
	}
	return true
}
