package cassette

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/looprig/mcp/internal/sse"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ReplayOrigin is the origin a replayed HTTP session is addressed to. No
// request leaves the process: the replaying round tripper answers them all.
const ReplayOrigin = "http://cassette.localhost"

// ErrRecordedFailure is returned by a replayed request whose recorded
// counterpart failed before any response (a close line with EndError).
var ErrRecordedFailure = errors.New("cassette: the recorded request failed")

// httpPlay serves an HTTP cassette as an http.RoundTripper.
type httpPlay struct {
	p    *Player
	ins  []Interaction // the player's copy, BeforeResponseReplay hooks applied
	idx  map[int]*streamLines
	reqs []int // the request lines, in order

	mu         sync.Mutex // guards the fields below
	red        *redactor
	served     []bool // request lines matched by a live request
	passed     []bool // request lines served or skipped: they no longer hold back later lines
	firstOpen  int    // the first request line not passed; len(ins) when none
	liveID     map[int]jsonrpc.ID
	mismatches []error
	ended      bool          // the recorded DELETE was served
	wake       chan struct{} // closed and replaced whenever a request is served or an answer fails
	failed     []bool        // answers whose hold expired: they no longer hold back what follows
	heldCur    int           // index in answers of the first answer not ready
	firstHeld  int           // the line of answers[heldCur]; len(ins) when none

	answers []int         // lines carrying a JSON-RPC response to a client call, in order
	needs   map[int][]int // for a line of a call's stream: client responses to server requests of that stream recorded before it
}

func newHTTPPlay(p *Player) (*httpPlay, error) {
	ins := append([]Interaction(nil), p.c.Interactions...)
	for i := range ins {
		ins[i].Headers = ins[i].Headers.Clone()
	}
	h := &httpPlay{p: p, ins: ins, red: newRedactor(p.opts), liveID: map[int]jsonrpc.ID{}, wake: make(chan struct{})}
	c := &Cassette{File: p.c.File, Header: p.c.Header, Interactions: ins}
	if err := applyHooks(c, p.opts.Hooks, false, beforeReplay); err != nil {
		return nil, err
	}
	h.idx = streamIndex(ins)
	for i := range ins {
		if ins[i].Kind == KindRequest {
			h.reqs = append(h.reqs, i)
		}
	}
	h.served = make([]bool, len(ins))
	h.passed = make([]bool, len(ins))
	h.failed = make([]bool, len(ins))
	h.plan()
	h.advance()
	return h, nil
}

// plan finds the answers and what each line of a stream waits for besides
// its request: the client's answers (POSTed JSON-RPC responses) to the
// server requests that stream carried before it.
func (h *httpPlay) plan() {
	h.needs = map[int][]int{}
	for i := range h.ins {
		in := &h.ins[i]
		if _, ok := in.msg.(*jsonrpc.Response); ok && in.Kind != KindRequest && in.pair >= 0 {
			h.answers = append(h.answers, i)
		}
	}
	for _, q := range h.reqs {
		sl := h.idx[h.ins[q].Stream]
		asked := map[jsonrpc.ID]bool{}
		var needs []int
		for i := q + 1; i < len(h.ins); i++ {
			in := &h.ins[i]
			switch {
			case in.Stream == h.ins[q].Stream:
				if len(needs) > 0 {
					h.needs[i] = needs
				}
				if r, ok := in.msg.(*jsonrpc.Request); ok && r.IsCall() {
					asked[r.ID] = true
				}
			case in.Kind == KindRequest && len(asked) > 0:
				if r, ok := in.msg.(*jsonrpc.Response); ok && asked[r.ID] {
					needs = append(needs[:len(needs):len(needs)], i)
				}
			}
			if i == sl.last() {
				break
			}
		}
	}
}

// last returns the stream's last line.
func (sl *streamLines) last() int {
	return max(sl.req, sl.resp, sl.close, lastOf(sl.events))
}

func lastOf(xs []int) int {
	if len(xs) == 0 {
		return -1
	}
	return xs[len(xs)-1]
}

// endpoint is the URL the replayed client is pointed at.
func (h *httpPlay) endpoint() string {
	if len(h.reqs) == 0 {
		return ReplayOrigin + "/"
	}
	return ReplayOrigin + h.ins[h.reqs[0]].URL
}

// standalone reports whether the recording opened the standalone stream.
func (h *httpPlay) standalone() bool {
	for _, i := range h.reqs {
		in := &h.ins[i]
		if in.HTTP.Method == http.MethodGet && in.Headers.Get("Last-Event-ID") == "" {
			return true
		}
	}
	return false
}

func (h *httpPlay) transport() (mcp.Transport, error) {
	f, err := streamablehttp.New(h.endpoint(), &streamablehttp.Options{Base: h, DisableStandaloneSSE: !h.standalone()})
	if err != nil {
		return nil, fmt.Errorf("cassette %s: %w", h.p.c.File, err)
	}
	return f.Transport()
}

