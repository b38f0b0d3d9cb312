// Package sse is this module's one reader and writer of server-sent events
// (text/event-stream), used by transport/streamablehttp, transport/sse, the
// cassette and the fake server.
//
// The reader follows "Interpreting an event stream" of the HTML standard:
// lines end with CRLF, LF or CR; a leading byte order mark is skipped; a
// line starting with ":" is a comment; "field: value" drops one space after
// the colon (and only one); a line without a colon is a field with an empty
// value; data fields join with "\n"; an id containing NUL is ignored; a
// retry that is not all ASCII digits is ignored; unknown fields are
// ignored; a blank line ends the event; an unfinished event at the end of
// the stream is discarded. It reports every event that sets a field (one
// with only an id or a retry too, which a browser would not dispatch but
// whose id a client resumes from) and holds at most [Parser.Max] bytes of
// an event in progress.
//
// The writer writes the form that reads back to the same event. The go-sdk's
// own reader, which trims white space around every value, reads it the same
// way when values have none (JSON-RPC messages, ids, names); [SDKView] says
// how it reads it in every case.
package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// An Event is one server-sent event: the fields one block of the stream set.
type Event struct {
	Name  string // the "event" field; "" means "message"
	ID    string // the "id" field; "" when the block set none (or set it empty)
	Retry string // the "retry" field, ASCII digits
	Data  []byte // the "data" fields joined with "\n"; nil when there were none
}

// IsZero reports whether e sets no field.
func (e *Event) IsZero() bool {
	return e.Name == "" && e.ID == "" && e.Retry == "" && e.Data == nil
}

// ErrTooLarge is returned (inside a *LimitError) when an event grows past
// Parser.Max.
var ErrTooLarge = errors.New("sse: event too large")

// A LimitError reports an event larger than the bound.
type LimitError struct{ Max int }

func (e *LimitError) Error() string { return fmt.Sprintf("sse: event over %d bytes", e.Max) }

// Unwrap returns ErrTooLarge.
func (e *LimitError) Unwrap() error { return ErrTooLarge }

// A Parser turns an event stream, fed in pieces of any size, into events.
// The zero value is ready to use, with no bound.
type Parser struct {
	// Max bounds the bytes of one event: its lines, comments and line ends,
	// up to and including the line end of the blank line that ends it (of a
	// CRLF there, only the CR: the event is complete at it). Zero means no
	// bound.
	Max int

	line    []byte // the unfinished line
	pending int    // bytes of the event in progress
	evt     Event
	lastCR  bool // the previous byte ended a line with CR: a LF after it belongs to it
	started bool // a byte has been seen (for the byte order mark)
	err     error
}

// Pending returns the bytes of the event in progress, as Max counts them: a
// caller that reads at most Max-Pending()+1 bytes at a time never reads more
// than one byte past the bound.
func (p *Parser) Pending() int { return p.pending }

// Feed parses b and calls emit for each event it completes, in order. It
// returns emit's first error, or a *LimitError once an event passes Max;
// after an error it parses nothing more and returns the same error.
func (p *Parser) Feed(b []byte, emit func(Event) error) error {
	if p.err != nil {
		return p.err
	}
	if !p.started && len(b) > 0 {
		p.started = true
		// A byte order mark split across the first pieces is not seen: it
		// makes a field name no one reads.
		b = bytes.TrimPrefix(b, bom)
	}
	for len(b) > 0 {
		if p.lastCR {
			p.lastCR = false
			if b[0] == '\n' {
				b = b[1:]
				if p.pending > 0 { // the LF of a CRLF within an event
					p.pending++
					if err := p.check(); err != nil {
						return err
					}
				}
				continue
			}
		}
		i := lineEnd(b)
		if i < 0 {
			p.line = append(p.line, b...)
			p.pending += len(b)
			return p.check()
		}
		// A line whole in b is read where it is; only one split across
		// pieces is gathered in p.line.
		line := b[:i]
		if len(p.line) > 0 {
			p.line = append(p.line, line...)
			line = p.line
		}
		blank := len(line) == 0
		p.pending += i + 1
		if err := p.check(); err != nil {
			return err
		}
		p.lastCR = b[i] == '\r'
		b = b[i+1:]
		if blank {
			e := p.evt
			p.evt, p.pending = Event{}, 0
			if !e.IsZero() {
				if err := emit(e); err != nil {
					p.err = err
					return err
				}
			}
			continue
		}
		p.field(line)
		p.line = p.line[:0]
	}
	return nil
}

// lineEnd returns the index of the first CR or LF in b, or -1.
func lineEnd(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	head := b
	if i >= 0 {
		head = b[:i]
	}
	if j := bytes.IndexByte(head, '\r'); j >= 0 {
		return j
	}
	return i
}

var bom = []byte("\ufeff")

func (p *Parser) check() error {
	if p.Max > 0 && p.pending > p.Max {
		p.err = &LimitError{Max: p.Max}
		return p.err
	}
	return nil
}

// field interprets one non-blank line.
func (p *Parser) field(line []byte) {
	if line[0] == ':' {
		return // a comment
	}
	name, value, _ := bytes.Cut(line, []byte{':'})
	value = bytes.TrimPrefix(value, []byte{' '})
	switch string(name) {
	case "event":
		if string(value) == "message" {
			p.evt.Name = "message" // the usual name, without a copy
		} else {
			p.evt.Name = string(value)
		}
	case "data":
		if p.evt.Data == nil {
			p.evt.Data = make([]byte, 0, len(value))
		} else {
			p.evt.Data = append(p.evt.Data, '\n')
		}
		p.evt.Data = append(p.evt.Data, value...)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			p.evt.ID = string(value)
		}
	case "retry":
		if len(value) > 0 && allDigits(value) {
			p.evt.Retry = string(value)
		}
	}
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Parse returns the events of a whole stream. An unfinished last event is
// discarded, as at the end of any stream.
func Parse(b []byte) ([]Event, error) {
	var evs []Event
	var p Parser
	err := p.Feed(b, func(e Event) error { evs = append(evs, e); return nil })
	return evs, err
}

