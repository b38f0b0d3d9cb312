package cassette

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FormatName is the value of the header's "format" field.
const FormatName = "mcprig-cassette"

// Version is the newest format version this package reads and the one it
// writes.
const Version = 1

// MaxSize bounds the size of a cassette file that Load reads.
const MaxSize = 64 << 20

// Interaction kinds. The message level writes KindMessage and KindStderr;
// the HTTP level writes KindRequest, KindResponse, KindEvent and KindClose
// (see http_format.go).
const (
	// KindMessage is one JSON-RPC message, in Interaction.Message.
	KindMessage = "message"
	// KindStderr is text the server wrote to its standard error, in
	// Interaction.Text.
	KindStderr = "stderr"
	// kindEnd is the last line of a complete cassette.
	kindEnd = "end"
)

// Sides of a session: who sent a message.
const (
	FromClient = "client"
	FromServer = "server"
)

var (
	// ErrTruncated is returned (inside a *FormatError) when a cassette ends
	// before its end line.
	ErrTruncated = errors.New("truncated: no end line")
	// ErrVersion is returned (inside a *FormatError) when a cassette's format
	// version is newer than this package reads.
	ErrVersion = errors.New("unsupported format version")
)

// A FormatError reports a cassette that cannot be loaded: truncated,
// corrupted, of a future version, or edited into something inconsistent.
type FormatError struct {
	File string // the file's path, or the name given to Parse
	Line int    // 1-based line of the offending interaction; 0 for the whole file
	Err  error
}

