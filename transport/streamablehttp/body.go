package streamablehttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptrace"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/looprig/mcp/internal/deadline"
	"github.com/looprig/mcp/internal/sse"
	"github.com/looprig/mcp/internal/wire"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// bodyBase is what every wrapped response body shares: the bounds of its
// reads and of the wait for its headers, the request's cancel, the
// concurrency slot, and the connection's cleanup.
type bodyBase struct {
	rc      io.ReadCloser
	st      *connState
	cancel  context.CancelFunc
	slot    bool        // holds one of st.slots
	read    deadline.Op // the read in progress, bounded by st.idle
	hdr     deadline.Op // the wait for the response headers, bounded by st.header
	expired atomic.Bool // a read outlasted the idle bound
	// hdrTimedOut: the headers did not come within the bound (set by
	// RoundTrip, before the body exists)
	hdrTimedOut bool
	once        sync.Once

	trace httptrace.ClientTrace // sets wrote, and starts hdr
	wrote atomic.Bool           // the whole request went out

	stream *sseBody // the sseBody allocated with this (exchange), or nil
}

// wroteRequest is the request's httptrace.ClientTrace.WroteRequest: the
// wait for the response headers starts (unless they came already, and
// RoundTrip closed b.hdr).
func (b *bodyBase) wroteRequest(i httptrace.WroteRequestInfo) {
	b.wrote.Store(i.Err == nil)
	if i.Err == nil {
		b.st.header.Start(&b.hdr)
	}
}

// readNet reads from the network, aborting the request if no byte arrives
// within the idle bound.
func (b *bodyBase) readNet(p []byte) (int, error) {
	b.st.idle.Start(&b.read)
	n, err := b.rc.Read(p)
	b.st.idle.Stop(&b.read)
	if err != nil && b.expired.Load() {
		err = &transport.TimeoutError{Transport: pkg, Phase: "idle read", Limit: b.st.f.opts.Timeouts.IdleRead, Err: err}
	}
	return n, err
}

func (b *bodyBase) expire() {
	b.expired.Store(true)
	b.cancel()
	b.rc.Close()
}

// abort stops reading from the network.
func (b *bodyBase) abort() {
	b.cancel()
	b.rc.Close()
}

// done releases what the request holds, once.
func (b *bodyBase) done() {
	b.once.Do(func() {
		b.st.idle.Close(&b.read)
		b.st.header.Close(&b.hdr)
		b.cancel()
		if b.slot {
			<-b.st.slots
		}
		if b.st.isClosed() {
			b.st.closeIdle()
		}
	})
}

func (b *bodyBase) Close() error {
	var err error
	if b.rc != nil {
		err = b.rc.Close()
	}
	b.done()
	return err
}

// plainBody bounds a body that is not a call's answer.
type plainBody struct {
	*bodyBase
	max  int64
	what string
	n    int64
	err  error
}

func (p *plainBody) Read(buf []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	if room := p.max - p.n + 1; int64(len(buf)) > room {
		buf = buf[:room]
	}
	n, err := p.readNet(buf)
	p.n += int64(n)
	if p.n > p.max {
		p.abort()
		p.err = &transport.LimitError{Transport: pkg, What: p.what, Limit: p.max}
		return 0, p.err
	}
	return n, err
}

// jsonBody is the application/json answer to a call. It reads the whole
// body, up to the bound, before handing out a byte. So what the go-sdk
// reads is either the server's answer or an error response for the call.
// The error response is for a body that was too large or broke off. The
// go-sdk delivers it to the caller, rather than failing the whole
// connection.
type jsonBody struct {
	*bodyBase
	ctx    context.Context // the request's
	call   *callRef
	max    int64
	loaded bool
	data   []byte
}

func (j *jsonBody) Read(p []byte) (int, error) {
	if !j.loaded {
		j.load()
	}
	if len(j.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p, j.data)
	j.data = j.data[n:]
	return n, nil
}

func (j *jsonBody) load() {
	j.loaded = true
	// Read at most one byte past the bound, growing by doubling: at most
	// about twice the bound is ever allocated.
	bound := int(j.max) + 1
	buf := make([]byte, 0, min(bound, 4<<10))
	var err error
	for len(buf) < bound {
		if len(buf) == cap(buf) {
			buf = append(make([]byte, 0, min(2*cap(buf), bound)), buf...)
		}
		var n int
		n, err = j.readNet(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			break
		}
	}
	switch {
	case len(buf) > int(j.max):
		j.abort()
		j.data = errorResponse(j.call, &transport.LimitError{Transport: pkg, What: "json body", Limit: j.max})
	case err != nil && err != io.EOF:
		j.data = errorResponse(j.call, dropError(err))
	case !isResponseTo(buf, j.call):
		j.data = errorResponse(j.call, fmt.Errorf("%w: %s", errResponseMismatch, snippet(buf)))
	default:
		j.data = buf
		if j.st != nil && j.st.tap != nil {
			j.st.tap(j.ctx, buf)
		}
	}
}