// A Reader reads events from an event stream.
type Reader struct {
	r      io.Reader
	p      Parser
	queue  []Event
	buf    []byte
	err    error
	emitFn func(Event) error
}

// NewReader returns a Reader of r holding at most max bytes of an event in
// progress (zero: no bound).
func NewReader(r io.Reader, max int) *Reader {
	rd := &Reader{r: r, p: Parser{Max: max}}
	rd.emitFn = func(e Event) error { rd.queue = append(rd.queue, e); return nil }
	return rd
}

// Next returns the next event. At the end of the stream it returns io.EOF
// (an unfinished last event is discarded); a read error is returned as is,
// and a *LimitError when an event passes the bound.
func (rd *Reader) Next() (Event, error) {
	for len(rd.queue) == 0 {
		if rd.err != nil {
			return Event{}, rd.err
		}
		if rd.buf == nil {
			rd.buf = make([]byte, 4<<10)
		}
		n, err := rd.r.Read(rd.buf)
		if perr := rd.p.Feed(rd.buf[:n], rd.emitFn); perr != nil {
			err = perr
		}
		rd.err = err
	}
	e := rd.queue[0]
	rd.queue = rd.queue[1:]
	return e, nil
}

// ErrUnwritable is returned (wrapped) by Append when a name, id or retry
// cannot be written: it holds a line break, or the id a NUL, or the retry
// something other than ASCII digits.
var ErrUnwritable = errors.New("sse: field cannot be written")

// Append appends e as event-stream text to dst: "event", "id" and "retry"
// lines for the fields set, one "data" line per line of Data (Data split at
// CRLF, LF and CR), and the blank line that ends it. Each field is written
// "name: value", so the text reads back to e.
func Append(dst []byte, e Event) ([]byte, error) {
	for _, f := range [...]struct{ name, value string }{{"event", e.Name}, {"id", e.ID}, {"retry", e.Retry}} {
		if f.value == "" {
			continue
		}
		if strings.ContainsAny(f.value, "\r\n") || f.name == "id" && strings.IndexByte(f.value, 0) >= 0 ||
			f.name == "retry" && !allDigits([]byte(f.value)) {
			return dst, fmt.Errorf("%w: %s %q", ErrUnwritable, f.name, f.value)
		}
		dst = append(dst, f.name...)
		dst = append(dst, ": "...)
		dst = append(dst, f.value...)
		dst = append(dst, '\n')
	}
	if e.Data != nil {
		data := e.Data
		for {
			i := bytes.IndexAny(data, "\r\n")
			line := data
			if i >= 0 {
				line = data[:i]
			}
			dst = append(dst, "data: "...)
			dst = append(dst, line...)
			dst = append(dst, '\n')
			if i < 0 {
				break
			}
			if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
				i++
			}
			data = data[i+1:]
		}
	}
	return append(dst, '\n'), nil
}

// SDKView returns e as the go-sdk's own reader of event streams reads the
// text Append writes for it, and whether that reader reports it at all. The
// go-sdk trims white space (as unicode.IsSpace) around every value and
// around each line of the data before joining the lines with "\n", and
// skips an event whose name, id, retry and data are all empty after that.
// A transport that hands the go-sdk events written by Append, or decodes
// their messages itself in its place, reads them through SDKView to read
// what the go-sdk reads.
func SDKView(e Event) (Event, bool) {
	v := Event{Name: strings.TrimSpace(e.Name), ID: strings.TrimSpace(e.ID), Retry: strings.TrimSpace(e.Retry)}
	if e.Data != nil {
		v.Data = sdkData(e.Data)
	}
	return v, v.Name != "" || v.ID != "" || v.Retry != "" || len(v.Data) > 0
}

// sdkData is the go-sdk's reading of Append's data lines for data: each
// line (split at CRLF, LF and CR, as Append splits it) trimmed, joined with
// "\n". Data that needs no trimming is returned as it is.
func sdkData(data []byte) []byte {
	if !needsTrim(data) {
		return data
	}
	out := make([]byte, 0, len(data))
	for first := true; ; first = false {
		i := bytes.IndexAny(data, "\r\n")
		line := data
		if i >= 0 {
			line = data[:i]
		}
		if !first {
			out = append(out, '\n')
		}
		out = append(out, bytes.TrimSpace(line)...)
		if i < 0 {
			return out
		}
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
}

// needsTrim reports whether sdkData would change data: it holds a CR, or a
// line that starts or ends with a byte that may begin or end white space
// (ASCII white space, or a byte of a multi-byte character, which may be one
// of Unicode's spaces).
func needsTrim(data []byte) bool {
	edge := func(b byte) bool { return b <= ' ' || b >= 0x80 }
	if len(data) > 0 && (edge(data[0]) || edge(data[len(data)-1])) {
		return true
	}
	for i, b := range data {
		switch b {
		case '\r':
			return true
		case '\n':
			if i > 0 && edge(data[i-1]) || i+1 < len(data) && edge(data[i+1]) {
				return true
			}
		}
	}
	return false
}

// Write writes e to w as Append encodes it, in one Write.
func Write(w io.Writer, e Event) error {
	b, err := Append(nil, e)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
