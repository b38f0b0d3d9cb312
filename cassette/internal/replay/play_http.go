package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/looprig/mcp/cassette/internal/errs"
	"io"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/cassette/internal/hook"
	"github.com/looprig/mcp/cassette/internal/redact"
	"github.com/looprig/mcp/internal/sse"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// ReplayOrigin is the origin a replayed HTTP session is addressed to
// (package cassette's ReplayOrigin).
const ReplayOrigin = "http://cassette.localhost"

// PlayHTTP is the decider's adapter to an http.RoundTripper: each live
// request is handed to the decider and answered as it says: served, its
// response, the events of its stream and how the stream ended go out as
// the scheduler releases them; a hold past Config.Wait fails the request.
// It does only I/O: the decisions are the decider's (decide.go).
type PlayHTTP struct {
	p   *Player
	rep *Report

	// hooks are the BeforeResponseReplayHook hooks; view is a copy of the
	// lines they rewrite, stream by stream, as each is first served. Both
	// are nil without such hooks.
	hooks []hook.Hook
	view  []format.Interaction

	mu     sync.Mutex // guards the fields below
	d      *decider
	red    *redact.Redactor
	secret map[string]bool // the headers whose values are credentials
	wake   chan struct{}
	hooked map[int]bool // streams whose lines the hooks have seen
}

// NewPlayHTTP returns the replaying round tripper of p; it keeps its
// mismatches in rep.
func NewPlayHTTP(p *Player, rep *Report) *PlayHTTP {
	h := &PlayHTTP{p: p, rep: rep, d: newDecider(p), red: redact.New(p.o.Redact), secret: p.o.Secret, wake: make(chan struct{})}
	for _, hk := range p.o.Hooks {
		if hk.Kind == hook.BeforeReplay {
			h.hooks = append(h.hooks, hk)
		}
	}
	if len(h.hooks) > 0 {
		h.view, h.hooked = cloneInteractions(p.c.Interactions), map[int]bool{}
	}
	return h
}

// lines returns the lines to serve stream sl from: the recorded ones, or,
// with replay hooks, their copy, which the hooks see just before the
// stream's response is first served, as go-vcr runs them.
func (h *PlayHTTP) lines(sl *format.StreamLines) ([]format.Interaction, error) {
	if h.view == nil {
		return h.p.c.Interactions, nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.view[sl.Req].HTTP.Stream
	if h.hooked[s] {
		return h.view, nil
	}
	h.hooked[s] = true
	vi := hook.ToExchange(h.view, sl)
	vi.ID = s - 1
	for _, hk := range h.hooks {
		if err := hk.Run(vi); err != nil {
			return nil, fmt.Errorf("cassette: %s hook on stream %d: %w", hk.Kind, s, err)
		}
	}
	if err := hook.FromExchange(h.view, sl, vi); err != nil {
		return nil, fmt.Errorf("cassette: %s hook on stream %d: %w", hook.BeforeReplay, s, err)
	}
	return h.view, nil
}

// A liveReq is a request as the replayer compares it.
type liveReq struct {
	method, url string
	headers     http.Header
	lastEventID string          // its Last-Event-ID, as sent
	msg         jsonrpc.Message // nil unless the body is a JSON-RPC message
	body        []byte          // the body, canonical and redacted when it is a message
	key         string
}

func (h *PlayHTTP) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := format.RequestBody(req)
	format.CloseRequestBody(req)
	if err != nil {
		return nil, err
	}
	live, dec, merr := h.request(req, body)
	switch dec.act {
	case actEnd:
		return status(req, http.StatusNotFound), nil
	case actStatus:
		return status(req, dec.status), nil
	case actResume:
		resp, err := h.response(req, dec.sl)
		if err != nil {
			return nil, err
		}
		resp.Body.(*playBody).next = dec.line
		return resp, nil
	case actAccept, actRefuse:
		return refuse(req, live, merr), nil
	case actBreak:
		wrote(req)
		return nil, dec.err
	}
	return h.serve(req, live, h.p.streams[h.p.c.Interactions[dec.line].HTTP.Stream])
}