// advance recomputes firstOpen and firstHeld and wakes waiters. h.mu is
// held.
func (h *httpPlay) advance() {
	h.firstOpen = len(h.ins)
	for _, i := range h.reqs {
		if !h.passed[i] {
			h.firstOpen = i
			break
		}
	}
	for ; h.heldCur < len(h.answers); h.heldCur++ {
		h.firstHeld = h.answers[h.heldCur]
		if a := h.answers[h.heldCur]; !h.failed[a] && !h.ready(a) {
			break
		}
	}
	if h.heldCur == len(h.answers) {
		h.firstHeld = len(h.ins)
	}
	close(h.wake)
	h.wake = make(chan struct{})
}

// standalone reports whether sl is the standalone GET stream, whose
// messages relate to no request.
func (h *httpPlay) isStandalone(sl *streamLines) bool {
	in := &h.ins[sl.req]
	return in.HTTP.Method == http.MethodGet && in.Headers.Get("Last-Event-ID") == ""
}

// ready reports whether line i (a response, event or close) may be served.
// A line of the standalone GET stream other than its response waits until
// every request recorded before it has been served (or passed over). A line
// of any other stream waits until the stream's request has been served,
// every answer recorded before that request is ready, the call it answers
// (for an answer on a resumed stream) has been served, and so have the
// client's answers to the server requests the stream carried before it.
// h.mu is held.
func (h *httpPlay) ready(i int) bool {
	in := &h.ins[i]
	sl := h.idx[in.Stream]
	if !h.served[sl.req] {
		return false
	}
	if h.isStandalone(sl) && in.Kind != KindResponse {
		return i < h.firstOpen
	}
	if sl.req > h.firstHeld {
		return false
	}
	if _, ok := in.msg.(*jsonrpc.Response); ok && in.pair >= 0 && !h.served[in.pair] {
		return false
	}
	for _, j := range h.needs[i] {
		if !h.served[j] {
			return false
		}
	}
	return true
}

// A liveReq is a request as the replayer compares it.
type liveReq struct {
	method, url, session, lastEvent string
	body                            []byte
	msg                             jsonrpc.Message // nil unless the body is a JSON-RPC message
	tree                            any             // comparable form of msg
}

func (h *httpPlay) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := requestBody(req)
	closeRequestBody(req)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	live := &liveReq{
		method:    req.Method,
		url:       h.red.text(req.URL.RequestURI()),
		session:   h.red.text(req.Header.Get("Mcp-Session-Id")),
		lastEvent: h.red.text(req.Header.Get("Last-Event-ID")),
		body:      body,
	}
	if len(body) > 0 {
		if msg, err := jsonrpc.DecodeMessage(body); err == nil {
			live.msg = msg
			live.tree, _ = h.p.match.tree(body, h.red)
		}
	}
	j, ok := h.find(live)
	if !ok {
		merr := h.mismatch(live)
		h.mismatches = append(h.mismatches, merr)
		h.mu.Unlock()
		return refuse(req, live, merr), nil
	}
	h.serve(j, live)
	sl := h.idx[h.ins[j].Stream]
	h.mu.Unlock()

	if sl.resp < 0 {
		// The recorded request got no response: it failed, or the session
		// ended first.
		if err := h.await(req.Context(), sl.close, nil, true); err != nil {
			var merr *MismatchError
			if errors.As(err, &merr) {
				return refuse(req, live, merr), nil
			}
			return nil, err
		}
		if h.ins[sl.close].End == EndError {
			return nil, fmt.Errorf("%w (%s:%d)", ErrRecordedFailure, h.p.c.File, h.ins[sl.close].Line)
		}
		<-req.Context().Done()
		return nil, context.Cause(req.Context())
	}
	// The DELETE that ends the session is answered at once: requests the
	// recording made before it and the live client did not make must not
	// hold it up.
	if req.Method != http.MethodDelete {
		if err := h.await(req.Context(), sl.resp, nil, true); err != nil {
			var merr *MismatchError
			if errors.As(err, &merr) {
				return refuse(req, live, merr), nil
			}
			return nil, err
		}
	}
	return h.response(req, sl), nil
}

// find returns the first unserved recorded request that live matches.
// h.mu is held.
func (h *httpPlay) find(live *liveReq) (int, bool) {
	for _, i := range h.reqs {
		if !h.served[i] && h.matches(i, live) {
			return i, true
		}
	}
	return 0, false
}

