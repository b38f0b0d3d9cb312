package streamablehttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"sync"
	"time"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/deadline"
	"github.com/looprig/mcp/internal/sse"
	"github.com/looprig/mcp/internal/wire"
	"github.com/looprig/mcp/protocol"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/internal/httpguard"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"golang.org/x/oauth2"
)

// replayWindow is how many recent call ids a connection remembers to refuse
// a re-send. A re-send by the go-sdk follows its original immediately.
const replayWindow = 1024

// connState is the per-connection HTTP stack: the pool, the policy round
// tripper and the bookkeeping it needs.
type connState struct {
	f      *Factory
	base   *httpguard.Carrier // carries what passes the policy
	client *http.Client
	slots  chan struct{}                                        // one token per request in flight
	admit  func(ctx context.Context, method string)             // the client's pacer, or nil
	divert func(ctx context.Context, msg *jsonrpc.Request) bool // the client's diverter, or nil
	tap    func(ctx context.Context, msg []byte)                // the client's tap of answers, or nil
	idle   *deadline.Watch                                      // bounds each read of a body (Timeouts.IdleRead)
	prune  *time.Timer                                          // closes the own pool's idle connections every IdleRead, or nil
	header *deadline.Watch                                      // bounds each wait for response headers (Timeouts.ResponseHeader)

	watchOnce sync.Once

	mu       sync.Mutex             // guards the fields below
	closed   bool                   // the connection has closed
	recent   recentIDs              // the last replayWindow call ids sent
	resumes  map[string]*resumption // last event id of a dropped call stream → its resumption
	draining map[*sseBody]bool      // streams read to their end after the go-sdk closed them (sseBody.drain)

	meta requestMeta // the per-request _meta of 2026-07-28, for requests sent without it
}

// A callRef names the JSON-RPC call a response stream answers.
type callRef struct {
	jid    jsonrpc.ID // the request id, as the go-sdk reads it (id: as it encodes it)
	method string
	taskID string // params.taskId of a tasks/get, tasks/update or tasks/cancel
}

func newConnState(f *Factory) *connState {
	st := &connState{
		f:       f,
		slots:   make(chan struct{}, f.opts.Limits.MaxConcurrentStreams),
		resumes: make(map[string]*resumption),
		idle:    deadline.New(f.opts.Timeouts.IdleRead),
		header:  deadline.New(0), // with a Base, the wait for headers is its business (Options.Base)
	}
	// The own pool's wait for response headers is bounded here, not by its
	// ResponseHeaderTimeout, which sets a timer per request; nor is an idle
	// pooled connection's life bounded by its IdleConnTimeout, which sets a
	// timer each time a connection goes idle, after every request: prune
	// closes the idle ones every IdleRead.
	pool := f.phases
	pool.ResponseHeader, pool.IdleConn = 0, 0
	st.base = httpguard.NewCarrier(f.ep, f.opts.Base, f.wrap, f.opts.Credentials, pool, f.opts.Limits.MaxConcurrentStreams)
	if f.opts.Base == nil {
		st.header = deadline.New(f.opts.Timeouts.ResponseHeader)
		st.prune = time.AfterFunc(f.opts.Timeouts.IdleRead, st.pruneIdle)
	}
	st.client = &http.Client{Transport: st, CheckRedirect: httpguard.RedirectPolicy(pkg)}
	return st
}

// watch ties the connection's cleanup to its context, which the go-sdk
// cancels when the connection closes.
func (st *connState) watch(ctx context.Context) {
	st.watchOnce.Do(func() { context.AfterFunc(ctx, st.shutdown) })
}

// shutdown marks the connection closed and closes the pool's idle
// connections; bodies closed later close them again.
func (st *connState) shutdown() {
	st.mu.Lock()
	st.closed = true
	drains := st.draining
	st.draining = nil
	if st.prune != nil {
		st.prune.Stop()
	}
	st.mu.Unlock()
	for s := range drains {
		s.abort() // its drain ends, and releases it
	}
	st.closeIdle()
}

// drains notes that s is read to its end by its drain goroutine, and
// reports whether it may be: not once the connection has closed.
func (st *connState) drains(s *sseBody) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return false
	}
	if st.draining == nil {
		st.draining = map[*sseBody]bool{}
	}
	st.draining[s] = true
	return true
}