func (e *FormatError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("cassette %s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("cassette %s: %v", e.File, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }

// Header is the first line of a cassette.
type Header struct {
	Format    string `json:"format"`    // always FormatName
	Version   int    `json:"version"`   // format version, Version when written by this package
	Transport string `json:"transport"` // transport.Kind's String: "stdio", "inprocess", "streamablehttp"
	Protocol  string `json:"protocol"`  // negotiated protocol revision, from the initialize result
	Server    string `json:"server"`    // serverInfo.name from the initialize result
}

// An Interaction is one line after the header.
type Interaction struct {
	Line int `json:"-"` // 1-based line in the file, set by Parse

	Kind string `json:"kind"`           // KindMessage, KindStderr, or an HTTP kind
	From string `json:"from,omitempty"` // FromClient or FromServer, for messages

	// HTTP lines only (KindRequest, KindResponse, KindEvent, KindClose).
	HTTP

	Message json.RawMessage `json:"message,omitempty"` // canonical JSON-RPC message (an HTTP body or event data, for HTTP lines)
	Text    string          `json:"text,omitempty"`    // stderr text; an HTTP body or event data that is not a JSON-RPC message

	msg  jsonrpc.Message // decoded Message
	pair int             // for a response: index of the request it answers; else -1
}

// Method returns the JSON-RPC method of a request or notification, "" for
// anything else.
func (in *Interaction) Method() string {
	if r, ok := in.msg.(*jsonrpc.Request); ok {
		return r.Method
	}
	return ""
}

// A Cassette is one recorded session.
type Cassette struct {
	File         string // where it was loaded from
	Header       Header
	Interactions []Interaction
}

// Kind returns the transport kind named by the header.
func (c *Cassette) Kind() transport.Kind {
	k, _ := transport.ParseKind(c.Header.Transport)
	return k
}

// Load reads and validates the cassette at path. Every problem with the
// content is a *FormatError naming the file and line.
func Load(path string) (*Cassette, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cassette: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("cassette %s: %w", path, err)
	}
	if len(data) > MaxSize {
		return nil, &FormatError{File: path, Err: fmt.Errorf("larger than %d bytes", MaxSize)}
	}
	return Parse(path, data)
}

// Parse decodes a cassette from data; name is used in errors.
func Parse(name string, data []byte) (*Cassette, error) {
	ferr := func(line int, format string, args ...any) error {
		return &FormatError{File: name, Line: line, Err: fmt.Errorf(format, args...)}
	}
	if len(data) == 0 {
		return nil, &FormatError{File: name, Err: errors.New("empty file")}
	}
	if data[len(data)-1] != '\n' {
		return nil, &FormatError{File: name, Line: bytes.Count(data, []byte("\n")) + 1, Err: fmt.Errorf("%w (last line has no newline)", ErrTruncated)}
	}
	lines := strings.Split(string(data[:len(data)-1]), "\n")
	c := &Cassette{File: name}
	if err := strictUnmarshal([]byte(lines[0]), &c.Header); err != nil {
		return nil, ferr(1, "header: %v", err)
	}
	if err := c.Header.check(); err != nil {
		return nil, &FormatError{File: name, Line: 1, Err: err}
	}
	ended := false
	hs := newHTTPScan()
	for i, line := range lines[1:] {
		n := i + 2
		if ended {
			return nil, ferr(n, "content after the end line")
		}
		var in Interaction
		if err := strictUnmarshal([]byte(line), &in); err != nil {
			return nil, ferr(n, "%v", err)
		}
		in.Line = n
		in.pair = -1
		switch in.Kind {
		case kindEnd:
			if in.From != "" || in.Message != nil || in.Text != "" || !in.HTTP.isZero() {
				return nil, ferr(n, "end line with content")
			}
			ended = true
			continue
		case KindStderr:
			if in.From != "" || in.Message != nil || !in.HTTP.isZero() {
				return nil, ferr(n, "stderr line with a message or HTTP fields")
			}
		case KindRequest, KindResponse, KindEvent, KindClose:
			if err := hs.line(c, &in); err != nil {
				return nil, ferr(n, "%v", err)
			}
		case KindMessage:
			if c.Kind() == transport.KindStreamableHTTP {
				return nil, ferr(n, "message line in a streamablehttp cassette")
			}
			if in.From != FromClient && in.From != FromServer {
				return nil, ferr(n, "from %q, want %q or %q", in.From, FromClient, FromServer)
			}
			if in.Text != "" || !in.HTTP.isZero() {
				return nil, ferr(n, "message line with text or HTTP fields")
			}
			msg, err := jsonrpc.DecodeMessage(in.Message)
			if err != nil {
				return nil, ferr(n, "message: %v", err)
			}
			if in.Message, err = canonical(in.Message); err != nil {
				return nil, ferr(n, "message: %v", err)
			}
			in.msg = msg
		default:
			return nil, ferr(n, "unknown kind %q", in.Kind)
		}
		c.Interactions = append(c.Interactions, in)
	}
	if !ended {
		return nil, &FormatError{File: name, Line: len(lines), Err: ErrTruncated}
	}
	if err := hs.done(c); err != nil {
		return nil, err
	}
	if err := c.link(); err != nil {
		return nil, err
	}
	return c, nil
}

func (h *Header) check() error {
	if h.Format != FormatName {
		return fmt.Errorf("format %q, want %q", h.Format, FormatName)
	}
	if h.Version > Version {
		return fmt.Errorf("%w %d: this package reads up to version %d; upgrade github.com/looprig/mcp", ErrVersion, h.Version, Version)
	}
	if h.Version < 1 {
		return fmt.Errorf("%w %d", ErrVersion, h.Version)
	}
	if _, err := transport.ParseKind(h.Transport); err != nil {
		return err
	}
	if h.Protocol == "" || h.Server == "" {
		return errors.New("header without protocol or server")
	}
	return nil
}

// link pairs every response with the request it answers, and checks that the
// header agrees with the initialize exchange.
func (c *Cassette) link() error {
	type key struct {
		from string
		id   any
	}
	pending := map[key]int{}
	for i := range c.Interactions {
		in := &c.Interactions[i]
		from := in.side()
		switch m := in.msg.(type) {
		case *jsonrpc.Request:
			if !m.IsCall() {
				continue
			}
			k := key{from, m.ID.Raw()}
			if j, dup := pending[k]; dup {
				return &FormatError{File: c.File, Line: in.Line, Err: fmt.Errorf("request id %v is already pending since line %d", m.ID.Raw(), c.Interactions[j].Line)}
			}
			pending[k] = i
		case *jsonrpc.Response:
			other := FromClient
			if from == FromClient {
				other = FromServer
			}
			k := key{other, m.ID.Raw()}
			j, ok := pending[k]
			if !ok {
				return &FormatError{File: c.File, Line: in.Line, Err: fmt.Errorf("response id %v answers no pending %s request", m.ID.Raw(), other)}
			}
			delete(pending, k)
			in.pair = j
			if req := c.Interactions[j].msg.(*jsonrpc.Request); req.Method == "initialize" && m.Error == nil {
				if err := c.checkInit(in.Line, m.Result); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (c *Cassette) checkInit(line int, result json.RawMessage) error {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return &FormatError{File: c.File, Line: line, Err: fmt.Errorf("initialize result: %v", err)}
	}
	if r.ProtocolVersion != c.Header.Protocol || r.ServerInfo.Name != c.Header.Server {
		return &FormatError{File: c.File, Line: line, Err: fmt.Errorf("initialize result (protocol %q, server %q) disagrees with the header (protocol %q, server %q)",
			r.ProtocolVersion, r.ServerInfo.Name, c.Header.Protocol, c.Header.Server)}
	}
	return nil
}

// strictUnmarshal decodes exactly one JSON value into v, refusing unknown
// fields.
func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// Marshal encodes c in the cassette format. Parse(name, c.Marshal()) gives c
// back, and encoding is deterministic.
func (c *Cassette) Marshal() []byte {
	var buf bytes.Buffer
	writeLine(&buf, c.Header)
	for i := range c.Interactions {
		if in := &c.Interactions[i]; in.isPlainMessage() {
			// What the encoder writes for a message line, without reflection:
			// the message is canonical, so compact already.
			buf.WriteString(`{"kind":"message","from":"`)
			buf.WriteString(in.From)
			buf.WriteString(`","message":`)
			buf.Write(in.Message)
			buf.WriteString("}\n")
			continue
		}
		writeLine(&buf, &c.Interactions[i])
	}
	writeLine(&buf, Interaction{Kind: kindEnd})
	return buf.Bytes()
}

// isPlainMessage reports whether in is a message line with nothing else
// set, from the client or the server, whose message is non-empty.
func (in *Interaction) isPlainMessage() bool {
	return in.Kind == KindMessage && (in.From == FromClient || in.From == FromServer) &&
		in.Text == "" && len(in.Message) > 0 && in.HTTP.isZero()
}

func writeLine(buf *bytes.Buffer, v any) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Headers and interactions hold only strings and valid JSON.
		panic("cassette: encoding a line: " + err.Error())
	}
}
