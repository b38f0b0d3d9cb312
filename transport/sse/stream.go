package sse

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/looprig/mcp/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// readChunk bounds one read from the network.
const readChunk = 32 << 10

// streamBody is the session stream. It counts every byte against
// MaxStreamBytes and every event against MaxEventBytes, reading at most one
// byte past either bound, and it holds the stream's first event until it
// has checked that it is an endpoint event naming the pinned origin.
//
// Lines end with "\n" (a preceding "\r" is part of the line end) and an
// event ends with a blank line, as the go-sdk's reader has it.
type streamBody struct {
	st       *connState
	rc       io.ReadCloser
	ctx      context.Context // the request's
	cancel   context.CancelFunc
	base     *url.URL // what the endpoint event resolves against
	maxEvent int64
	maxTotal int64
	once     sync.Once

	// The fields below belong to the reading goroutine.
	total, event int64 // bytes of the stream, of the event in progress
	lineHasBytes bool
	checked      bool   // the endpoint event passed
	held         []byte // the stream until the endpoint event passed
	evStart      int    // where the event in progress starts in held
	out          []byte // bytes ready to hand out
	alone        int    // out[:alone] goes out in reads of its own
	scratch      []byte
	err          error // returned once out is drained
}

// openStream wraps the body of the session stream and starts its watchdog.
func (st *connState) openStream(ctx context.Context, rc io.ReadCloser, cancel context.CancelFunc) *streamBody {
	lim := st.f.opts.Limits
	s := &streamBody{
		st: st, rc: rc, ctx: ctx, cancel: cancel, base: st.f.ep.URL,
		maxEvent: lim.MaxEventBytes, maxTotal: lim.MaxStreamBytes,
	}
	idle := st.f.opts.Timeouts.IdleRead
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.timer != nil {
		st.timer.Stop() // a stream opened before (a redirect) is done
	}
	st.stream = s
	st.deadline = time.Now().Add(idle)
	st.timer = time.AfterFunc(idle, st.expire)
	return s
}

func (s *streamBody) Read(p []byte) (int, error) {
	for {
		if s.alone > 0 {
			n := copy(p, s.out[:s.alone])
			s.out = s.out[n:]
			s.alone -= n
			return n, nil
		}
		if len(s.out) > 0 {
			n := copy(p, s.out)
			s.out = s.out[n:]
			return n, nil
		}
		if s.err != nil {
			return 0, s.err
		}
		s.out = s.out[:0]
		s.fill()
	}
}

// Close ends the stream. It may be called while Read runs.
func (s *streamBody) Close() error {
	err := s.rc.Close()
	s.once.Do(func() {
		s.cancel()
		if s.st.isClosed() {
			s.st.closeIdle()
		}
	})
	return err
}

// abort stops reading from the network.
func (s *streamBody) abort() {
	s.cancel()
	s.rc.Close()
}

// fill reads once from the network and routes what it read.
func (s *streamBody) fill() {
	room := min(s.maxEvent-s.event+1, s.maxTotal-s.total+1, readChunk)
	if int64(cap(s.scratch)) < room {
		s.scratch = make([]byte, room)
	}
	n, err := s.rc.Read(s.scratch[:room])
	if n > 0 {
		s.st.progress()
	}
	data := s.scratch[:n]
	start := 0 // data[start:i] is not routed yet
	for i := range n {
		s.total++
		s.event++
		switch {
		case s.total > s.maxTotal:
			s.route(data[start:i])
			s.fail(&LimitError{Transport: pkg, What: "stream", Limit: s.maxTotal})
			return
		case s.event > s.maxEvent:
			s.route(data[start:i])
			s.fail(&LimitError{Transport: pkg, What: "sse event", Limit: s.maxEvent})
			return
		}
		switch data[i] {
		case '\n':
			if !s.lineHasBytes {
				s.event = 0
				if !s.checked {
					s.route(data[start : i+1])
					start = i + 1
					if err := s.check(false); err != nil {
						s.fail(err)
						return
					}
				}
			}
			s.lineHasBytes = false
		case '\r':
		default:
			s.lineHasBytes = true
		}
	}
	s.route(data[start:])
	if err != nil {
		s.ended(err)
	}
}

// route passes b on: held until the endpoint event passed, then out.
func (s *streamBody) route(b []byte) {
	if s.checked {
		s.out = append(s.out, b...)
	} else {
		s.held = append(s.held, b...)
	}
}