// drained notes that the drain of s has ended.
func (st *connState) drained(s *sseBody) {
	st.mu.Lock()
	delete(st.draining, s)
	st.mu.Unlock()
}

func (st *connState) closeIdle() { st.base.CloseIdleConnections() }

// pruneIdle closes the pool's idle connections, so that none is kept idle
// longer than IdleRead, and comes again after IdleRead, until the
// connection closes.
func (st *connState) pruneIdle() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return
	}
	st.closeIdle()
	st.prune.Reset(st.f.opts.Timeouts.IdleRead)
}

func (st *connState) isClosed() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.closed
}

// RoundTrip applies the connection's policy to one request: origin, replay,
// concurrency, the close bound, timeouts, and the response body limits.
func (st *connState) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := httpguard.CheckOrigin(pkg, st.f.ep.Origin, req); err != nil {
		return nil, err
	}
	var call *callRef
	resumeID, lastTry := "", false
	switch req.Method {
	case http.MethodPost:
		var err error
		if req, call, err = st.preparePost(req); err != nil {
			return nil, err
		}
	case http.MethodGet:
		if resumeID = req.Header.Get("Last-Event-ID"); resumeID != "" {
			call, lastTry = st.tryResume(resumeID)
		}
	}
	b, req, err := st.begin(req, call)
	if err != nil {
		return nil, err
	}
	resp, err := st.base.RoundTrip(req)
	if st.header.Close(&b.hdr) {
		b.hdrTimedOut = true
		err = &transport.TimeoutError{Transport: pkg, Phase: "response header", Limit: st.f.opts.Timeouts.ResponseHeader, Err: err}
		if resp != nil {
			resp.Body.Close() // it came as the bound passed: too late
			resp = nil
		}
	}
	if call != nil && req.Method == http.MethodGet && (err == nil || lastTry) {
		st.endResume(resumeID) // answered, or the go-sdk tries no more
	}
	if err != nil {
		return st.failed(req, call, b, lastTry, err)
	}
	if req.Method == http.MethodGet {
		if refused := st.refuseGet(req, resp, call); refused != nil {
			resp.Body.Close()
			b.done()
			return refused, nil
		}
	}
	b.rc = resp.Body
	resp.Body = st.wrapBody(req, resp, call, b)
	if req.Method == http.MethodPost && call != nil && refusedStatus(resp.StatusCode) {
		return refusedCall(req, resp, call), nil
	}
	return resp, nil
}

// preparePost reads a POST's body and returns the request to send and the
// call it carries (nil if it is not one). It refuses a call sent before
// (errReplay), gives a request of 2026-07-28 the _meta it lacks, and names
// the task a request of the tasks extension routes by.
func (st *connState) preparePost(req *http.Request) (*http.Request, *callRef, error) {
	buf := peekBuffers.Get().(*[]byte)
	defer peekBuffers.Put(buf)
	body, err := peekBody(req, buf)
	header, read := readHeader(body)
	h := &header
	if !read {
		h = nil
	}
	if err == nil {
		req, err = st.meta.fill(req, body, h)
	}
	if err != nil {
		closeBody(req)
		return nil, nil, fmt.Errorf("streamablehttp: request body: %w", err)
	}
	call := callOf(h)
	if call != nil && !resendable[call.method] && !st.remember(call) {
		closeBody(req)
		return nil, nil, fmt.Errorf("%w: %s id %s", errReplay, call.method, call.id())
	}
	if call != nil && call.taskID != "" && req.Header.Get("Mcp-Method") != "" && req.Header.Get("Mcp-Name") == "" {
		// The tasks extension routes its requests by task id (Mcp-Name),
		// which the go-sdk does not set.
		req = req.Clone(req.Context())
		req.Header.Set("Mcp-Name", call.taskID)
	}
	return req, call, nil
}

