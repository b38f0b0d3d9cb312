package cassette

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"

	"github.com/looprig/mcp/internal/sse"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// ErrTooLarge is returned by an HTTPRecorder's Close, and nothing is
// written, when one HTTP body or server-sent event was larger than MaxSize.
var ErrTooLarge = errors.New("cassette: body or event larger than the cassette bound")

// An HTTPRecorder is an http.RoundTripper that records one Streamable HTTP
// session. Put it below the credential round tripper, as
// streamablehttp.Options.Base, so that it sees every request as sent
// (Authorization included, which it redacts):
//
//	rec := cassette.RecordHTTP(endpoint, nil, "testdata/docs.jsonl", opts)
//	f, err := streamablehttp.New(endpoint, &streamablehttp.Options{Base: rec, Credentials: creds})
//	… connect, use and close the session …
//	err = rec.Close() // writes the cassette
//
// Every request, response and server-sent event passes through as it
// arrives: bodies are teed, never buffered before the client gets them, so
// a long-lived stream (the standalone GET) does not hold anything up. Close
// ends the recording: streams still open are recorded as ended with the
// session, the exchanges are redacted, passed to the go-vcr hooks and
// written (atomically, or through Options.FS). Requests made after Close
// pass through unrecorded.
type HTTPRecorder struct {
	endpoint string
	base     http.RoundTripper
	own      *http.Transport // base made by RecordHTTP, closed by Close
	path     string
	opts     *Options

	sopts *streamablehttp.Options // the session's options, for Transport; set by Open

	mu           sync.Mutex // guards the fields below
	used         bool       // Transport was called
	saveOnDelete bool       // the session's DELETE ends the recording (Transport sessions)
	entries      []hEntry
	streams      []*recStream // by stream number - 1
	closed       bool
	err          error // the first capture error

	closeOnce sync.Once
	closeErr  error
}

// An hEntry is one captured line, its body still raw.
type hEntry struct {
	in    Interaction
	raw   []byte // body or event data as captured; nil when there was none
	after int    // close lines: the entry they follow (the stream's last); responses: their request
}

type recStream struct {
	n     int
	req   int  // index of its request entry
	last  int  // index of the stream's last entry
	resp  int  // index of its response entry; -1 before the response
	sse   bool // its response is an event stream
	ended bool // no more lines are recorded for it
}

// NewHTTPRecorder returns an HTTPRecorder of the session with endpoint
// carried by base, writing to path when closed. If base is nil, a private
// clone of http.DefaultTransport is used (and its idle connections closed
// by Close). Requests to another origin than endpoint's are refused. It
// returns an *OptionsError (matching ErrInvalidOptions) naming the problem
// when endpoint is not an absolute http or https URL, path is empty or a
// directory, or an option is unusable.
func NewHTTPRecorder(endpoint string, base http.RoundTripper, path string, opts *Options) (*HTTPRecorder, error) {
	const fn = "NewHTTPRecorder"
	if u, err := url.Parse(endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		reason := ErrEndpoint
		if err != nil {
			reason = fmt.Errorf("%w: %w", ErrEndpoint, err)
		}
		return nil, &OptionsError{Func: fn, Option: "endpoint", Value: endpoint, Err: reason}
	}
	if err := checkFile(fn, path); err != nil {
		return nil, err
	}
	if err := checkOptions(fn, opts); err != nil {
		return nil, err
	}
	r := &HTTPRecorder{endpoint: endpoint, base: base, path: path, opts: opts.orZero()}
	if base == nil {
		r.own = http.DefaultTransport.(*http.Transport).Clone()
		r.base = r.own
	}
	return r, nil
}

// RecordHTTP is NewHTTPRecorder for arguments known to be valid: it panics
// with NewHTTPRecorder's error.
func RecordHTTP(endpoint string, base http.RoundTripper, path string, opts *Options) *HTTPRecorder {
	r, err := NewHTTPRecorder(endpoint, base, path, opts)
	if err != nil {
		panic(err)
	}
	return r
}

// Kind returns transport.KindStreamableHTTP.
func (r *HTTPRecorder) Kind() transport.Kind { return transport.KindStreamableHTTP }