// request reads req as the replayer compares it and hands it to the
// decider; a refused request's mismatch is kept, and returned.
func (h *PlayHTTP) request(req *http.Request, body []byte) (live *liveReq, dec decision, merr error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	defer h.signal()
	live = h.live(req, body)
	dec = h.d.client(&liveMsg{msg: live.msg, key: live.key, req: live})
	if dec.act == actRefuse {
		merr = h.p.o.Errors.Mismatch(dec.merr)
		h.rep.Add(merr)
	}
	return live, dec, merr
}

// serve answers a served request with its recorded stream sl, once the
// decider releases its first line.
func (h *PlayHTTP) serve(req *http.Request, live *liveReq, sl *format.StreamLines) (*http.Response, error) {
	if err := h.await(req.Context(), sl.First(), nil); err != nil {
		if merr := h.rep.Mismatch(err); merr != nil {
			return refuse(req, live, merr), nil
		}
		return nil, err
	}
	dec := h.decide(func(d *decider) decision { return d.respond(sl) })
	switch dec.act {
	case actBreak:
		if dec.written {
			wrote(req)
		}
		return nil, dec.err
	case actWait:
		<-req.Context().Done()
		return nil, context.Cause(req.Context())
	}
	if err := h.hold(req.Context(), dec, nil); err != nil {
		return nil, err
	}
	return h.response(req, sl)
}

// decide asks the decider f under h.mu, and wakes the waiters.
func (h *PlayHTTP) decide(f func(*decider) decision) decision {
	h.mu.Lock()
	defer h.mu.Unlock()
	defer h.signal()
	return f(h.d)
}

// requestOrigin returns the serialised origin req is addressed to, which
// replay puts back where the recording renamed its own (redact.OriginName).
func requestOrigin(req *http.Request) string {
	o, err := auth.OriginOf(req.URL)
	if err != nil {
		return ReplayOrigin
	}
	return o.String()
}

// wrote tells req's client trace that the request went out whole, as the
// live transport's would before the connection broke: the transport above
// then knows the server had it.
func wrote(req *http.Request) {
	if trace := httptrace.ContextClientTrace(req.Context()); trace != nil && trace.WroteRequest != nil {
		trace.WroteRequest(httptrace.WroteRequestInfo{})
	}
}

