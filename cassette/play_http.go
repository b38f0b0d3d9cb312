package cassette

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/looprig/mcp/internal/sse"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// ReplayOrigin is the origin a replayed HTTP session is addressed to when
// no live factory is given. No request leaves the process: the replaying
// round tripper answers them all.
const ReplayOrigin = "http://cassette.localhost"

// playHTTP is the scheduler's adapter to an http.RoundTripper: each live
// request is matched to a recorded one and served; its response, the
// events of its stream and how the stream ended go out as the scheduler
// releases them; a hold past Options.Wait fails the request.
type playHTTP struct {
	p   *player
	rep *report

	mu     sync.Mutex // guards the fields below
	s      *scheduler
	red    *redactor
	secret map[string]bool // the headers whose values are credentials
	liveID map[int]jsonrpc.ID
	wake   chan struct{}

	// Injected faults (Options.Faults).
	ended    bool         // FaultEnd: the session is gone
	statused map[int]bool // FaultStatus lines answered with their status (and voided)
	retried  map[int]bool // of those, the ones the client sent again (and revived)
	dropped  *dropped     // FaultDrop: the stream that broke, until resumed
}

// dropped is a stream FaultDrop broke.
type dropped struct {
	sl      *streamLines
	next    int // the index in sl.events of the event it broke before
	resumed bool
}

func newPlayHTTP(p *player, rep *report) *playHTTP {
	return &playHTTP{p: p, rep: rep, s: newScheduler(p.pl), red: newRedactor(p.o), secret: secretHeaderSet(p.o), liveID: map[int]jsonrpc.ID{},
		wake: make(chan struct{}), statused: map[int]bool{}, retried: map[int]bool{}}
}

// A liveReq is a request as the replayer compares it.
type liveReq struct {
	method, url string
	headers     http.Header
	msg         jsonrpc.Message // nil unless the body is a JSON-RPC message
	body        []byte          // the body, canonical and redacted when it is a message
	key         string
}

func (h *playHTTP) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := requestBody(req)
	closeRequestBody(req)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	live := h.live(req, body)
	if h.ended {
		h.mu.Unlock()
		return status(req, http.StatusNotFound), nil
	}
	if resp := h.resume(req); resp != nil {
		h.mu.Unlock()
		return resp, nil
	}
	i, ok, named := h.p.cancelFor(h.s, h.liveID, live.msg)
	if !named {
		i, ok = h.s.match(h.p.index[live.key])
	}
	retry := false
	if !ok {
		for _, j := range h.p.index[live.key] {
			if h.statused[int(j)] && !h.retried[int(j)] {
				// The request a fault answered, sent again: the recording's
				// answer.
				h.retried[int(j)], i, ok, retry = true, int(j), true, true
				h.s.revive(i)
				break
			}
		}
	}
	if !ok && !named {
		i, ok = h.s.reclaim(h.p.index[live.key])
	}
	if !ok && h.givesUp(live.msg) {
		h.mu.Unlock()
		return refuse(req, live, nil), nil
	}
	if !ok {
		merr, void := h.mismatch(live)
		h.rep.add(merr)
		if void >= 0 {
			h.s.void(void)
			h.signal()
		}
		h.mu.Unlock()
		return refuse(req, live, merr), nil
	}
	sl := h.p.streams[h.p.c.Interactions[i].HTTP.Stream]
	first := sl.resp
	if first < 0 {
		first = sl.close
	}
	if i >= h.p.faults.end {
		h.ended = true // FaultEnd: the server forgot the session
		h.signal()
		h.mu.Unlock()
		return status(req, http.StatusNotFound), nil
	}
	if first >= h.p.faults.end {
		// FaultEnd between the request and its response: the server has
		// the request (and may have run it), then the session ends with
		// no response, as when a server dies mid-call.
		h.s.serve(i)
		h.ended = true
		h.signal()
		h.mu.Unlock()
		wrote(req)
		return nil, h.p.faultEnding()
	}
	if code := h.p.faults.status[i]; code != 0 && !h.statused[i] {
		// FaultStatus, once. The recorded request is voided, so nothing
		// waits for its answer; sent again, it is revived.
		h.statused[i] = true
		h.s.void(i)
		h.signal()
		h.mu.Unlock()
		return status(req, code), nil
	}
	if !retry {
		h.s.serve(i)
	}
	if r, ok := live.msg.(*jsonrpc.Request); ok && r.IsCall() {
		h.liveID[i] = r.ID
	}
	h.signal()
	h.mu.Unlock()

	if err := h.await(req.Context(), first, nil); err != nil {
		var merr *MismatchError
		if errors.As(err, &merr) {
			return refuse(req, live, merr), nil
		}
		return nil, err
	}
	if first == sl.close {
		// The recorded request got no response: it failed, or the session
		// ended first.
		e := h.p.c.Interactions[sl.close].Ending
		if e.End == EndError {
			if e.Written {
				wrote(req)
			}
			return nil, endingError(h.p.c, sl.close)
		}
		<-req.Context().Done()
		return nil, context.Cause(req.Context())
	}
	if err := h.hold(req.Context(), first, nil); err != nil {
		return nil, err
	}
	return h.response(req, sl), nil
}