// isResponseTo reports whether the go-sdk reads data as one JSON-RPC
// response (a result or an error) to call.
func isResponseTo(data []byte, call *callRef) bool {
	h, err := wire.DecodeHeader(data)
	return err == nil && !h.Request && (h.HasResult || h.HasError) && h.ID == call.jid
}

// snippet describes the start of a body, for an error message.
func snippet(data []byte) string {
	const max = 120
	if len(data) > max {
		return fmt.Sprintf("%q…", data[:max])
	}
	return fmt.Sprintf("%q", data)
}

// sseBody is a text/event-stream response. It reads the stream with
// internal/sse: the events the standard defines, however the server ends
// its lines. It hands the go-sdk each complete event, written again in the
// one form the go-sdk reads alike. It holds at most MaxEventBytes of the
// event in progress. So it can end the stream cleanly when a bound is
// crossed or the stream breaks:
//
//   - the call's answer arrived: everything passes through;
//   - a bound is crossed before the answer: the stream ends with an error
//     response for the call ([transport.ErrLimit]);
//   - the stream breaks before the answer, after an event id: the break
//     passes through and the go-sdk resumes with GET and Last-Event-ID (the
//     resumed stream is watched the same way);
//   - it breaks before the answer with no event id: the stream ends with an
//     error response for the call (errStreamDropped, or
//     [transport.ErrTimeout] if it went idle).
//
// Without a call (the standalone stream) a crossed bound is a
// [transport.LimitError] read error.
type sseBody struct {
	*bodyBase
	ctx       context.Context // the request's
	call      *callRef        // nil for the standalone stream
	notes     []string        // methods of the notifications handed out and not yet admitted
	resumable bool            // resumption is enabled
	idSeen    bool            // an event id has been handed out
	answered  bool            // the call's answer has been handed out
	lastID    string
	maxEvent  int64
	maxTotal  int64
	total     int64

	parser  sse.Parser  // bounded by maxEvent
	scratch []byte      // what one read from the network fills
	bufs    *sseBuffers // the pooled buffers scratch and out started with, or nil
	full    bool        // the last read filled scratch
	out     []byte      // out[off:] is handed out but not yet read
	off     int
	kept    int    // out[:kept] ends with an event that carries a message: what follows is bare events
	reply   []byte // the call's answer, as the go-sdk reads it, once answered
	alone   bool   // the answer is the first message of the read it came in
	asJSON  bool   // the stream is handed out as an application/json body: reply, then EOF
	// draining: the body is closed and the rest of the stream is being
	// read (drain)
	draining bool
	end      error // returned once out is read, if set
}

const readChunk = 32 << 10

// sseStart is the size an sseBody's buffers start at.
const sseStart = 2 << 10

// sseBuffers are the buffers an sseBody starts with, from sseBufferPool:
// what one read from the network fills, and what goes out. A stream that
// outgrows them uses larger ones of its own; they go back to the pool when
// it is closed.
type sseBuffers struct{ scratch, out []byte }

var sseBufferPool = sync.Pool{New: func() any {
	return &sseBuffers{scratch: make([]byte, sseStart), out: make([]byte, 0, sseStart)}
}}

// Close closes the stream and gives its buffers back to the pool. A stream
// handed over as application/json before its end came is read to its end
// first, by a goroutine of its own (drain). The go-sdk closes a JSON body
// before it decodes the answer. The answer must not wait for the server to
// end the stream. (The go-sdk delivers an event stream's answer at once,
// and reads the rest after.)
func (s *sseBody) Close() error {
	if s.asJSON && s.end == nil && !s.draining {
		s.draining = true
		if s.st.drains(s) {
			go s.drain()
			return nil
		}
	}
	return s.release()
}

// drain reads the rest of the stream, within its bounds and the idle bound,
// discarding it, so that its connection is reused, then releases it. The
// connection's shutdown ends it (connState.drains).
func (s *sseBody) drain() {
	for s.end == nil {
		s.fill()
	}
	s.release()
	s.st.drained(s)
}