func (h *httpPlay) matches(i int, live *liveReq) bool {
	in := &h.ins[i]
	if in.HTTP.Method != live.method || !samePlaceholders(in.URL, live.url) ||
		!samePlaceholders(in.Headers.Get("Mcp-Session-Id"), live.session) ||
		!samePlaceholders(in.Headers.Get("Last-Event-ID"), live.lastEvent) {
		return false
	}
	switch {
	case in.Message != nil:
		return live.tree != nil && kindOf(in.msg) == kindOf(live.msg) && equalTree(h.p.want[i], live.tree)
	case in.Text != "":
		return samePlaceholders(in.Text, h.red.text(string(live.body)))
	}
	return len(live.body) == 0
}

func samePlaceholders(a, b string) bool {
	return a == b || normalisePlaceholders(a) == normalisePlaceholders(b)
}

// serve marks recorded request j as served by live. Requests before it that
// a live client may leave out (a standalone GET, a notification) stop
// holding back what follows them. h.mu is held.
func (h *httpPlay) serve(j int, live *liveReq) {
	h.served[j], h.passed[j] = true, true
	if req, ok := live.msg.(*jsonrpc.Request); ok && req.IsCall() {
		h.liveID[j] = req.ID
	}
	for _, i := range h.reqs {
		if i >= j {
			break
		}
		if !h.passed[i] && h.skippable(i) {
			h.passed[i] = true
		}
	}
	if h.ins[j].HTTP.Method == http.MethodDelete {
		h.ended = true
	}
	h.advance()
}

func (h *httpPlay) skippable(i int) bool {
	in := &h.ins[i]
	if in.HTTP.Method == http.MethodGet {
		return in.Headers.Get("Last-Event-ID") == ""
	}
	return in.msg != nil && kindOf(in.msg) == "notification"
}

// await waits until line i is ready. If bounded, it waits at most
// Options.Wait, then fails line i's stream with a *MismatchError (kept for
// Err) naming what it waited for.
func (h *httpPlay) await(ctx context.Context, i int, closed <-chan struct{}, bounded bool) error {
	var timeout <-chan time.Time
	for {
		h.mu.Lock()
		ok, wake := h.ready(i), h.wake
		h.mu.Unlock()
		if ok {
			return nil
		}
		if bounded && timeout == nil {
			t := time.NewTimer(h.p.opts.wait())
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-closed:
			return errBodyClosed
		case <-wake:
		case <-timeout:
			return h.expire(i)
		}
	}
}

// expire fails held line i: it returns a *MismatchError naming what the
// line waited for, and if the line is an answer, what follows is no longer
// held back by it.
func (h *httpPlay) expire(i int) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	q := h.idx[h.ins[i].Stream].req
	in := &h.ins[q]
	e := &MismatchError{Cassette: h.p.c.File, Position: in.Line, Method: "HTTP " + in.HTTP.Method,
		Reason: fmt.Sprintf("held %v for recorded requests the live client did not make: %s", h.p.opts.wait(), h.blockers(i))}
	if m := in.Method(); m != "" {
		e.Method = m
	}
	h.mismatches = append(h.mismatches, e)
	h.failed[i] = true
	h.advance()
	return e
}

// blockers describes what line i waits for. h.mu is held.
func (h *httpPlay) blockers(i int) string {
	var s []string
	sl := h.idx[h.ins[i].Stream]
	if sl.req > h.firstHeld {
		if q := h.idx[h.ins[h.firstHeld].Stream].req; !h.served[q] {
			s = append(s, h.describe(q))
		} else if p := h.ins[h.firstHeld].pair; p >= 0 && !h.served[p] {
			s = append(s, h.describe(p))
		}
	}
	if in := &h.ins[i]; in.pair >= 0 && !h.served[in.pair] {
		s = append(s, h.describe(in.pair))
	}
	for _, j := range h.needs[i] {
		if !h.served[j] {
			s = append(s, h.describe(j))
		}
	}
	if h.isStandalone(sl) && h.firstOpen < len(h.ins) {
		s = append(s, h.describe(h.firstOpen))
	}
	if len(s) == 0 {
		return "answers recorded before it that are themselves held"
	}
	return strings.Join(s, ", ")
}

var errBodyClosed = errors.New("cassette: body closed")

// response builds the recorded response of stream sl.
func (h *httpPlay) response(req *http.Request, sl *streamLines) *http.Response {
	in := &h.ins[sl.resp]
	resp := &http.Response{
		StatusCode: in.Status,
		Status:     strconv.Itoa(in.Status) + " " + http.StatusText(in.Status),
		Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  in.Headers.Clone(),
		Request: req,
	}
	if resp.Header == nil {
		resp.Header = http.Header{}
	}
	if isSSE(in.Headers) {
		resp.ContentLength = -1
		resp.Body = &playBody{h: h, sl: sl, ctx: req.Context(), closed: make(chan struct{})}
		return resp
	}
	data := h.payload(in)
	resp.ContentLength = int64(len(data))
	if len(data) == 0 {
		resp.Body = http.NoBody
	} else {
		resp.Body = io.NopCloser(bytes.NewReader(data))
	}
	return resp
}

