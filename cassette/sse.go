package cassette

import (
	"bytes"
	"errors"
	"strings"
)

// An sseEvent is one server-sent event: its fields as the stream gave them.
// Data holds the data lines joined with "\n".
type sseEvent struct {
	Name  string // the "event" field; "" means "message"
	ID    string // the "id" field
	Retry string // the "retry" field, as written
	Data  []byte // the joined "data" fields; nil when there were none
}

func (e *sseEvent) empty() bool {
	return e.Name == "" && e.ID == "" && e.Retry == "" && e.Data == nil
}

// errEventTooLarge is returned by sseParser.feed when one event grows past
// its bound.
var errEventTooLarge = errors.New("server-sent event larger than the cassette bound")

// An sseParser turns a text/event-stream, fed in pieces of any size, into
// events, as the recorder tees them. It follows the event-stream
// interpretation of the HTML standard: lines end with "\n", "\r\n" or "\r";
// a blank line dispatches the event; lines starting with ":" are comments;
// a line without ":" is a field with an empty value; one space after the
// colon is dropped; unknown fields are ignored. Events with no field set
// (a comment-only block, as the go-sdk sends to flush the standalone stream)
// are not dispatched. It holds at most max bytes of an unfinished event.
type sseParser struct {
	max     int
	line    []byte // the unfinished line
	pending int    // bytes of the unfinished event, lines included
	evt     sseEvent
	lastCR  bool // the previous piece ended with "\r": a following "\n" belongs to it
}

// feed parses p and returns the events it completes.
func (ps *sseParser) feed(p []byte) ([]sseEvent, error) {
	var out []sseEvent
	for len(p) > 0 {
		if ps.lastCR && p[0] == '\n' {
			p = p[1:]
			ps.lastCR = false
			continue
		}
		ps.lastCR = false
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 {
			ps.line = append(ps.line, p...)
			ps.pending += len(p)
			if ps.max > 0 && ps.pending > ps.max {
				return out, errEventTooLarge
			}
			return out, nil
		}
		ps.line = append(ps.line, p[:i]...)
		ps.pending += i + 1
		if ps.max > 0 && ps.pending > ps.max {
			return out, errEventTooLarge
		}
		if p[i] == '\r' {
			if i+1 < len(p) && p[i+1] == '\n' {
				i++
			} else if i+1 == len(p) {
				ps.lastCR = true
			}
		}
		p = p[i+1:]
		if e, ok := ps.endLine(); ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// endLine handles one complete line; it reports a dispatched event.
func (ps *sseParser) endLine() (sseEvent, bool) {
	line := string(ps.line)
	ps.line = ps.line[:0]
	if line == "" {
		e := ps.evt
		ps.evt = sseEvent{}
		ps.pending = 0
		return e, !e.empty()
	}
	if line[0] == ':' {
		return sseEvent{}, false
	}
	name, value, _ := strings.Cut(line, ":")
	value = strings.TrimPrefix(value, " ")
	switch name {
	case "event":
		ps.evt.Name = value
	case "id":
		if !strings.ContainsRune(value, 0) {
			ps.evt.ID = value
		}
	case "retry":
		ps.evt.Retry = value
	case "data":
		if ps.evt.Data == nil {
			ps.evt.Data = []byte{}
		} else {
			ps.evt.Data = append(ps.evt.Data, '\n')
		}
		ps.evt.Data = append(ps.evt.Data, value...)
	}
	return sseEvent{}, false
}

// finish ends the stream cleanly: an unfinished last event is dispatched, as
// the go-sdk's reader does at a clean end of stream.
func (ps *sseParser) finish() (sseEvent, bool) {
	if len(ps.line) > 0 {
		ps.endLine()
	}
	e := ps.evt
	ps.evt = sseEvent{}
	return e, !e.empty()
}

// parseSSE parses a whole stream (tests, hooks).
func parseSSE(data []byte) ([]sseEvent, error) {
	ps := &sseParser{}
	evs, err := ps.feed(data)
	if err != nil {
		return nil, err
	}
	if e, ok := ps.finish(); ok {
		evs = append(evs, e)
	}
	return evs, nil
}

// wire encodes e as the event-stream text that parses back to e. Data with
// several lines becomes several data fields. Field values that cannot be
// written (a line break in a name, id or retry) are dropped.
func (e *sseEvent) wire(buf *bytes.Buffer) {
	field := func(name, v string) {
		if v == "" || strings.ContainsAny(v, "\r\n") {
			return
		}
		buf.WriteString(name)
		buf.WriteString(": ")
		buf.WriteString(v)
		buf.WriteByte('\n')
	}
	field("event", e.Name)
	field("id", e.ID)
	field("retry", e.Retry)
	if e.Data != nil {
		for _, l := range splitLines(string(e.Data)) {
			buf.WriteString("data: ")
			buf.WriteString(l)
			buf.WriteByte('\n')
		}
	}
	buf.WriteByte('\n')
}

// splitLines splits s at "\r\n", "\r" and "\n".
func splitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.Split(s, "\n")
}