// release closes the stream from the network and gives the buffers back.
func (s *sseBody) release() error {
	err := s.bodyBase.Close()
	if s.bufs != nil {
		sseBufferPool.Put(s.bufs)
		s.bufs, s.scratch, s.out, s.off = nil, nil, nil, 0
	}
	return err
}

func (s *sseBody) Read(p []byte) (int, error) {
	if s.asJSON {
		return s.readJSON(p)
	}
	for {
		for _, m := range s.notes {
			s.st.admit(s.ctx, m) // the client's pace: it may hold reading back
		}
		s.notes = s.notes[:0]
		if s.off < len(s.out) {
			n := copy(p, s.out[s.off:])
			s.off += n
			return n, nil
		}
		if s.end != nil {
			return 0, s.end
		}
		s.fill()
	}
}

// preread reads the response to a call's POST before the go-sdk is handed
// it, up to its first message. It reports whether that is the call's
// answer. Then the response is handed over as application/json holding the
// answer alone (readJSON). The go-sdk reads that whole, as a response of
// that type. It needs no buffered reader of event streams, which it
// allocates for every stream. It does not parse the lines and fields
// again, since this body has read them. Whatever follows the answer the
// go-sdk would not read from an event stream either: it ends a call's
// stream at the answer. What comes
// before the first message (events without one, notifications the
// diverter takes) is at most prereadMax bytes; past that, or at the first
// other message, the stream is handed over as it is.
func (s *sseBody) preread() bool {
	for s.end == nil && !s.answered && s.kept == 0 && len(s.notes) == 0 && len(s.out) <= prereadMax {
		s.fill()
	}
	s.asJSON = s.answered && s.alone && len(s.notes) == 0
	if s.asJSON {
		s.out, s.off, s.kept = s.out[:0], 0, 0 // the answer goes out as reply
	}
	return s.asJSON
}

// prereadMax bounds the events without a message preread holds.
const prereadMax = 4 << 10

// readJSON hands out the answer, then the end of the body. The rest of the
// stream is read when the body is closed (Close).
func (s *sseBody) readJSON(p []byte) (int, error) {
	if len(s.reply) > 0 {
		n := copy(p, s.reply)
		s.reply = s.reply[n:]
		return n, nil
	}
	return 0, io.EOF
}

// fill reads once from the network and hands out the events it completes.
func (s *sseBody) fill() {
	if s.off == len(s.out) { // else preread holds what is not yet handed out
		s.out, s.off, s.kept = s.out[:0], 0, 0
	}
	s.parser.Max = int(s.maxEvent)
	// Read at most one byte past the event bound and the stream bound.
	room := min(s.maxEvent-int64(s.parser.Pending())+1, s.maxTotal-s.total+1, readChunk)
	if int64(cap(s.scratch)) < room && s.full {
		// Grow by doubling, from a small start, once a read fills it:
		// most streams are small.
		s.scratch = make([]byte, min(room, int64(2*cap(s.scratch))))
	} else if s.scratch == nil && room >= sseStart && s.bufs == nil {
		s.bufs = sseBufferPool.Get().(*sseBuffers)
		s.scratch, s.out = s.bufs.scratch, s.bufs.out[:0]
	} else if s.scratch == nil {
		s.scratch = make([]byte, min(room, sseStart))
	}
	room = min(room, int64(cap(s.scratch)))
	n, err := s.readNet(s.scratch[:room])
	s.full = int64(n) == room
	data := s.scratch[:n]
	// What goes out is the events again, each written by sse.Append: at
	// most a few bytes longer than they came.
	s.out = slices.Grow(s.out, n+n/4+64)
	s.total += int64(n)
	over := s.total > s.maxTotal
	if over {
		// Events completed within the bound still go out; the byte past
		// it does not.
		data = data[:len(data)-1]
	}
	perr := s.parser.Feed(data, s.emit)
	switch {
	case over:
		s.overLimit(&transport.LimitError{Transport: pkg, What: "stream", Limit: s.maxTotal})
	case perr != nil:
		s.overLimit(&transport.LimitError{Transport: pkg, What: "sse event", Limit: s.maxEvent})
	case err != nil:
		s.ended(err)
	}
}