// wrote tells req's client trace that the request went out whole, as the
// live transport's would before the connection broke: the transport above
// then knows the server had it.
func wrote(req *http.Request) {
	if trace := httptrace.ContextClientTrace(req.Context()); trace != nil && trace.WroteRequest != nil {
		trace.WroteRequest(httptrace.WroteRequestInfo{})
	}
}

// hold waits the extra time FaultDelay gives line i, if any.
func (h *playHTTP) hold(ctx context.Context, i int, closed <-chan struct{}) error {
	d := h.p.faults.delay[i]
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-closed:
		return errBodyClosed
	}
}

// resume answers a GET that resumes the stream FaultDrop broke, as a
// server with an event store would on 2025-11-25 and earlier: with the
// rest of the stream after the event whose id it names. h.mu is held.
func (h *playHTTP) resume(req *http.Request) *http.Response {
	d := h.dropped
	last := req.Header.Get("Last-Event-ID")
	if d == nil || d.resumed || req.Method != http.MethodGet || last == "" {
		return nil
	}
	if h.p.c.Header.Protocol >= "2026-07-28" {
		return status(req, http.StatusMethodNotAllowed) // no resumption in that revision
	}
	for k := d.next - 1; k >= 0; k-- {
		if h.p.c.Interactions[d.sl.events[k]].HTTP.ID == last {
			d.resumed = true
			resp := h.response(req, d.sl)
			resp.Body.(*playBody).next = k + 1
			return resp
		}
	}
	return nil
}

// status is a response with code and no recorded body, as a fault gives:
// 401 and 403 with a Bearer challenge.
func status(req *http.Request, code int) *http.Response {
	resp := &http.Response{StatusCode: code, Status: strconv.Itoa(code) + " " + http.StatusText(code),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{}, Request: req}
	switch code {
	case http.StatusUnauthorized:
		resp.Header.Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	case http.StatusForbidden:
		resp.Header.Set("WWW-Authenticate", `Bearer error="insufficient_scope"`)
	}
	text := "cassette: injected fault: " + http.StatusText(code) + "\n"
	resp.Header.Set("Content-Type", "text/plain; charset=utf-8")
	resp.Body, resp.ContentLength = io.NopCloser(strings.NewReader(text)), int64(len(text))
	return resp
}

// excused reports whether client line i was made but a fault answered it,
// or could not be made because a fault ended the session before it.
func (h *playHTTP) excused(i int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.statused[i] || h.ended && i >= h.p.faults.end
}

// givesUp reports whether m cancels a served call whose recorded stream the
// client gave up (it stopped reading, or the session ended): the go-sdk
// sends the cancellation as the call returns, and the recording may or may
// not have caught it. h.mu is held.
func (h *playHTTP) givesUp(m jsonrpc.Message) bool {
	r, ok := m.(*jsonrpc.Request)
	if !ok || r.IsCall() || r.Method != "notifications/cancelled" {
		return false
	}
	id := cancelledID(r.Params)
	for line, live := range h.liveID {
		if liveIDKey(live) != id {
			continue
		}
		if sl := h.p.streams[h.p.c.Interactions[line].HTTP.Stream]; sl.close >= 0 {
			end := h.p.c.Interactions[sl.close].Ending.End
			return end == EndClient || end == EndSession
		}
	}
	return false
}

