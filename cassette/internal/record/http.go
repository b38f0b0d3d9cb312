package record

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"time"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/internal/sse"
	"github.com/looprig/mcp/internal/wire"
	"github.com/looprig/mcp/transport"
)

// NewHTTP returns a recorder of one session with origin. cl is the
// recorded factory's classifier, if any. onDelete, if set, is called once
// the session's DELETE has been answered.
func NewHTTP(origin auth.Origin, cl transport.Classifier, onDelete func()) *HTTPRecorder {
	return &HTTPRecorder{origin: origin, cl: cl, onDelete: onDelete}
}

// Origin returns the origin r records.
func (r *HTTPRecorder) Origin() auth.Origin { return r.origin }

// An HTTPRecorder records one Streamable HTTP session below the transport's
// credential. The cassette factory puts it under the live factory's base
// round tripper (HTTPFactory.WithBase). So it sees every request as sent,
// Authorization included, which it redacts. Bodies are teed as the client
// reads them, never buffered before the client gets them. So a long-lived
// stream (the standalone GET) holds nothing up.
type HTTPRecorder struct {
	origin   auth.Origin
	cl       transport.Classifier
	onDelete func() // called once the session's DELETE has been answered

	mu      sync.Mutex // guards the fields below
	entries []HTTPEntry
	streams []*recStream
	size    int   // bytes captured
	closed  bool  // the recording ended: requests pass through unrecorded
	err     error // the first capture error
}

// An HTTPEntry is one captured line, its body still raw.
type HTTPEntry struct {
	in    format.Interaction
	raw   []byte // body or event data as captured; nil when there was none
	after int    // close lines: the entry they follow (the stream's last); responses: their request
	err   error  // a failed request's error
}

type recStream struct {
	n     int
	req   int  // index of its request entry
	last  int  // index of the stream's last entry
	resp  int  // index of its response entry; -1 before the response
	sse   bool // its response is an event stream
	ended bool // no more lines are recorded for it

	// noCall: its request carries no call (the client's answer to a
	// server request, a notification). A client sends such a request
	// without waiting for its 202. returned is closed once its round trip
	// returned.
	noCall   bool
	returned chan struct{}
}

// noCallWait bounds how long the end of a session waits for the answers
// (202s) to the requests in flight that carry no call.
const noCallWait = time.Second

// awaitNoCallAnswers waits, at most noCallWait, until every request in
// flight that carries no call has its response. A client sends such a
// request (its answer to a server's request) without waiting for the
// response. So the session may end while its 202 is on its way, and
// whether the 202 is recorded would be timing.
func (r *HTTPRecorder) awaitNoCallAnswers() {
	r.mu.Lock()
	var waits []chan struct{}
	for _, s := range r.streams {
		if s.noCall && s.resp < 0 && !s.ended {
			waits = append(waits, s.returned)
		}
	}
	r.mu.Unlock()
	if len(waits) == 0 {
		return
	}
	t := time.NewTimer(noCallWait)
	defer t.Stop()
	for _, w := range waits {
		select {
		case <-w:
		case <-t.C:
			return
		}
	}
}

// Wrap returns the recording round tripper over base.
func (r *HTTPRecorder) Wrap(base http.RoundTripper) http.RoundTripper {
	return &recordRT{r: r, base: base}
}

type recordRT struct {
	r    *HTTPRecorder
	base http.RoundTripper
}

// RoundTrip records req, sends it with the base round tripper and records
// the response as the client reads it.
func (t *recordRT) RoundTrip(req *http.Request) (*http.Response, error) {
	r := t.r
	if !r.origin.Matches(req.URL) {
		format.CloseRequestBody(req)
		return nil, fmt.Errorf("cassette: request to %s: %w", req.URL.Redacted(), errOtherOrigin)
	}
	body, err := format.RequestBody(req)
	if err != nil {
		return nil, fmt.Errorf("cassette: request body: %w", err)
	}
	if req.Method == http.MethodDelete {
		r.awaitNoCallAnswers()
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return t.base.RoundTrip(req)
	}
	if req.Method == http.MethodDelete {
		r.endOpen(format.EndSession)
	}
	s := &recStream{n: len(r.streams) + 1, resp: -1, returned: make(chan struct{})}
	defer close(s.returned)
	// Only the envelope is read (wire.DecodeHeader): canonicalising a large
	// body to tell whether it is a call would cost a copy of it.
	if h, err := wire.DecodeHeader(body); err == nil && !h.IsCall() {
		s.noCall = true
	}
	r.streams = append(r.streams, s)
	s.req = r.add(HTTPEntry{raw: body, in: format.Interaction{Kind: format.KindRequest, HTTP: &format.HTTP{
		Stream: s.n, Method: req.Method, URL: req.URL.RequestURI(), Headers: req.Header.Clone(),
	}}})
	s.last = s.req
	r.mu.Unlock()

	var wrote atomic.Bool
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		WroteRequest: func(i httptrace.WroteRequestInfo) { wrote.Store(i.Err == nil) },
	}))
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		r.mu.Lock()
		r.endLocked(s, &format.Ending{End: format.EndError, Written: wrote.Load(), Class: ClassOf(err, r.cl)}, err)
		r.mu.Unlock()
		return nil, err
	}
	r.mu.Lock()
	if r.closed || s.ended {
		r.mu.Unlock()
		return resp, nil
	}
	s.sse = format.IsSSE(resp.Header)
	s.resp = r.add(HTTPEntry{after: s.req, in: format.Interaction{Kind: format.KindResponse, HTTP: &format.HTTP{Stream: s.n, Status: resp.StatusCode, Headers: resp.Header.Clone()}}})
	s.last = s.resp
	r.mu.Unlock()
	if s.sse {
		resp.Body = &teeSSE{r: r, s: s, req: req, rc: resp.Body, ps: sse.Parser{Max: format.Limit}}
	} else {
		tb := &teeBody{r: r, s: s, rc: resp.Body}
		if req.Method == http.MethodDelete {
			tb.done = r.onDelete
		}
		resp.Body = tb
	}
	return resp, nil
}