// begin gives req its own cancel. So an idle body can abort it whatever
// the caller's context does. So can the bound of Close, if req is the
// DELETE that ends the session. begin watches whether the request went out
// whole, which starts the wait for its response headers (bounded by
// st.header). It takes a concurrency slot. It returns what the request
// holds, which its body releases, and the request to send.
func (st *connState) begin(req *http.Request, call *callRef) (*bodyBase, *http.Request, error) {
	timeout := time.Duration(0)
	if req.Method == http.MethodDelete {
		timeout = st.f.opts.Timeouts.Close // Close must not hang on the server
	}
	ctx, cancel := withOptionalTimeout(req.Context(), timeout)
	x := &exchange{bodyBase: bodyBase{st: st, cancel: cancel, slot: req.Method != http.MethodDelete}}
	b := &x.bodyBase
	b.stream = &x.stream
	b.read.Expire, b.hdr.Expire = b.expire, cancel
	b.trace.WroteRequest = b.wroteRequest
	req = req.WithContext(httptrace.WithClientTrace(ctx, &b.trace))
	if b.slot {
		select {
		case st.slots <- struct{}{}: // a slot is free
		default:
			if err := st.awaitSlot(ctx); err != nil {
				cancel()
				closeBody(req)
				return nil, nil, err
			}
		}
	}
	return b, req, nil
}

// An exchange is what one request holds, in one allocation: its bodyBase,
// and the sseBody its response is read through if it is an event stream.
type exchange struct {
	bodyBase
	stream sseBody
}

// awaitSlot waits for a concurrency slot until ctx ends.
func (st *connState) awaitSlot(ctx context.Context) error {
	select {
	case st.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", &transport.LimitError{Transport: pkg, What: "concurrent streams", Limit: int64(cap(st.slots))}, context.Cause(ctx))
	}
}

// failed returns what the go-sdk gets for req, which the base round tripper
// failed with err, and releases what the request holds.
func (st *connState) failed(req *http.Request, call *callRef, b *bodyBase, lastTry bool, err error) (*http.Response, error) {
	defer b.done()
	// The request's context ended here only if the wait for its headers
	// timed out (b.hdr's expiry cancels it).
	ours := req.Context().Err() == nil || b.hdrTimedOut
	if call != nil && req.Method == http.MethodGet && lastTry && ours {
		// The last resumption the go-sdk tries failed: it would fail the
		// connection with an error that hides that the call was sent.
		return resumeRefused(req, call, fmt.Sprintf("attempt %d of %d: %v", st.f.resumeAttempts(), st.f.resumeAttempts(), err)), nil
	}
	err = st.classify(req, err) // before done cancels the context
	if call != nil && b.wrote.Load() && ours && !errors.Is(err, transport.ErrTimeout) {
		// The server has the call and may have run it; its answer is
		// lost, and the call is not sent again.
		err = dropError(err)
	}
	return nil, err
}

// refuseGet returns the answer to a GET that the go-sdk must get in place
// of resp, or nil: a redirect to another origin (refuseRedirect), or a
// refused resumption of call's stream.
func (st *connState) refuseGet(req *http.Request, resp *http.Response, call *callRef) *http.Response {
	if refused := st.refuseRedirect(req, resp); refused != nil {
		return refused
	}
	if call != nil && (resp.StatusCode < 200 || resp.StatusCode > 299) {
		return resumeRefused(req, call, "the server refused it: "+resp.Status)
	}
	return nil
}

// refuseRedirect answers a GET redirected to another origin, or returns
// nil. The http.Client's redirect policy would refuse the redirect too, but
// as an error. The go-sdk retries that with backoff, for the standalone
// stream and for a resumption. The answer it gets instead is final. It is
// the redirect's status, without a Location. Its body holds a JSON-RPC
// error (errRedirectRefused), which the go-sdk fails the connection with
// at once.
func (st *connState) refuseRedirect(req *http.Request, resp *http.Response) *http.Response {
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
	default:
		return nil
	}
	loc, err := resp.Location()
	if err != nil || st.f.ep.Origin.Matches(loc) {
		return nil // no target (nothing is followed), or one the policy follows
	}
	re := &transport.RedirectError{Transport: pkg, Method: req.Method, Status: resp.StatusCode, To: "null", Err: &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect}}
	if o, err := auth.OriginOf(loc); err == nil {
		re.To = o.String()
	}
	body, _ := json.Marshal(struct {
		JSONRPC string        `json:"jsonrpc"`
		ID      string        `json:"id"`
		Error   jsonrpc.Error `json:"error"`
	}{"2.0", "streamablehttp-refused", jsonrpc.Error{Code: CodeRedirectRefused, Message: re.Error()}})
	return answer(req, resp.Status, resp.StatusCode, "text/event-stream", body)
}

// refusedStatus reports whether a call's POST answered code was refused by
// the server in a way the go-sdk would fail the connection for. That is a
// 4xx, except these: 401 and 403 (authorization, handled below), 404 (the
// session is gone, which the go-sdk handles) and 429 (transient for the
// go-sdk already).
func refusedStatus(code int) bool {
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusTooManyRequests:
		return false
	}
	return code >= 400 && code <= 499
}