// emit notes an event's id, whether it carries the call's answer and the
// method of the notification it carries (for the client's pace), and hands
// it out. It reads the event as the go-sdk will read it (sse.SDKView,
// wire.DecodeHeader): the go-sdk resumes from the last id it read, and
// takes a message from an event named "message" or not named, with data.
//
// It hands out no more of an event than the go-sdk keeps of it. (Its
// reader of event streams would otherwise parse it line by line.) Of an
// event that carries no message, it hands out its id and retry
// (appendBare). Of the call's answer, it hands out its data alone, without
// the bare events just before it. Of the events after the answer, it
// hands out nothing. The go-sdk ends a call's stream at the answer. So it
// neither resumes from an id read before it nor waits as a retry read
// before it says.
func (s *sseBody) emit(e sse.Event) error {
	if s.call != nil && s.answered {
		return nil // the go-sdk reads no event of a call's stream after the answer
	}
	v, ok := sse.SDKView(e)
	if ok && v.ID != "" {
		s.lastID, s.idSeen = v.ID, true
	}
	if !ok || len(v.Data) == 0 || (v.Name != "" && v.Name != "message") {
		return s.appendBare(e) // the go-sdk takes no message from it
	}
	if h, err := wire.DecodeHeader(v.Data); err == nil {
		switch {
		case h.Request && !h.IsCall():
			if s.diverted(v.Data) {
				return s.appendBare(e)
			}
			if s.st.admit != nil {
				s.notes = append(s.notes, h.Method)
			}
		case !h.Request && s.call != nil && h.ID == s.call.jid:
			s.answered = true
			if s.st.tap != nil {
				s.st.tap(s.ctx, v.Data)
			}
			s.out = s.out[:s.kept]
			s.alone, s.reply = s.kept == 0, v.Data
			e = sse.Event{Data: e.Data}
		}
	}
	var err error
	s.out, err = sse.Append(s.out, e) // a parsed event always writes
	s.kept = len(s.out)
	return err
}

// diverted offers the notification data to the client's diverter and
// reports whether it took it. Not while notifications read before it in
// this fill wait to be handed out: the client keeps the order the go-sdk
// hands notifications over in, which it can only do for those the go-sdk
// has been given.
func (s *sseBody) diverted(data []byte) bool {
	if s.st.divert == nil || len(s.notes) > 0 {
		return false
	}
	msg, err := wire.DecodeMessage(data)
	if err != nil {
		return false // the go-sdk fails the connection on it: let it
	}
	r, ok := msg.(*jsonrpc.Request)
	return ok && s.st.divert(s.ctx, r)
}

// appendBare hands out e without its data. That is what the go-sdk keeps
// of an event whose message it does not read: its id and its retry. So it
// resumes from the same id, and waits as long, as it would have. An event
// left with neither is not written.
func (s *sseBody) appendBare(e sse.Event) error {
	e = sse.Event{ID: e.ID, Retry: e.Retry}
	if e.IsZero() {
		return nil
	}
	var err error
	s.out, err = sse.Append(s.out, e)
	return err
}

func (s *sseBody) overLimit(err *transport.LimitError) {
	s.abort()
	if s.call != nil && !s.answered {
		s.answer(err)
		return
	}
	s.end = err
}

// ended handles the end of the network stream.
func (s *sseBody) ended(err error) {
	// An unfinished event stays in the parser: it is dropped.
	switch {
	case s.call == nil || s.answered:
		s.end = err
	case s.resumable && s.idSeen && s.lastID != "":
		// The go-sdk resumes from lastID; the resumed stream answers call.
		s.st.noteResume(s.lastID, s.call)
		s.end = err
	default:
		s.answer(dropError(err))
	}
}

// answer ends the stream with an error response for the call.
func (s *sseBody) answer(err error) {
	s.answered = true
	s.reply = errorResponse(s.call, err)
	s.out = s.out[:s.kept] // bare events: the go-sdk ends the stream at the answer
	s.alone = s.kept == 0
	s.out, _ = sse.Append(s.out, sse.Event{Data: s.reply})
	s.end = io.EOF
}

// dropError is the error a call gets when its stream broke off.
func dropError(err error) error {
	var te *transport.TimeoutError
	if errors.As(err, &te) {
		return te
	}
	return fmt.Errorf("%w: %v", errStreamDropped, err)
}

// errorResponse encodes a JSON-RPC error response to call carrying err's
// code and text.
func errorResponse(call *callRef, err error) []byte {
	code := int64(CodeStreamDropped)
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		code = we.Code
	}
	msg := fmt.Sprintf("%v (%s id %s; not re-sent)", err, call.method, call.id())
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", json.RawMessage(call.id()), jsonrpc.Error{Code: code, Message: msg}})
	return b
}