// live reads a request as the replayer compares it. h.mu is held.
func (h *playHTTP) live(req *http.Request, body []byte) *liveReq {
	h.red.learnHeaders(h.secret, req.Header) // the credentials the recording redacted
	l := &liveReq{method: req.Method, url: h.red.text(req.URL.RequestURI()), headers: http.Header{}}
	for k, vs := range req.Header {
		if ck := http.CanonicalHeaderKey(k); strings.HasPrefix(ck, "Mcp-") || ck == "Last-Event-Id" {
			for _, v := range vs {
				l.headers.Add(ck, h.red.text(v))
			}
		}
	}
	var key []byte
	text := ""
	if len(body) > 0 {
		if msg, err := jsonrpc.DecodeMessage(body); err == nil {
			if canon, err := canonicalMessage(msg); err == nil {
				if red, err := h.red.message(canon); err == nil {
					l.msg, l.body = msg, red
					key = h.p.mt.key(liveKind(msg), red)
				}
			}
		}
		if l.msg == nil {
			l.body = []byte(h.red.text(string(body)))
			text = string(l.body)
		}
	}
	l.key = httpKey(l.method, l.url, l.headers, key, text)
	return l
}

func (h *playHTTP) signal() {
	close(h.wake)
	h.wake = make(chan struct{})
}

// await waits until line i may go out. A line attached to a request waits
// at most Options.Wait; then the line fails with a *MismatchError (kept
// for Close) naming what it waited for. A line that keeps its place (the
// standalone stream's) waits as long as the client reads.
func (h *playHTTP) await(ctx context.Context, i int, closed <-chan struct{}) error {
	var timer *time.Timer
	var timeout <-chan time.Time
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		h.mu.Lock()
		ok, wake := h.s.ready(i), h.wake
		// The bound runs only while the line is held for requests the live
		// client has not made, not while it owes the server an answer.
		held := !ok && h.p.pl.steps[i].after >= 0 && h.s.heldForRequests(i)
		h.mu.Unlock()
		if ok {
			return nil
		}
		switch {
		case held && timer == nil:
			timer = time.NewTimer(h.p.o.wait())
			timeout = timer.C
		case !held && timer != nil:
			timer.Stop()
			timer, timeout = nil, nil
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-closed:
			return errBodyClosed
		case <-wake:
		case <-timeout:
			timer, timeout = nil, nil
			if err := h.expire(i); err != nil {
				return err
			}
		}
	}
}

// expire fails held line i, returning the *MismatchError naming what it
// waited for; nil if it was ready after all.
func (h *playHTTP) expire(i int) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	waited, ok := h.s.expire(i)
	if !ok {
		return nil
	}
	q := h.p.streams[h.p.c.Interactions[i].HTTP.Stream].req
	e := &MismatchError{Cassette: h.p.c.File, Position: h.p.c.Line(q), Method: h.methodOf(q),
		Reason: fmt.Sprintf("held %v for recorded requests the live client did not make: %s", h.p.o.wait(), h.p.describeAll(waited))}
	h.rep.add(e)
	h.signal()
	return e
}

func (h *playHTTP) methodOf(i int) string {
	if m := h.p.method(i); m != "" {
		return m
	}
	return "HTTP " + h.p.c.Interactions[i].HTTP.Method
}

var errBodyClosed = errors.New("cassette: body closed")

// response builds the recorded response of stream sl.
func (h *playHTTP) response(req *http.Request, sl *streamLines) *http.Response {
	in := &h.p.c.Interactions[sl.resp]
	resp := &http.Response{
		StatusCode: in.HTTP.Status,
		Status:     strconv.Itoa(in.HTTP.Status) + " " + http.StatusText(in.HTTP.Status),
		Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  in.HTTP.Headers.Clone(),
		Request: req,
	}
	if resp.Header == nil {
		resp.Header = http.Header{}
	}
	if isSSE(in.HTTP.Headers) {
		resp.ContentLength = -1
		resp.Body = &playBody{h: h, sl: sl, ctx: req.Context(), closed: make(chan struct{})}
		return resp
	}
	data := h.payload(sl.resp)
	resp.ContentLength = int64(len(data))
	if len(data) == 0 {
		resp.Body = http.NoBody
	} else {
		resp.Body = io.NopCloser(bytes.NewReader(data))
	}
	return resp
}