// refusedCall answers a call's POST that resp refused (see refusedStatus)
// with the same status and a body holding the call's errRefused, which
// the go-sdk hands to the call without failing the connection. If resp's
// body is a JSON-RPC error, which the go-sdk hands on the same way, resp
// is returned with its body as it was. The body is read within its bounds
// (MaxJSONBytes, the idle timeout).
func refusedCall(req *http.Request, resp *http.Response, call *callRef) *http.Response {
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil {
		if msg, derr := jsonrpc.DecodeMessage(body); derr == nil {
			if r, ok := msg.(*jsonrpc.Response); ok && r.Error != nil {
				resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
				return resp // the server said why
			}
		}
	}
	why := resp.Status
	if t := bytes.TrimSpace(body); len(t) > 0 {
		why += ": " + snippet(t)
	}
	if err != nil {
		why += " (body: " + err.Error() + ")"
	}
	data := errorResponse(call, fmt.Errorf("%w: %s", errRefused, why))
	return answer(req, resp.Status, resp.StatusCode, "application/json", data)
}

// resumeRefused answers a GET that resumes call's stream and was refused
// (404 once the server ended the session, or any other non-2xx). It also
// answers one that failed for the last time. The answer is a stream
// holding one error response for the call, errStreamDropped, saying why.
// The server had the call and may have run it; its answer is lost. Handed
// the status or the error, the go-sdk would fail the whole connection
// (ErrSessionMissing for 404). It would fail the call with a session error
// that hides that it was sent.
func resumeRefused(req *http.Request, call *callRef, why string) *http.Response {
	body, _ := sse.Append(nil, sse.Event{Name: "message",
		Data: errorResponse(call, dropError(errors.New("its resumption failed: "+why)))})
	return answer(req, "200 OK", http.StatusOK, "text/event-stream", body)
}

// answer is a response this package gives the go-sdk in place of the
// server's: status, a body of contentType.
func answer(req *http.Request, status string, code int, contentType string, body []byte) *http.Response {
	return &http.Response{
		Status:        status,
		StatusCode:    code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": {contentType}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}

// statelessRevision reports whether req is of protocol 2026-07-28 or
// later, which has no stream resumption.
func statelessRevision(req *http.Request) bool {
	return req.Header.Get("Mcp-Protocol-Version") >= protocol.Revision20260728
}

func withOptionalTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return context.WithCancel(ctx)
}

// classify turns a transport timeout into a transport.TimeoutError.
func (st *connState) classify(req *http.Request, err error) error {
	if req.Context().Err() != nil {
		if req.Method == http.MethodDelete && errors.Is(req.Context().Err(), context.DeadlineExceeded) {
			return &transport.TimeoutError{Transport: pkg, Phase: "close", Limit: st.f.opts.Timeouts.Close, Err: err}
		}
		return err
	}
	return httpguard.PhaseTimeout(pkg, st.f.phases, err)
}

// wrapBody bounds resp's body according to its kind.
func (st *connState) wrapBody(req *http.Request, resp *http.Response, call *callRef, b *bodyBase) io.ReadCloser {
	lim := st.f.opts.Limits
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &plainBody{bodyBase: b, max: lim.MaxJSONBytes, what: "error body"}
	}
	ct := resp.Header.Get("Content-Type")
	if ct != "text/event-stream" && ct != "application/json" {
		ct, _, _ = mime.ParseMediaType(ct)
	}
	switch {
	case ct == "text/event-stream":
		s := b.stream // allocated with b
		if s == nil {
			s = new(sseBody)
		}
		*s = sseBody{
			bodyBase: b,
			ctx:      req.Context(),
			call:     call,
			// 2026-07-28 has no Last-Event-ID: a broken stream of that
			// revision is never resumed, whatever ids it carried.
			resumable: st.f.opts.MaxResumeAttempts >= 0 && !statelessRevision(req),
			idSeen:    req.Method == http.MethodGet && call != nil,
			maxEvent:  lim.MaxEventBytes,
			maxTotal:  lim.MaxStreamBytes,
		}
		if req.Method == http.MethodPost && call != nil && s.preread() {
			resp.Header["Content-Type"] = jsonType[:1:1]
			resp.ContentLength = -1
		}
		return s
	case ct == "application/json" && call != nil:
		return &jsonBody{bodyBase: b, ctx: req.Context(), call: call, max: lim.MaxJSONBytes}
	}
	return &plainBody{bodyBase: b, max: lim.MaxJSONBytes, what: "json body"}
}