// payload returns a line's body or data, a response carrying the live id of
// the request it answers.
func (h *httpPlay) payload(in *Interaction) []byte {
	if in.Message == nil {
		return []byte(in.Text)
	}
	if r, ok := in.msg.(*jsonrpc.Response); ok && in.pair >= 0 {
		h.mu.Lock()
		id, ok := h.liveID[in.pair]
		h.mu.Unlock()
		if ok && id != r.ID {
			cp := *r
			cp.ID = id
			if data, err := jsonrpc.EncodeMessage(&cp); err == nil {
				return data
			}
		}
	}
	return in.Message
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
func (h *httpPlay) mismatch(live *liveReq) *MismatchError {
	e := &MismatchError{Cassette: h.p.c.File, Method: "HTTP " + live.method}
	if r, ok := live.msg.(*jsonrpc.Request); ok {
		e.Method = r.Method
	}
	nearest, next := -1, -1
	for _, i := range h.reqs {
		if h.served[i] {
			continue
		}
		if next < 0 {
			next = i
		}
		in := &h.ins[i]
		if in.HTTP.Method == live.method && (live.msg == nil || in.msg != nil && h.p.c.methodAt(i) == h.methodOf(live.msg) && kindOf(in.msg) == kindOf(live.msg)) {
			nearest = i
			break
		}
	}
	switch {
	case nearest >= 0:
		e.Reason = "differs from the nearest unserved recorded request"
	case next >= 0:
		nearest = next
		e.Reason = "no unserved recorded request is like it; the next is " + h.describe(next)
	default:
		e.Reason = "the cassette has no more requests"
	}
	for _, i := range h.reqs {
		if h.served[i] && h.matches(i, live) {
			e.Reason = "already served: a recorded request is served at most once"
			nearest = i
			break
		}
	}
	got := h.shape(live.method, live.url, live.session, live.lastEvent, live.tree, string(live.body))
	if nearest >= 0 {
		in := &h.ins[nearest]
		e.Position = in.Line
		e.Diff = diff(h.shape(in.HTTP.Method, in.URL, in.Headers.Get("Mcp-Session-Id"), in.Headers.Get("Last-Event-ID"), h.p.want[nearest], in.Text), got)
	} else {
		e.Diff = diff(nil, got)
	}
	return e
}

// shape is the comparable form of a request, for a mismatch's diff.
func (h *httpPlay) shape(method, url, session, lastEvent string, tree any, text string) map[string]any {
	m := map[string]any{"method": method, "url": url}
	if session != "" {
		m["Mcp-Session-Id"] = session
	}
	if lastEvent != "" {
		m["Last-Event-ID"] = lastEvent
	}
	if tree != nil {
		m["message"] = tree
	} else if text != "" {
		m["text"] = text
	}
	return m
}

func (h *httpPlay) methodOf(m jsonrpc.Message) string {
	if r, ok := m.(*jsonrpc.Request); ok {
		return r.Method
	}
	return ""
}

func (h *httpPlay) describe(i int) string {
	in := &h.ins[i]
	s := in.HTTP.Method
	if m := in.Method(); m != "" {
		s += " " + m
	}
	return s + " at line " + strconv.Itoa(in.Line)
}

func (h *httpPlay) err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	errs := append([]error(nil), h.mismatches...)
	if us := h.unusedLocked(); h.ended && h.p.opts.Strict && len(us) > 0 {
		errs = append(errs, &UnusedError{Cassette: h.p.c.File, Unused: us})
	}
	return errors.Join(errs...)
}

func (h *httpPlay) unused() []Unused {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.unusedLocked()
}

func (h *httpPlay) unusedLocked() []Unused {
	var us []Unused
	for _, i := range h.reqs {
		if !h.served[i] {
			in := &h.ins[i]
			m := in.Method()
			if m == "" {
				m = "HTTP " + in.HTTP.Method
			}
			us = append(us, Unused{Line: in.Line, Method: m})
		}
	}
	return us
}

// playBody serves a recorded event stream, event by event, each once every
// request recorded before it has been served, then ends it as recorded.
type playBody struct {
	h      *httpPlay
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
			if err := b.h.await(b.ctx, i, b.closed, !b.h.isStandalone(b.sl)); err != nil {
				return 0, err
			}
			in := &b.h.ins[i]
			e := sse.Event{Name: in.Event, ID: in.ID, Retry: in.Retry}
			if in.Message != nil || in.Text != "" {
				e.Data = b.h.payload(in)
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

// end returns how the stream ends, once its close line is due.
func (b *playBody) end() error {
	if err := b.h.await(b.ctx, b.sl.close, b.closed, !b.h.isStandalone(b.sl)); err != nil {
		return err
	}
	switch b.h.ins[b.sl.close].End {
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