// RoundTrip records req, sends it with the base round tripper and records
// the response as the client reads it.
func (r *HTTPRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := r.checkOrigin(req); err != nil {
		closeRequestBody(req)
		return nil, err
	}
	body, err := requestBody(req)
	if err != nil {
		return nil, fmt.Errorf("cassette: request body: %w", err)
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return r.base.RoundTrip(req)
	}
	if req.Method == http.MethodDelete {
		r.endOpen(EndSession)
	}
	s := &recStream{n: len(r.streams) + 1, resp: -1}
	r.streams = append(r.streams, s)
	s.req = r.add(hEntry{raw: body, in: Interaction{Kind: KindRequest, HTTP: HTTP{
		Stream: s.n, Method: req.Method, URL: req.URL.RequestURI(), Headers: req.Header.Clone(),
	}}})
	s.last = s.req
	r.mu.Unlock()

	resp, err := r.base.RoundTrip(req)
	if err != nil {
		r.end(s, EndError)
		return nil, err
	}
	r.mu.Lock()
	if r.closed || s.ended {
		r.mu.Unlock()
		return resp, nil
	}
	s.sse = isSSE(resp.Header)
	s.resp = r.add(hEntry{after: s.req, in: Interaction{Kind: KindResponse, HTTP: HTTP{Stream: s.n, Status: resp.StatusCode, Headers: resp.Header.Clone()}}})
	s.last = s.resp
	r.mu.Unlock()
	if s.sse {
		resp.Body = &teeSSE{r: r, s: s, req: req, rc: resp.Body, ps: sse.Parser{Max: MaxSize}}
	} else {
		tb := &teeBody{r: r, s: s, rc: resp.Body}
		if req.Method == http.MethodDelete && r.endsOnDelete() {
			tb.done = func() { r.Close() } // its error is Close's, for the caller
		}
		resp.Body = tb
	}
	return resp, nil
}

func (r *HTTPRecorder) checkOrigin(req *http.Request) error {
	u, err := url.Parse(r.endpoint)
	if err != nil || req.URL.Scheme != u.Scheme || req.URL.Host != u.Host {
		return fmt.Errorf("cassette: request to %s: %w", req.URL.Redacted(), errOtherOrigin)
	}
	return nil
}

var errOtherOrigin = errors.New("not the recorded endpoint's origin")

// add appends e and returns its index. r.mu is held.
func (r *HTTPRecorder) add(e hEntry) int {
	r.entries = append(r.entries, e)
	return len(r.entries) - 1
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
		s.last = r.add(hEntry{raw: e.Data, in: Interaction{Kind: KindEvent, HTTP: HTTP{Stream: s.n, Event: e.Name, ID: e.ID, Retry: e.Retry}}})
	}
}

// end records the end of s, unless it has ended already.
func (r *HTTPRecorder) end(s *recStream, how string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endLocked(s, how)
}

func (r *HTTPRecorder) endLocked(s *recStream, how string) {
	if r.closed || s.ended {
		return
	}
	s.ended = true
	if how != EndError && !s.sse {
		return // a JSON body is complete in its response line
	}
	r.add(hEntry{after: s.last, in: Interaction{Kind: KindClose, HTTP: HTTP{Stream: s.n, End: how}}})
}

// endOpen ends every open event stream (and request still without a
// response) as ended by the session. r.mu is held.
func (r *HTTPRecorder) endOpen(how string) {
	for _, s := range r.streams {
		if !s.ended && (s.sse || s.resp < 0) {
			r.endLocked(s, how)
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

// Close ends the recording and writes the cassette. Streams still open are
// recorded as ended with the session (EndSession). It returns ErrIncomplete
// (writing nothing) if the session never completed its initialize exchange.
// It closes the base round tripper's idle connections. Close may be called
// more than once; later calls return the first result.
func (r *HTTPRecorder) Close() error {
	r.closeOnce.Do(func() {
		r.mu.Lock()
		r.endOpen(EndSession)
		r.closed = true
		entries, err := r.entries, r.err
		r.mu.Unlock()
		if err == nil {
			err = r.save(entries)
		}
		if err != nil {
			r.closeErr = fmt.Errorf("cassette %s: %w", r.path, err)
		}
		if ci, ok := r.base.(interface{ CloseIdleConnections() }); ok {
			ci.CloseIdleConnections()
		}
	})
	return r.closeErr
}

func (r *HTTPRecorder) save(entries []hEntry) error {
	c, err := buildHTTP(r.path, entries, r.opts)
	if err != nil {
		return err
	}
	data := c.Marshal()
	if r.opts.FS != nil {
		return r.opts.FS.WriteFile(r.path, data)
	}
	return writeAtomic(r.path, data)
}

// requestBody reads req's body and leaves it readable again.
func requestBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	if req.GetBody != nil {
		b, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		defer b.Close()
		return io.ReadAll(io.LimitReader(b, MaxSize))
	}
	data, err := io.ReadAll(io.LimitReader(req.Body, MaxSize))
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(data))
	return data, nil
}

func closeRequestBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
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
		t.r.end(t.s, EndEOF)
	case err != nil && t.req.Context().Err() != nil:
		t.r.end(t.s, EndClient)
	case err != nil:
		t.r.end(t.s, EndDropped)
	}
	return n, err
}

func (t *teeSSE) Close() error {
	t.r.end(t.s, EndClient)
	return t.rc.Close()
}

func (r *HTTPRecorder) endsOnDelete() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.saveOnDelete
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
	e := &r.entries[s.resp]
	if len(e.raw)+len(p) > MaxSize {
		if r.err == nil {
			r.err = ErrTooLarge
		}
		return
	}
	e.raw = append(e.raw, p...)
}