// jsonType is the Content-Type of a stream handed over as application/json.
var jsonType = []string{"application/json"}

// remember records a call id and reports whether it is new.
func (st *connState) remember(c *callRef) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.recent.add(c.jid)
}

// recentIDs is the replay guard's window: the last replayWindow call ids,
// by their value as the go-sdk reads them. An integer id (every id the
// go-sdk's client sends) is kept as an int64 in a map and a ring. These
// hold no pointers. So the garbage collector, which runs every few calls,
// does not scan the window. It would scan a map of jsonrpc.ID: an
// interface each, and the integer it boxes. A string id takes its slot of the ring
// too; its text is in names, beside the ring, and in a map of its own,
// both made at the first string id.
type recentIDs struct {
	ring  []recentSlot // replayWindow long once the first id comes
	next  int          // the next slot in ring
	ints  map[int64]struct{}
	strs  map[string]struct{}
	names []string // beside ring: the string id of each slot that holds one
}

// A recentSlot is one id of the window: n, if it is an integer.
type recentSlot struct {
	n    int64
	kind uint8 // 0: empty; slotInt; slotString (in names)
}

const (
	slotInt uint8 = 1 + iota
	slotString
)

// add records id and reports whether it is new to the window.
func (r *recentIDs) add(id jsonrpc.ID) bool {
	if r.ring == nil {
		r.ring, r.ints = make([]recentSlot, replayWindow), make(map[int64]struct{}, replayWindow)
	}
	slot, name := recentSlot{kind: slotString}, ""
	switch v := id.Raw().(type) {
	case int64:
		if _, seen := r.ints[v]; seen {
			return false
		}
		slot = recentSlot{n: v, kind: slotInt}
	case string:
		if _, seen := r.strs[v]; seen {
			return false
		}
		if r.strs == nil {
			r.strs, r.names = make(map[string]struct{}), make([]string, replayWindow)
		}
		name = v
	default:
		return true // none: the go-sdk reads every id as one or the other
	}
	switch old := r.ring[r.next]; old.kind { // the window forgets its oldest id
	case slotInt:
		delete(r.ints, old.n)
	case slotString:
		delete(r.strs, r.names[r.next])
		r.names[r.next] = ""
	}
	r.ring[r.next] = slot
	if slot.kind == slotInt {
		r.ints[slot.n] = struct{}{}
	} else {
		r.names[r.next], r.strs[name] = name, struct{}{}
	}
	r.next = (r.next + 1) % replayWindow
	return true
}

// A resumption is a dropped call stream the go-sdk is resuming.
type resumption struct {
	call  *callRef
	tries int // the GETs sent for it so far
}

// noteResume records that the stream of call dropped after event id.
func (st *connState) noteResume(id string, call *callRef) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.resumes) >= replayWindow {
		return // a server that drops this many streams gets no typed errors
	}
	st.resumes[id] = &resumption{call: call}
}

// tryResume counts a GET resuming from event id and returns the call whose
// stream it resumes (nil if none), and whether it is the last such GET the
// go-sdk sends.
func (st *connState) tryResume(id string) (*callRef, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	r := st.resumes[id]
	if r == nil {
		return nil, false
	}
	r.tries++
	return r.call, r.tries >= st.f.resumeAttempts()
}

func (st *connState) endResume(id string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.resumes, id)
}

// peekBuffers holds the buffers preparePost reads request bodies into: a
// body is read again each time it is sent, and what the policy keeps of it
// is copied out.
var peekBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1<<10); return &b }}

// peekBody returns the body of a POST, leaving it readable. Where the
// request can give its body again (GetBody), it reads it into *buf, grown
// as needed, which it returns: the body then holds no reference to it.
func peekBody(req *http.Request, buf *[]byte) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		data, err := readBody(body, req.ContentLength, (*buf)[:0])
		body.Close()
		if cap(data) <= 64<<10 {
			*buf = data[:0]
		}
		return data, err
	}
	data, err := readBody(req.Body, req.ContentLength, nil)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(data))
	return data, nil
}