// hold waits the extra time a format.FaultDelay decision gives its line.
func (h *PlayHTTP) hold(ctx context.Context, dec decision, closed <-chan struct{}) error {
	if dec.act != actDelay {
		return nil
	}
	t := time.NewTimer(dec.delay)
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

// Excused reports whether client line i was made but a fault answered it,
// or could not be made because a fault ended the session before it.
func (h *PlayHTTP) Excused(i int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.d.Excused(i)
}

// live reads a request as the replayer compares it. h.mu is held.
func (h *PlayHTTP) live(req *http.Request, body []byte) *liveReq {
	h.red.LearnHeaders(h.secret, req.Header) // the credentials the recording redacted
	o, _ := auth.OriginOf(req.URL)           // renamed as the recording renamed its own
	l := &liveReq{method: req.Method, url: h.red.Text(req.URL.RequestURI()), headers: http.Header{}, lastEventID: req.Header.Get("Last-Event-ID")}
	for k, vs := range req.Header {
		if ck := http.CanonicalHeaderKey(k); strings.HasPrefix(ck, "Mcp-") || ck == "Last-Event-Id" {
			for _, v := range vs {
				l.headers.Add(ck, redact.RenameOrigin(o, h.red.Text(v)))
			}
		}
	}
	var key []byte
	text := ""
	if len(body) > 0 {
		if msg, err := jsonrpc.DecodeMessage(body); err == nil {
			if canon, err := format.CanonicalMessage(msg); err == nil {
				if red, err := h.red.Message(canon); err == nil {
					red = redact.RenameOriginMessage(o, red)
					l.msg, l.body = msg, red
					key = h.p.mt.key(liveKind(msg), red)
				}
			}
		}
		if l.msg == nil {
			l.body = []byte(redact.RenameOrigin(o, h.red.Text(string(body))))
			text = string(l.body)
		}
	}
	l.key = httpKey(l.method, l.url, l.headers, key, text)
	return l
}

func (h *PlayHTTP) signal() {
	close(h.wake)
	h.wake = make(chan struct{})
}

// await waits until line i may go out. A line attached to a request waits
// at most Config.Wait; then the line fails with a mismatch (kept
// for Close) naming what it waited for. A line that keeps its place (the
// standalone stream's) waits as long as the client reads.
func (h *PlayHTTP) await(ctx context.Context, i int, closed <-chan struct{}) error {
	var timer *time.Timer
	var timeout <-chan time.Time
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		ok, held, wake := h.ready(i)
		if ok {
			return nil
		}
		switch {
		case held && timer == nil:
			timer = time.NewTimer(h.p.o.Wait)
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

// ready reports whether line i may go out, else whether Config.Wait
// bounds its hold, and the channel closed when that may have changed.
func (h *PlayHTTP) ready(i int) (ok, bounded bool, wake <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.d.s.ready(i), h.d.bounded(i), h.wake
}

// expire fails held line i, returning the mismatch naming what it
// waited for; nil if it was ready after all.
func (h *PlayHTTP) expire(i int) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, merrs, ok := h.d.expire(i)
	if !ok {
		return nil
	}
	err := h.p.o.Errors.Mismatch(merrs[0])
	h.rep.Add(err)
	h.signal()
	return err
}

// methodOf names recorded request line i for an error: its message's
// method, else its HTTP method.
func (p *Player) methodOf(i int) string {
	if m := p.Method(i); m != "" {
		return m
	}
	return "HTTP " + p.c.Interactions[i].HTTP.Method
}

var errBodyClosed = errors.New("cassette: body closed")

// response builds the recorded response of stream sl, as the replay hooks
// leave it.
func (h *PlayHTTP) response(req *http.Request, sl *format.StreamLines) (*http.Response, error) {
	ins, err := h.lines(sl)
	if err != nil {
		return nil, err
	}
	in := &ins[sl.Resp]
	origin := requestOrigin(req)
	resp := &http.Response{
		StatusCode: in.HTTP.Status,
		Status:     strconv.Itoa(in.HTTP.Status) + " " + http.StatusText(in.HTTP.Status),
		Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{},
		Request: req,
	}
	for k, vs := range in.HTTP.Headers {
		for _, v := range vs {
			resp.Header.Add(k, redact.RestoreOrigin(v, origin))
		}
	}
	if format.IsSSE(in.HTTP.Headers) {
		resp.ContentLength = -1
		resp.Body = &playBody{h: h, sl: sl, ctx: req.Context(), closed: make(chan struct{}), ins: ins, origin: origin}
		return resp, nil
	}
	data := h.payload(ins, sl.Resp, origin)
	resp.ContentLength = int64(len(data))
	if len(data) == 0 {
		resp.Body = http.NoBody
	} else {
		resp.Body = io.NopCloser(bytes.NewReader(data))
	}
	return resp, nil
}

// payload returns line i of ins's body or data, an answer carrying the
// live id of its call, origin (the request's) in place of the recorded
// one. A task answer a fault fails is served as the fault makes it,
// whatever a hook did.
func (h *PlayHTTP) payload(ins []format.Interaction, i int, origin string) []byte {
	in := &ins[i]
	canon := h.p.answer(i)
	if h.view != nil && !h.p.faults.fail[i] {
		canon = in.Message
	}
	if canon == nil {
		return []byte(redact.RestoreOrigin(in.Text, origin))
	}
	if bytes.Contains(canon, []byte("://"+redact.OriginName)) {
		canon = []byte(redact.RestoreOrigin(string(canon), origin))
	}
	st := &h.p.pl.steps[i]
	if !st.answer {
		return canon
	}
	call := int(st.after)
	if st.call >= 0 {
		call = int(st.call)
	}
	id, ok := h.liveIDOf(call)
	if !ok {
		return canon
	}
	info, _ := format.ScanMessage(canon)
	r := info.ToMessage().(*jsonrpc.Response)
	r.ID = id
	if data, err := jsonrpc.EncodeMessage(r); err == nil {
		return data
	}
	return canon
}

// liveIDOf returns the live id of served call line i.
func (h *PlayHTTP) liveIDOf(i int) (jsonrpc.ID, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	id, ok := h.d.liveID[i]
	return id, ok
}

// refuse answers a request that matched nothing: a call gets a JSON-RPC
// error carrying the mismatch, a notification or response is accepted, a
// GET or DELETE is answered 405.
func refuse(req *http.Request, live *liveReq, merr error) *http.Response {
	resp := &http.Response{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{}, Request: req, Body: http.NoBody}
	set := func(code int) {
		resp.StatusCode, resp.Status = code, strconv.Itoa(code)+" "+http.StatusText(code)
	}
	switch r, _ := live.msg.(*jsonrpc.Request); {
	case req.Method != http.MethodPost:
		set(http.StatusMethodNotAllowed)
	case r != nil && r.IsCall():
		data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: errs.CodeMismatch, Message: merr.Error()}})
		set(http.StatusOK)
		resp.Header.Set("Content-Type", "application/json")
		resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(data)), int64(len(data))
	default:
		set(http.StatusAccepted)
	}
	return resp
}

