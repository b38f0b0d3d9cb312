package sse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sync"
	"time"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/sse"
	"github.com/looprig/mcp/internal/wire"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// readChunk bounds one read from the network.
const readChunk = 32 << 10

// streamBody is the session stream. It reads the stream with internal/sse
// (the events the standard defines, however the server ends its lines),
// counts every byte against MaxStreamBytes and every event against
// MaxEventBytes, reading at most one byte past either bound. Its first
// event must be an endpoint event naming the pinned origin: the go-sdk's
// Connect reads it, alone, from Read. The go-sdk's reading goroutine then
// reads on, and from then on Read reads the stream's messages for it (see
// pump) and returns only at the stream's end.
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
	total   int64 // bytes of the stream
	parser  sse.Parser
	checked bool        // the endpoint event passed
	queue   []sse.Event // events read and not yet taken
	out     []byte      // the endpoint event's text, not yet handed out
	handed  bool        // the endpoint event has been handed out
	scratch []byte
	err     error // what ended the stream, once queue is taken
}

// openStream wraps the body of the session stream and starts its watchdog.
func (st *connState) openStream(ctx context.Context, rc io.ReadCloser, cancel context.CancelFunc) *streamBody {
	lim := st.f.opts.Limits
	s := &streamBody{
		st: st, rc: rc, ctx: ctx, cancel: cancel, base: st.f.ep.URL,
		maxEvent: lim.MaxEventBytes, maxTotal: lim.MaxStreamBytes,
	}
	s.parser.Max = int(lim.MaxEventBytes)
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

// Read hands the go-sdk's Connect the endpoint event, written by
// sse.Append, and nothing else: the go-sdk reads it with a reader it then
// drops. The next Read is the go-sdk's reading goroutine's: it pumps the
// stream's messages to the connection until the stream ends, and returns
// what ended it.
func (s *streamBody) Read(p []byte) (int, error) {
	if s.handed {
		return 0, s.pump()
	}
	if s.out == nil {
		e, err := s.next()
		if err != nil {
			return 0, err
		}
		s.out, _ = sse.Append(nil, e) // a parsed event always writes
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	s.handed = len(s.out) == 0
	return n, nil
}

// next returns the stream's next event (the endpoint event first), or what
// ended the stream once every event read before the end has been taken.
func (s *streamBody) next() (sse.Event, error) {
	for len(s.queue) == 0 {
		if s.err != nil {
			return sse.Event{}, s.err
		}
		s.fill()
	}
	e := s.queue[0]
	s.queue[0] = sse.Event{}
	s.queue = s.queue[1:]
	return e, nil
}

// pump reads the events that follow the endpoint event. It hands the
// connection's Read the message each carries, read as the go-sdk reads
// it. The go-sdk's reader (sse.SDKView) skips the events it reads as
// empty. It hands on the data of every other, whatever its name. The
// go-sdk's connection decodes that as a JSON-RPC message. Here it is
// decoded once (wire.DecodeMessage), where the go-sdk decodes each twice
// with a fresh 32 KiB buffer each time. pump returns what ended the
// stream, once the connection has taken every message read before the
// end, or when the connection closes.
func (s *streamBody) pump() error {
	for {
		e, err := s.next()
		if err != nil {
			s.st.endStream()
			return err
		}
		v, ok := sse.SDKView(e)
		if !ok {
			continue
		}
		msg, err := wire.DecodeMessage(v.Data)
		select {
		case s.st.incoming <- readResult{msg: msg, err: err}:
		case <-s.st.ctx.Done():
			return s.st.ctx.Err()
		}
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

// fill reads once from the network and queues the events it completes.
func (s *streamBody) fill() {
	room := min(s.maxEvent-int64(s.parser.Pending())+1, s.maxTotal-s.total+1, readChunk)
	if int64(cap(s.scratch)) < room {
		s.scratch = make([]byte, room)
	}
	n, err := s.rc.Read(s.scratch[:room])
	if n > 0 {
		s.st.progress()
	}
	data := s.scratch[:n]
	s.total += int64(n)
	over := s.total > s.maxTotal
	if over {
		data = data[:len(data)-1] // events complete within the bound still go out
	}
	perr := s.parser.Feed(data, s.emit)
	var le *sse.LimitError
	switch {
	case perr != nil && !errors.As(perr, &le):
		s.fail(perr) // the endpoint check refused the first event
	case over:
		s.fail(&transport.LimitError{Transport: pkg, What: "stream", Limit: s.maxTotal})
	case perr != nil:
		s.fail(&transport.LimitError{Transport: pkg, What: "sse event", Limit: s.maxEvent})
	case err != nil:
		s.ended(err)
	}
}

// emit checks the first event and queues every event.
func (s *streamBody) emit(e sse.Event) error {
	if !s.checked {
		if err := s.check(e); err != nil {
			return err
		}
	}
	s.queue = append(s.queue, e)
	return nil
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
		s.fail(fmt.Errorf("%w: the stream ended first", errNoEndpoint))
		return
	}
	s.err = err
}

// fail ends the stream with err, once the events already read are taken.
func (s *streamBody) fail(err error) {
	s.err = s.st.fail(err)
	s.abort()
}

// check inspects the stream's first event: it must be an endpoint event
// naming a URL on the pinned origin.
func (s *streamBody) check(e sse.Event) error {
	if e.Name != "endpoint" {
		return fmt.Errorf("%w: the first event is %q", errNoEndpoint, e.Name)
	}
	data := string(e.Data)
	u, err := s.base.Parse(data)
	if err != nil {
		return fmt.Errorf("%w: %v", errNoEndpoint, err)
	}
	if !s.st.f.ep.Origin.Matches(u) {
		e := &EndpointError{Endpoint: truncate(data, 200), Origin: "null"}
		if o, err := auth.OriginOf(u); err == nil {
			e.Origin = o.String()
		}
		return e
	}
	s.checked = true
	s.st.endpointChecked()
	return nil
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

// awaiting returns how many calls await their answer.
func (st *connState) awaiting() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.pending)
}

// callOver notes a call that was answered, cancelled or not sent.
func (st *connState) callOver(id jsonrpc.ID) {
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
		st.failure = &transport.TimeoutError{Transport: pkg, Phase: "idle read", Limit: st.f.opts.Timeouts.IdleRead}
	}
	s := st.stream
	st.mu.Unlock()
	s.abort()
}