// readBody reads a request's body, of n bytes if n is known (positive),
// into dst's room, or a larger buffer if dst has too little.
func readBody(r io.Reader, n int64, dst []byte) ([]byte, error) {
	if n <= 0 || n > 64<<20 {
		b := bytes.NewBuffer(dst[:0])
		_, err := b.ReadFrom(r)
		return b.Bytes(), err
	}
	if int64(cap(dst)) < n+1 {
		dst = make([]byte, n+1)
	}
	data := dst[:n+1] // a byte more, to see the end
	k, err := io.ReadFull(r, data)
	switch err {
	case io.EOF, io.ErrUnexpectedEOF:
		return data[:k], nil
	case nil: // longer than said: read the rest
		rest, err := io.ReadAll(r)
		return append(data, rest...), err
	}
	return data[:k], err
}

// parseCall returns the call data encodes, or nil if it is not one.
func parseCall(data []byte) *callRef {
	if h, ok := readHeader(data); ok {
		return callOf(&h)
	}
	return nil
}

// readHeader returns the header of a POST's body as the go-sdk reads it,
// and false if the body is not one JSON-RPC message (an object). The body is
// read once: what a request's policy needs of it (the call, the _meta of
// 2026-07-28) is in the header and the params it holds.
func readHeader(data []byte) (wire.Header, bool) {
	if len(data) == 0 || data[0] != '{' {
		return wire.Header{}, false
	}
	h, err := wire.DecodeHeader(data)
	return h, err == nil
}

// callOf returns the call h is the header of, or nil if it is not one.
func callOf(h *wire.Header) *callRef {
	if h == nil || !h.IsCall() || h.Method == "" {
		return nil
	}
	ref := &callRef{jid: h.ID, method: h.Method}
	if taskMethods[h.Method] {
		var p struct {
			TaskID string `json:"taskId"`
		}
		if wire.Unmarshal(h.Params, &p) == nil { // as the go-sdk reads it
			ref.taskID = p.TaskID
		}
	}
	return ref
}

// taskMethods are the requests of the tasks extension that name a task.
var taskMethods = map[string]bool{"tasks/get": true, "tasks/update": true, "tasks/cancel": true}

// id returns the call's id as the go-sdk encodes it.
func (c *callRef) id() string { return encodeID(c.jid) }

// encodeID writes id as the go-sdk encodes it: encoding/json of its value,
// without escaping HTML.
func encodeID(id jsonrpc.ID) string {
	if n, ok := id.Raw().(int64); ok {
		return strconv.FormatInt(n, 10)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(id.Raw()) // a string: it cannot fail
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// oauthAdapter is the go-sdk OAuthHandler of one connection. It adds no
// header itself (auth.NewRoundTripper does, origin permitting); it is there
// to see the connection context and to decide what happens after a 401 or
// 403.
type oauthAdapter struct{ st *connState }

// TokenSource is called by the go-sdk before every request, with the
// connection's context: the connection's cleanup hangs on it.
func (a *oauthAdapter) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	a.st.watch(ctx)
	return nil, nil
}

// resendable are the methods the go-sdk may POST again after an OAuth flow:
// the handshake and the lists, which execute nothing on the server. A
// refused tools/call, resources/read, prompts/get or completion is never
// re-sent.
var resendable = map[string]bool{
	"initialize":               true,
	"server/discover":          true,
	"ping":                     true,
	"tools/list":               true,
	"resources/list":           true,
	"resources/templates/list": true,
	"prompts/list":             true,
}

// Authorize runs the credential source's flow. It returns nil, letting the
// go-sdk re-send the request, only for the resendable methods, which
// execute nothing; for any other request it returns ErrReauthorized so that
// the refused request is not sent twice.
func (a *oauthAdapter) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	az, ok := a.st.f.opts.Credentials.(auth.Authorizer)
	if !ok {
		resp.Body.Close()
		return fmt.Errorf("%s: %w: status %d", pkg, httpguard.Unauthorized, resp.StatusCode)
	}
	status := resp.StatusCode
	if err := az.Authorize(ctx, req, resp); err != nil {
		return fmt.Errorf("%s: %w: status %d: %w", pkg, httpguard.Unauthorized, status, err)
	}
	var buf []byte
	if body, err := peekBody(req, &buf); err == nil {
		if call := parseCall(body); call != nil && resendable[call.method] {
			return nil
		}
	}
	return fmt.Errorf("%w (status %d)", ErrReauthorized, status)
}
