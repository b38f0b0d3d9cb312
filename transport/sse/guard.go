package sse

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/internal/httpguard"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxIdlePerHost bounds the pooled connections kept for POSTs.
const maxIdlePerHost = 4

// connState is one connection's HTTP stack: the pool, the policy round
// tripper, and what the session stream's watchdog needs to know.
type connState struct {
	f      *Factory
	base   *httpguard.Carrier // carries what passes the policy
	client *http.Client
	// ctx is the session's: the GET of the session stream runs under it,
	// and shutdown cancels it.
	ctx    context.Context
	cancel context.CancelFunc

	// The session stream's messages, from the go-sdk's reading goroutine
	// (streamBody.pump) to Conn.Read, one at a time; ended is closed once
	// the stream ended and every message read before its end was taken.
	incoming chan readResult
	ended    chan struct{}
	endOnce  sync.Once

	mu       sync.Mutex          // guards the fields below
	closed   bool                // the connection has closed
	failure  error               // what ended the session stream, first only
	pending  map[jsonrpc.ID]bool // calls sent and not yet answered
	endpoint bool                // the endpoint event has been checked
	stream   *streamBody         // the session stream, once open
	timer    *time.Timer         // the idle-read watchdog, once the stream is open
	deadline time.Time           // when the watchdog fires, if watching
}

func newConnState(f *Factory) *connState {
	st := &connState{f: f, pending: make(map[jsonrpc.ID]bool), incoming: make(chan readResult), ended: make(chan struct{})}
	st.ctx, st.cancel = context.WithCancel(context.Background())
	st.base = httpguard.NewCarrier(f.ep, f.opts.Base, f.wrap, f.opts.Credentials, f.phases, maxIdlePerHost)
	st.client = &http.Client{Transport: st, CheckRedirect: httpguard.RedirectPolicy(pkg)}
	return st
}

// shutdown ends the session stream and closes the pool's idle connections;
// bodies closed later close them again.
func (st *connState) shutdown() {
	st.mu.Lock()
	st.closed = true
	if st.timer != nil {
		st.timer.Stop()
	}
	st.mu.Unlock()
	st.cancel()
	st.closeIdle()
}

func (st *connState) closeIdle() { st.base.CloseIdleConnections() }

// A readResult is a message of the session stream, or the error decoding
// it gave.
type readResult struct {
	msg jsonrpc.Message
	err error
}

// endStream notes that the session stream ended.
func (st *connState) endStream() { st.endOnce.Do(func() { close(st.ended) }) }

func (st *connState) isClosed() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.closed
}

// fail records what ended the session stream, unless something did already,
// and returns what did.
func (st *connState) fail(err error) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.failure == nil {
		st.failure = err
	}
	return st.failure
}

// streamFailure returns what ended the session stream, or nil.
func (st *connState) streamFailure() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.failure
}

// RoundTrip applies the connection's policy to one request: the origin, the
// state of the session stream, timeouts, the status, and the response body
// limits.
func (st *connState) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := httpguard.CheckOrigin(pkg, st.f.ep.Origin, req); err != nil {
		return nil, err
	}
	if req.Method == http.MethodPost {
		// A message POSTed after the stream ended could never be answered.
		if err := st.streamFailure(); err != nil {
			closeBody(req)
			return nil, fmt.Errorf("sse: session stream ended: %w", err)
		}
	}
	// Every request gets its own cancel, so that a limit, the idle watchdog
	// or Close can abort it whatever the caller's context does.
	ctx, cancel := context.WithCancel(req.Context())
	req = req.WithContext(ctx)
	resp, err := st.base.RoundTrip(req)
	if err != nil {
		err = st.classify(req, err) // before cancel
		cancel()
		return nil, err
	}
	lim := st.f.opts.Limits
	plain := &plainBody{rc: resp.Body, st: st, cancel: cancel, max: lim.MaxBodyBytes}
	switch ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); {
	case isRedirect(resp):
		resp.Body = plain // the client's CheckRedirect decides
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return nil, st.statusError(req, resp, plain)
	case req.Method == http.MethodGet && ct != "text/event-stream":
		return nil, st.statusError(req, resp, plain)
	case req.Method == http.MethodGet:
		resp.Body = st.openStream(ctx, resp.Body, cancel)
	default:
		resp.Body = plain
	}
	return resp, nil
}

func isRedirect(resp *http.Response) bool {
	switch resp.StatusCode {
	case 301, 302, 303, 307, 308:
		return resp.Header.Get("Location") != ""
	}
	return false
}

// statusError reads the start of resp's body, closes it, and describes the
// response.
func (st *connState) statusError(req *http.Request, resp *http.Response, body *plainBody) error {
	snippet, _ := io.ReadAll(io.LimitReader(body, min(256, body.max)))
	body.Close()
	e := &StatusError{
		Method:      req.Method,
		Status:      resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"),
		Body:        strings.TrimSpace(string(snippet)),
	}
	if req.Method == http.MethodGet {
		switch resp.StatusCode {
		case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
			e.Hint = hintStreamable
		default:
			if resp.StatusCode/100 == 2 { // not an event stream
				e.Hint = hintStreamable
			}
		}
	}
	return e
}

// classify turns a transport timeout into a transport.TimeoutError.
func (st *connState) classify(req *http.Request, err error) error {
	if req.Context().Err() != nil {
		return err
	}
	return httpguard.PhaseTimeout(pkg, st.f.phases, err)
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// plainBody bounds a body that is not the session stream: the answer to a
// POST, a redirect, an error.
type plainBody struct {
	rc     io.ReadCloser
	st     *connState
	cancel context.CancelFunc
	max    int64
	n      int64
	err    error
	once   sync.Once
}

func (p *plainBody) Read(buf []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	if room := p.max - p.n + 1; int64(len(buf)) > room {
		buf = buf[:room]
	}
	n, err := p.rc.Read(buf)
	p.n += int64(n)
	if p.n > p.max {
		p.cancel()
		p.err = &transport.LimitError{Transport: pkg, What: "body", Limit: p.max}
		return 0, p.err
	}
	return n, err
}

func (p *plainBody) Close() error {
	err := p.rc.Close()
	p.once.Do(func() {
		p.cancel()
		if p.st.isClosed() {
			p.st.closeIdle()
		}
	})
	return err
}