// payload returns line i's body or data, an answer carrying the live id of
// its call.
func (h *playHTTP) payload(i int) []byte {
	in := &h.p.c.Interactions[i]
	canon := h.p.canon[i]
	if canon == nil {
		return []byte(in.Text)
	}
	st := &h.p.pl.steps[i]
	if !st.answer {
		return canon
	}
	call := int(st.after)
	if st.call >= 0 {
		call = int(st.call)
	}
	h.mu.Lock()
	id, ok := h.liveID[call]
	h.mu.Unlock()
	if !ok {
		return canon
	}
	info, _ := scanMessage(canon)
	r := info.toMessage().(*jsonrpc.Response)
	r.ID = id
	if data, err := jsonrpc.EncodeMessage(r); err == nil {
		return data
	}
	return canon
}

// refuse answers a request that matched nothing: a call gets a JSON-RPC
// error carrying the mismatch, a notification or response is accepted, a
// GET or DELETE is answered 405.
func refuse(req *http.Request, live *liveReq, merr *MismatchError) *http.Response {
	resp := &http.Response{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{}, Request: req, Body: http.NoBody}
	set := func(code int) {
		resp.StatusCode, resp.Status = code, strconv.Itoa(code)+" "+http.StatusText(code)
	}
	switch r, _ := live.msg.(*jsonrpc.Request); {
	case req.Method != http.MethodPost:
		set(http.StatusMethodNotAllowed)
	case r != nil && r.IsCall():
		data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: CodeMismatch, Message: merr.Error()}})
		set(http.StatusOK)
		resp.Header.Set("Content-Type", "application/json")
		resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(data)), int64(len(data))
	default:
		set(http.StatusAccepted)
	}
	return resp
}

// mismatch explains why live matched nothing, against the nearest unserved
// recorded request. h.mu is held.
// It also returns the recorded request the live one stood for (a call of
// the same method), which replay voids; else -1.
func (h *playHTTP) mismatch(live *liveReq) (*MismatchError, int) {
	p := h.p
	e := &MismatchError{Cassette: p.c.File, Method: "HTTP " + live.method}
	liveMethod := ""
	if r, ok := live.msg.(*jsonrpc.Request); ok {
		e.Method, liveMethod = r.Method, r.Method
	}
	nearest, void := -1, -1
	if cands := p.index[live.key]; len(cands) > 0 {
		nearest, e.Reason = int(cands[len(cands)-1]), "already served: a recorded request is served at most once"
	}
	isCall := false
	if r, ok := live.msg.(*jsonrpc.Request); ok && r.IsCall() {
		isCall = true
	}
	for _, i := range p.pl.clients[h.s.openAt:] {
		if nearest >= 0 {
			break
		}
		if in := &p.c.Interactions[i]; !h.s.served[i] && in.HTTP.Method == live.method && p.method(int(i)) == liveMethod {
			nearest, e.Reason = int(i), "differs from the nearest unserved recorded request like it"
			if isCall && p.canon[i] != nil {
				if m, _ := scanMessage(p.canon[i]); m.kind == kindCall {
					void = nearest
				}
			}
		}
	}
	switch {
	case nearest >= 0:
	case int(h.s.firstOpen) < len(p.pl.steps):
		nearest = int(h.s.firstOpen)
		e.Reason = "no unserved recorded request is like it; the next is " + p.describe(nearest)
	default:
		e.Reason = "the cassette has no more requests"
	}
	var want []byte
	if nearest >= 0 {
		e.Position = p.c.Line(nearest)
		in := &p.c.Interactions[nearest]
		want = shape(in.HTTP.Method, in.HTTP.URL, in.HTTP.Headers, p.canon[nearest], in.Text, p.mt)
	}
	e.Diff = diff(want, shape(live.method, live.url, live.headers, live.body, string(live.body), p.mt))
	return e, void
}