// add appends e and returns its index (-1 once the recording has ended).
// r.mu is held.
func (r *HTTPRecorder) add(e HTTPEntry) int {
	if r.closed {
		return -1
	}
	r.entries = append(r.entries, e)
	r.size += len(e.raw) + 128
	if r.size > format.Limit {
		r.tooLarge()
		return -1
	}
	return len(r.entries) - 1
}

// tooLarge ends the recording once it has grown past MaxSize. What was
// captured is dropped, the session goes on unrecorded, and close reports
// ErrTooLarge. So memory stays within the bound too. r.mu is held.
func (r *HTTPRecorder) tooLarge() {
	if r.err == nil {
		r.err = ErrTooLarge
	}
	r.closed, r.entries = true, nil
}

// events records events of s.
func (r *HTTPRecorder) events(s *recStream, evs []sse.Event) {
	if len(evs) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || s.ended {
		return
	}
	for _, e := range evs {
		s.last = r.add(HTTPEntry{raw: e.Data, in: format.Interaction{Kind: format.KindEvent, HTTP: &format.HTTP{Stream: s.n, Event: e.Name, ID: e.ID, Retry: e.Retry}}})
	}
}

// end records the end of s, unless it has ended already.
func (r *HTTPRecorder) end(s *recStream, how string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endLocked(s, &format.Ending{End: how}, nil)
}

// endLocked records the end of s. r.mu is held.
func (r *HTTPRecorder) endLocked(s *recStream, e *format.Ending, err error) {
	if r.closed || s.ended {
		return
	}
	s.ended = true
	if e.End != format.EndError && !s.sse && s.resp >= 0 {
		return // a JSON body is complete in its response line
	}
	r.add(HTTPEntry{after: s.last, err: err, in: format.Interaction{Kind: format.KindClose, HTTP: &format.HTTP{Stream: s.n}, Ending: e}})
}

// endOpen ends every open event stream (and request still without a
// response) as ended by the session. r.mu is held.
func (r *HTTPRecorder) endOpen(how string) {
	for _, s := range r.streams {
		if !s.ended && (s.sse || s.resp < 0) {
			r.endLocked(s, &format.Ending{End: how}, nil)
		}
	}
}

func (r *HTTPRecorder) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
}

// Close ends the recording: streams still open ended with the session, and
// the session ended by the client. It returns what was captured.
func (r *HTTPRecorder) Close() ([]HTTPEntry, error) {
	r.awaitNoCallAnswers()
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.endOpen(format.EndSession)
		r.add(HTTPEntry{after: -1, in: format.Interaction{Kind: format.KindClose, Ending: &format.Ending{End: format.EndClient}}})
		r.closed = true
	}
	return r.entries, r.err
}

// teeSSE passes an event stream through to the client, recording each event
// as it completes.
type teeSSE struct {
	r   *HTTPRecorder
	s   *recStream
	req *http.Request
	rc  io.ReadCloser
	ps  sse.Parser // used by Read only
	evs []sse.Event
}

func (t *teeSSE) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	if n > 0 {
		t.evs = t.evs[:0]
		perr := t.ps.Feed(p[:n], func(e sse.Event) error { t.evs = append(t.evs, e); return nil })
		t.r.events(t.s, t.evs)
		if perr != nil {
			t.r.fail(fmt.Errorf("%w: %w", ErrTooLarge, perr))
		}
	}
	switch {
	case err == io.EOF:
		// An unfinished last event is discarded, as every reader does.
		t.r.end(t.s, format.EndEOF)
	case err != nil && t.req.Context().Err() != nil:
		t.r.end(t.s, format.EndClient)
	case err != nil:
		t.r.end(t.s, format.EndDropped)
	}
	return n, err
}

func (t *teeSSE) Close() error {
	t.r.end(t.s, format.EndClient)
	return t.rc.Close()
}

// teeBody passes a non-stream body through, appending what the client
// reads to the response line.
type teeBody struct {
	r    *HTTPRecorder
	s    *recStream
	rc   io.ReadCloser
	done func() // if set, called once the body has been read or closed
	once sync.Once
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	if n > 0 {
		t.r.appendBody(t.s, p[:n])
	}
	if err != nil && t.done != nil {
		t.once.Do(t.done)
	}
	return n, err
}

func (t *teeBody) Close() error {
	err := t.rc.Close()
	if t.done != nil {
		t.once.Do(t.done)
	}
	return err
}

// appendBody adds p to the body of s's response.
func (r *HTTPRecorder) appendBody(s *recStream, p []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || s.resp < 0 {
		return
	}
	r.size += len(p)
	if r.size > format.Limit {
		r.tooLarge()
		return
	}
	e := &r.entries[s.resp]
	e.raw = append(e.raw, p...)
}
