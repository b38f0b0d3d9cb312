package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"

	"github.com/looprig/mcp/internal/canonjson"
	"github.com/looprig/mcp/transport"
)

// ReadFile reads at most MaxSize bytes of the file at path.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cassette: %w", err)
	}
	defer f.Close()
	var buf bytes.Buffer
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if fi.Size() > int64(Limit) {
			// Refused unread: reading it up to the bound would cost
			// several times the bound as the buffer grows.
			return nil, &FormatError{File: path, Err: fmt.Errorf("larger than %d bytes", Limit)}
		}
		buf.Grow(int(fi.Size()) + 1)
	}
	if _, err := buf.ReadFrom(io.LimitReader(f, int64(Limit)+1)); err != nil {
		return nil, fmt.Errorf("cassette %s: %w", path, err)
	}
	if buf.Len() > Limit {
		return nil, &FormatError{File: path, Err: fmt.Errorf("larger than %d bytes", Limit)}
	}
	return buf.Bytes(), nil
}

// utf8BOM is the byte order mark an editor may put before UTF-8 text.
var utf8BOM = []byte("\xef\xbb\xbf")

// Parse decodes the lines of data, which the cassette may keep, and
// upgrades a version-1 cassette; what the lines mean together is checked
// after (package cassette, analyse). A byte order mark at the
// start of the file, which some editors add, is skipped (RFC 8259 §8.1);
// anywhere else it is an error saying what it is.
func Parse(name string, data []byte) (*Cassette, error) {
	ferr := func(line int, err error) error { return &FormatError{File: name, Line: line, Err: err} }
	data = bytes.TrimPrefix(data, utf8BOM)
	if len(data) == 0 {
		return nil, &FormatError{File: name, Err: errors.New("empty file")}
	}
	if data[len(data)-1] != '\n' {
		return nil, ferr(bytes.Count(data, []byte("\n"))+1, fmt.Errorf("%w (last line has no newline)", ErrTruncated))
	}
	c := &Cassette{File: name}
	nl := bytes.IndexByte(data, '\n')
	if err := parseHeader(data[:nl], &c.Header); err != nil {
		return nil, ferr(1, err)
	}
	rest := data[nl+1:]
	c.Interactions = make([]Interaction, 0, bytes.Count(rest, []byte("\n")))
	ended := false
	for n := 2; len(rest) > 0; n++ {
		nl := bytes.IndexByte(rest, '\n')
		line := rest[:nl]
		rest = rest[nl+1:]
		if ended {
			return nil, ferr(n, errors.New("content after the end line"))
		}
		if bytes.HasPrefix(line, utf8BOM) {
			return nil, ferr(n, errors.New("a UTF-8 byte order mark (EF BB BF) starts the line: only the file may start with one"))
		}
		in, end, err := parseLine(line)
		if err != nil {
			return nil, ferr(n, err)
		}
		if end {
			ended = true
			continue
		}
		c.Interactions = append(c.Interactions, in)
	}
	if !ended {
		return nil, ferr(len(c.Interactions)+1, ErrTruncated)
	}
	if c.Header.Version == 1 {
		if err := c.upgrade(); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func parseHeader(line []byte, h *Header) error {
	var hj struct {
		Format    string   `json:"format"`
		Version   int      `json:"version"`
		Transport string   `json:"transport"`
		Protocol  string   `json:"protocol"`
		Server    string   `json:"server"`
		Volatile  []string `json:"volatile"`
		Redaction string   `json:"redaction"`
	}
	if err := strictUnmarshal(line, &hj); err != nil {
		return fmt.Errorf("header: %v", err)
	}
	*h = Header{Format: hj.Format, Version: hj.Version, Transport: hj.Transport, Protocol: hj.Protocol, Server: hj.Server,
		Redaction: hj.Redaction}
	if len(hj.Volatile) > 0 {
		h.Volatile = hj.Volatile // an empty list is none, as Marshal writes it
	}
	if h.Format != FormatName {
		return fmt.Errorf("format %q, want %q", h.Format, FormatName)
	}
	if h.Version > Version {
		return fmt.Errorf("%w %d: this package reads up to version %d; upgrade github.com/looprig/mcp", ErrVersion, h.Version, Version)
	}
	if h.Version < 1 {
		return fmt.Errorf("%w %d", ErrVersion, h.Version)
	}
	return CheckDeclared(h)
}

// The fast path reads message lines as Marshal writes them.
var (
	prefixClient = []byte(`{"kind":"message","from":"client","message":`)
	prefixServer = []byte(`{"kind":"message","from":"server","message":`)
)

// parseLine decodes one line; end reports the end line.
func parseLine(line []byte) (in Interaction, end bool, err error) {
	for _, p := range [...]struct {
		prefix []byte
		from   string
	}{{prefixClient, FromClient}, {prefixServer, FromServer}} {
		if bytes.HasPrefix(line, p.prefix) && line[len(line)-1] == '}' {
			msg, err := canonjson.CanonicalNested(line[len(p.prefix):len(line)-1], 1)
			if err == nil {
				return Interaction{Kind: KindMessage, From: p.from, Message: msg}, false, nil
			}
			if errors.Is(err, canonjson.ErrTooDeep) {
				return in, false, ErrTooDeep
			}
			break // the slow path says what is wrong
		}
	}
	var lj lineJSON
	if err := strictUnmarshal(line, &lj); err != nil {
		if _, cerr := canonjson.Canonical(line); errors.Is(cerr, canonjson.ErrTooDeep) {
			return in, false, ErrTooDeep
		}
		return in, false, err
	}
	if lj.Kind == KindEnd {
		if !lj.isEmpty() {
			return in, false, errors.New("end line with content")
		}
		return in, true, nil
	}
	in, err = lj.interaction()
	return in, false, err
}

// lineJSON is a line as JSON has it.
type lineJSON struct {
	Kind    string            `json:"kind"`
	From    string            `json:"from,omitempty"`
	Stream  int               `json:"stream,omitempty"`
	Method  string            `json:"method,omitempty"`
	URL     string            `json:"url,omitempty"`
	Status  int               `json:"status,omitempty"`
	Headers http.Header       `json:"headers,omitempty"`
	Event   string            `json:"event,omitempty"`
	ID      string            `json:"id,omitempty"`
	Retry   string            `json:"retry,omitempty"`
	End     string            `json:"end,omitempty"`
	Error   string            `json:"error,omitempty"`
	Class   string            `json:"class,omitempty"`
	Written bool              `json:"written,omitempty"`
	Exit    *exitJSON         `json:"exit,omitempty"`
	Stderr  string            `json:"stderr,omitempty"`
	Pending []json.RawMessage `json:"pending,omitempty"`
	Message json.RawMessage   `json:"message,omitempty"`
	Text    string            `json:"text,omitempty"`
}

type exitJSON struct {
	Code   int    `json:"code"`
	Signal string `json:"signal,omitempty"`
}

func (l *lineJSON) isEmpty() bool {
	e := lineJSON{Kind: l.Kind}
	return l.From == e.From && l.Stream == 0 && l.Method == "" && l.URL == "" && l.Status == 0 && l.Headers == nil &&
		l.Event == "" && l.ID == "" && l.Retry == "" && !l.hasEnding() && l.Message == nil && l.Text == ""
}

func (l *lineJSON) hasHTTP() bool {
	return l.Stream != 0 || l.Method != "" || l.URL != "" || l.Status != 0 || l.Headers != nil || l.Event != "" || l.ID != "" || l.Retry != ""
}

func (l *lineJSON) hasEnding() bool {
	return l.End != "" || l.Error != "" || l.Class != "" || l.Written || l.Exit != nil || l.Stderr != "" || l.Pending != nil
}

// interaction returns the line as an Interaction, its message canonical.
// What the fields mean together is analyse's business.
func (l *lineJSON) interaction() (Interaction, error) {
	in := Interaction{Kind: l.Kind, From: l.From, Text: l.Text}
	if l.Message != nil {
		msg, err := canonjson.CanonicalNested(l.Message, 1)
		if err != nil {
			return in, fmt.Errorf("message: %v", err)
		}
		in.Message = msg
	}
	if l.hasHTTP() {
		in.HTTP = &HTTP{Stream: l.Stream, Method: l.Method, URL: l.URL, Status: l.Status, Headers: l.Headers,
			Event: l.Event, ID: l.ID, Retry: l.Retry}
		if l.Headers != nil {
			in.HTTP.Headers = CanonicalHeader(l.Headers)
		}
	}
	if l.hasEnding() {
		class, err := transport.ParseClass(l.Class)
		if err != nil {
			return in, fmt.Errorf("class: %v", err)
		}
		in.Ending = &Ending{End: l.End, Error: l.Error, Class: class, Written: l.Written, Stderr: l.Stderr}
		if l.Exit != nil {
			in.Ending.Exit = &Exit{Code: l.Exit.Code, Signal: l.Exit.Signal}
		}
		for _, id := range l.Pending {
			canon, err := canonjson.CanonicalNested(id, 2)
			if err != nil {
				return in, fmt.Errorf("pending: %v", err)
			}
			in.Ending.Pending = append(in.Ending.Pending, canon)
		}
	}
	return in, nil
}

// strictUnmarshal decodes exactly one JSON value into v, refusing unknown
// fields.
func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// CanonicalHeader returns h with canonical keys, values of keys that
// canonicalise alike joined in sorted key order.
func CanonicalHeader(h http.Header) http.Header {
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

// IsToken reports whether s is an HTTP token (a method or header name).
func IsToken(s string) bool {
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