// shape is the comparable form of a request, for a mismatch's diff.
func shape(method, url string, h http.Header, canon []byte, text string, mt *matcher) []byte {
	m := map[string]any{"method": method, "url": url}
	for k, vs := range h {
		if ck := http.CanonicalHeaderKey(k); strings.HasPrefix(ck, "Mcp-") || ck == "Last-Event-Id" {
			m[ck] = strings.Join(vs, ", ")
		}
	}
	if canon != nil {
		if info, err := scanMessage(canon); err == nil {
			if t, err := decodeTree(mt.key(info.kind, canon)[1:]); err == nil {
				m["message"] = t
			}
		}
	} else if text != "" {
		m["text"] = text
	}
	return encodeTree(m)
}

// playBody serves a recorded event stream, event by event, each when the
// scheduler releases it, then ends it as recorded.
type playBody struct {
	h      *playHTTP
	sl     *streamLines
	ctx    context.Context
	next   int // next event of sl.events
	buf    []byte
	done   error // the error Read returns once buf is empty and no event is left
	closed chan struct{}
	once   sync.Once
}

func (b *playBody) Read(p []byte) (int, error) {
	for len(b.buf) == 0 {
		if b.done != nil {
			return 0, b.done
		}
		if b.next < len(b.sl.events) {
			i := b.sl.events[b.next]
			if err := b.fault(i); err != nil {
				b.done = err
				// As a server that ends a stream on purpose does, it tells
				// the client to come back soon: a dropped stream is
				// resumed, and a client that resumes the stream of a
				// session that ended is told so, without waiting out its
				// reconnection backoff.
				b.buf, _ = sse.Append(nil, sse.Event{Retry: "10"})
				break
			}
			if err := b.h.await(b.ctx, i, b.closed); err != nil {
				return 0, err
			}
			if err := b.h.hold(b.ctx, i, b.closed); err != nil {
				return 0, err
			}
			in := &b.h.p.c.Interactions[i]
			e := sse.Event{Name: in.HTTP.Event, ID: in.HTTP.ID, Retry: in.HTTP.Retry}
			if in.Message != nil || in.Text != "" {
				e.Data = b.h.payload(i)
			}
			buf, err := sse.Append(nil, e)
			if err != nil {
				return 0, err
			}
			b.buf = buf
			b.next++
			continue
		}
		b.done = b.end()
	}
	n := copy(p, b.buf)
	b.buf = b.buf[n:]
	return n, nil
}

// fault returns how FaultDrop or FaultEnd ends the stream before event
// line i; nil if neither does.
func (b *playBody) fault(i int) error {
	h := b.h
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.ended || i >= h.p.faults.end:
		h.ended = true
		h.signal()
		return io.EOF // the server ended the stream with the session
	case h.p.faults.drop[i] && h.dropped == nil:
		h.dropped = &dropped{sl: b.sl, next: b.next}
		return io.ErrUnexpectedEOF
	}
	return nil
}

// end returns how the stream ends, once its close line is due.
func (b *playBody) end() error {
	if b.sl.close >= b.h.p.faults.end {
		return io.EOF
	}
	if err := b.h.await(b.ctx, b.sl.close, b.closed); err != nil {
		return err
	}
	switch b.h.p.c.Interactions[b.sl.close].Ending.End {
	case EndEOF:
		return io.EOF
	case EndDropped:
		return io.ErrUnexpectedEOF
	}
	// The client ended it, or the session did: wait for the same.
	select {
	case <-b.ctx.Done():
		return context.Cause(b.ctx)
	case <-b.closed:
		return errBodyClosed
	}
}

func (b *playBody) Close() error {
	b.once.Do(func() { close(b.closed) })
	return nil
}

// unused returns the client lines never served.
func (h *playHTTP) unused() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.s.unused()
}

// requestBody reads req's body and leaves it readable again, up to MaxSize.
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
		return io.ReadAll(io.LimitReader(b, int64(maxSize)))
	}
	data, err := io.ReadAll(io.LimitReader(req.Body, int64(maxSize)))
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