// playBody serves a recorded event stream, event by event, each when the
// scheduler releases it, then ends it as recorded.
type playBody struct {
	h      *PlayHTTP
	sl     *format.StreamLines
	ins    []format.Interaction // the lines it is served from (PlayHTTP.lines)
	origin string               // the request's origin, put back in its events
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
		if b.next == len(b.sl.Events) {
			b.done = b.end()
			continue
		}
		i := b.sl.Events[b.next]
		dec := b.h.decide(func(d *decider) decision { return d.due(i, b.sl, b.next) })
		if dec.act == actEnd || dec.act == actDrop {
			b.done = dec.err
			// As a server that ends a stream on purpose does, it tells the
			// client to come back soon: a dropped stream is resumed, and a
			// client that resumes the stream of a session that ended is
			// told so, without waiting out its reconnection backoff.
			b.buf, _ = sse.Append(nil, sse.Event{Retry: "10"})
			break
		}
		if err := b.event(i); err != nil {
			return 0, err
		}
	}
	n := copy(p, b.buf)
	b.buf = b.buf[n:]
	return n, nil
}

// event awaits event line i, holds it as the decider says, and buffers it.
func (b *playBody) event(i int) error {
	if err := b.h.await(b.ctx, i, b.closed); err != nil {
		return err
	}
	dec := b.h.decide(func(d *decider) decision { return d.release(i) })
	if err := b.h.hold(b.ctx, dec, b.closed); err != nil {
		return err
	}
	in := &b.ins[i]
	e := sse.Event{Name: in.HTTP.Event, ID: in.HTTP.ID, Retry: in.HTTP.Retry}
	if in.Message != nil || in.Text != "" {
		e.Data = b.h.payload(b.ins, i, b.origin)
	}
	buf, err := sse.Append(nil, e)
	if err != nil {
		return err
	}
	b.buf = buf
	b.next++
	return nil
}

// end returns how the stream ends, once its close line is due.
func (b *playBody) end() error {
	for awaited := false; ; awaited = true {
		dec := b.h.decide(func(d *decider) decision { return d.streamEnd(b.sl, awaited) })
		switch dec.act {
		case actAwait:
			if err := b.h.await(b.ctx, b.sl.Close, b.closed); err != nil {
				return err
			}
			continue
		case actEnd, actDrop:
			return dec.err
		}
		select {
		case <-b.ctx.Done():
			return context.Cause(b.ctx)
		case <-b.closed:
			return errBodyClosed
		}
	}
}

func (b *playBody) Close() error {
	b.once.Do(func() { close(b.closed) })
	return nil
}

// Unused returns the client lines never served.
func (h *PlayHTTP) Unused() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.d.s.Unused()
}