// ended handles the end of the network stream.
func (s *streamBody) ended(err error) {
	if f := s.st.streamFailure(); f != nil { // the watchdog aborted the read
		s.err = f
		return
	}
	if s.ctx.Err() != nil { // Close, or Connect's context ended
		s.err = err
		return
	}
	if !s.checked {
		// The go-sdk takes an unterminated event at the end of the stream
		// as an event: so does the check.
		if cerr := s.check(true); cerr != nil {
			s.fail(cerr)
			return
		}
		if !s.checked {
			s.fail(fmt.Errorf("%w: the stream ended first", ErrNoEndpoint))
			return
		}
	}
	s.err = err
}

func (s *streamBody) fail(err error) {
	s.err = s.st.fail(err)
	s.abort()
}

// check inspects the event that ends held. A stream opens with an endpoint
// event, possibly after comments; anything else is refused, and so is an
// endpoint on another origin. Once the endpoint passes, held goes out,
// alone in its reads: the go-sdk reads it with a reader it then drops.
func (s *streamBody) check(atEOF bool) error {
	name, data, empty, err := parseEvent(s.held[s.evStart:])
	switch {
	case err != nil:
		return err
	case empty:
		s.evStart = len(s.held)
		return nil
	case name != "endpoint":
		return fmt.Errorf("%w: the first event is %q", ErrNoEndpoint, name)
	}
	u, err := s.base.Parse(data)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoEndpoint, err)
	}
	if !s.st.f.ep.Origin.Matches(u) {
		e := &EndpointError{Endpoint: truncate(data, 200), Origin: "null", Err: ErrCrossOriginEndpoint}
		if o, err := auth.OriginOf(u); err == nil {
			e.Origin = o.String()
		}
		return e
	}
	s.checked = true
	s.out, s.held = s.held, nil
	s.alone = len(s.out)
	s.st.endpointChecked()
	return nil
}

// parseEvent reads one event as the go-sdk's scanner does.
func parseEvent(evt []byte) (name, data string, empty bool, err error) {
	var id, retry string
	var d []byte
	hasData := false
	for line := range bytes.Lines(evt) {
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			continue
		}
		key, val, ok := bytes.Cut(line, []byte{':'})
		if !ok {
			return "", "", false, fmt.Errorf("%w: malformed line %q", ErrNoEndpoint, truncate(string(line), 200))
		}
		switch string(key) {
		case "event":
			name = strings.TrimSpace(string(val))
		case "id":
			id = strings.TrimSpace(string(val))
		case "retry":
			retry = strings.TrimSpace(string(val))
		case "data":
			if hasData {
				d = append(d, '\n')
			}
			d = append(d, bytes.TrimSpace(val)...)
			hasData = true
		}
	}
	empty = name == "" && id == "" && len(d) == 0 && retry == ""
	return name, string(d), empty, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// The idle-read watchdog. It runs while something is awaited on the
// session stream: the endpoint event, or the answer to a call.

// watching reports whether the stream is expected to speak. st.mu is held.
func (st *connState) watching() bool {
	return !st.closed && (!st.endpoint || len(st.pending) > 0)
}

// progress notes that the stream spoke.
func (st *connState) progress() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.rearm()
}

// rearm restarts the watchdog if it should run, else stops it. st.mu is held.
func (st *connState) rearm() {
	if st.timer == nil {
		return
	}
	if !st.watching() {
		st.timer.Stop()
		return
	}
	idle := st.f.opts.Timeouts.IdleRead
	st.deadline = time.Now().Add(idle)
	st.timer.Reset(idle)
}

func (st *connState) endpointChecked() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.endpoint = true
	st.rearm()
}

// sent notes a call awaiting its answer.
func (st *connState) sent(id jsonrpc.ID) {
	st.mu.Lock()
	defer st.mu.Unlock()
	was := st.watching()
	st.pending[id] = true
	if !was {
		st.rearm()
	}
}

// settled notes a call that was answered, cancelled or not sent.
func (st *connState) settled(id jsonrpc.ID) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.pending[id] {
		return
	}
	delete(st.pending, id)
	if !st.watching() {
		st.rearm()
	}
}

// expire ends a stream that stayed silent past the idle bound while
// something was awaited.
func (st *connState) expire() {
	st.mu.Lock()
	if !st.watching() || time.Now().Before(st.deadline) || st.stream == nil {
		st.mu.Unlock()
		return // stale: the stream spoke, or nothing is awaited
	}
	if st.failure == nil {
		st.failure = &TimeoutError{Transport: pkg, Phase: "idle read", Limit: st.f.opts.Timeouts.IdleRead}
	}
	s := st.stream
	st.mu.Unlock()
	s.abort()
}
