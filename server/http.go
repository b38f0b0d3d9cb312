package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/looprig/mcp/internal/hostorigin"
	"github.com/looprig/mcp/protocol"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Default bounds of HTTP serving, used when the corresponding [HTTPOptions]
// field is zero.
const (
	// DefaultMaxBodyBytes bounds the body of one HTTP request: 4 MiB, the
	// go-sdk's own default. It leaves room for the JSON-RPC envelope around
	// a tool call's arguments, which Options.MaxInputBytes bounds separately
	// (1 MiB by default).
	DefaultMaxBodyBytes = 4 << 20
	// DefaultEventStoreBytes bounds the memory the event store keeps for
	// resumption, across all sessions of one handler: 10 MiB. When it is
	// full, the oldest events of the oldest streams are dropped first; a
	// client that resumes from a dropped event gets 400 and must start over.
	DefaultEventStoreBytes = 10 << 20
	// DefaultIdleTimeout ends a Streamable HTTP session that has received no
	// request for this long: 30 minutes.
	DefaultIdleTimeout = 30 * time.Minute
	// DefaultMaxSessions bounds the sessions one handler keeps open at
	// once: 10,000. A session of this package costs about 5 KiB of heap and
	// one goroutine while idle (BenchmarkSessionMemory measures it), so the
	// bound holds an idle handler's sessions to about 50 MiB.
	DefaultMaxSessions = 10_000
	// DefaultBodyTimeout bounds the time to read the body of one request:
	// 30 seconds.
	DefaultBodyTimeout = 30 * time.Second
)

// HTTPOptions configures [Server.HTTPHandler] and [Server.SSEHandler]. The
// zero value (or a nil *HTTPOptions) gives the documented defaults.
//
// # DNS rebinding
//
// A web page can make a browser send requests to a server on the user's own
// machine, under a host name the attacker controls (DNS rebinding), or from
// its own origin (cross-origin requests). Every request is therefore checked
// before the protocol sees it, and refused with 403 Forbidden and a plain
// text body that says which header was refused and which option admits it.
//
// This is the rule of every HTTP listener of this module, written once:
// mcprig record and replay with --listen, the fake servers, the fake
// authorization server. "Served on loopback" below means the request
// arrived on a loopback address (127.0.0.0/8 or ::1, from
// http.LocalAddrContextKey). It also means an address the handler cannot
// see: a request that did not come through a net/http server. "A loopback
// name" is localhost, a name under .localhost, or a loopback IP address in
// its usual form. It may be in any case, without a trailing dot.
//
// Host header:
//   - AllowedHosts set: the Host header's name must be one of them (see
//     AllowedHosts), whatever address the request arrived on.
//   - AllowedHosts empty, served on loopback: the Host header must be a
//     loopback name, with or without a port.
//   - AllowedHosts empty, served on any other address: not checked.
//
// Origin header (browsers send it; other clients usually do not, and a
// request without one is accepted). "null", an empty value, a second
// Origin header, or a value that is not scheme://host[:port] is refused.
//   - AllowedOrigins set: the Origin must be one of them.
//   - AllowedOrigins empty, served on loopback: the Origin's host must be a
//     loopback name (http or https, any port). Other web applications on the
//     same machine are thereby trusted; set AllowedOrigins to narrow it.
//   - AllowedOrigins empty, served on any other address: the Origin must be
//     the request's own (its host and port equal the Host header).
type HTTPOptions struct {
	// Stateless serves every request on its own, as a 2026-07-28 request
	// always is. No session is kept. So any replica of the server can
	// answer any request, and nothing is lost when a process restarts.
	// Clients of 2025-11-25 and older are then served without sessions
	// too: no Mcp-Session-Id, no GET stream (405), no DELETE, no
	// resumption, no event store. A tool that needs the user fails for
	// them with CallInputUnavailable, since they can be asked only in a
	// session.
	//
	// If false (the default), 2026-07-28 requests are still served
	// statelessly, and older clients get stateful sessions with all of the
	// above. That suits most servers: one process serves every client
	// fully. Set Stateless for several replicas behind a load balancer
	// without session affinity, or a platform that keeps nothing between
	// requests. EventStoreBytes and IdleTimeout do not apply to stateless
	// serving; SSEHandler ignores Stateless.
	Stateless bool
	// AllowedHosts are the Host header values accepted, as "name" (any port)
	// or "name:port", compared case-insensitively; IPv6 addresses in
	// brackets. If empty, see "DNS rebinding" above.
	AllowedHosts []string
	// AllowedOrigins are the Origin header values accepted, as
	// scheme://host[:port] (a default port may be written or not). For an
	// invalid entry HTTPHandler and SSEHandler return an *OptionsError. If empty, see
	// "DNS rebinding" above.
	AllowedOrigins []string
	// MaxBodyBytes bounds the body of one request. A larger body is refused
	// with 413 Request Entity Too Large before any of it reaches the
	// protocol. A declared Content-Length is refused at once, a chunked
	// body as soon as the bound is passed. If zero, defaults to [DefaultMaxBodyBytes];
	// negative means no bound.
	MaxBodyBytes int64
	// EventStoreBytes bounds the memory of the event store that lets a
	// Streamable HTTP client resume a dropped stream with Last-Event-ID (the
	// go-sdk's mcp.MemoryEventStore, shared by the handler's sessions). If
	// zero, defaults to [DefaultEventStoreBytes]; negative means no event
	// store, and so no resumption. Not used by SSEHandler.
	EventStoreBytes int
	// IdleTimeout ends a Streamable HTTP session that has received no
	// request for this long (an open GET stream does not count as a
	// request). If zero, defaults to [DefaultIdleTimeout]; negative means
	// sessions end only when the client deletes them or the handler is
	// closed. Not used by SSEHandler, whose sessions end with their stream.
	IdleTimeout time.Duration
	// MaxSessions bounds the sessions the handler keeps open at once
	// (SSEHandler: its open session streams). Past it, a request that would
	// open one more is refused before any of it is served. It gets 503
	// Service Unavailable, Retry-After, and the JSON-RPC error -32603
	// saying the server is busy. No session is ended to make room, in use
	// or not. A session ends only when its client deletes it, IdleTimeout
	// passes, or the handler is closed. A session being opened counts from the start
	// of its initialize request. 2026-07-28 requests keep no session and
	// are not counted. If zero, defaults to [DefaultMaxSessions]; negative
	// means no bound.
	MaxSessions int
	// BodyTimeout bounds the time to read the body of one POST, from the
	// moment the handler starts reading it. A body still arriving after it
	// is cut and answered 408 Request Timeout (if the client still
	// listens). Nothing of it is served. The http.Server's ReadTimeout, if set and
	// shorter, bounds it instead. It needs a net/http server (it sets the
	// connection's read deadline through http.ResponseController). If zero,
	// defaults to [DefaultBodyTimeout]; negative means no bound.
	BodyTimeout time.Duration
}

// newHostPolicy returns the DNS rebinding policy of o (internal/hostorigin,
// the rule of every listener of this module); an invalid AllowedOrigins
// entry is an *OptionsError of method.
func newHostPolicy(method string, o *HTTPOptions) (*hostorigin.Policy, error) {
	p, err := hostorigin.New(hostorigin.Config{
		AllowedHosts:   o.AllowedHosts,
		AllowedOrigins: o.AllowedOrigins,
		HostsOption:    "HTTPOptions.AllowedHosts",
		OriginsOption:  "HTTPOptions.AllowedOrigins",
	})
	var ee *hostorigin.EntryError
	if errors.As(err, &ee) {
		return nil, &OptionsError{Func: method, Option: "AllowedOrigins[" + strconv.Itoa(ee.Index) + "]", Value: ee.Value,
			Err: fmt.Errorf("auth: invalid origin: %w", ee.Err)}
	}
	return p, err
}

// guard applies the checks every request gets before the protocol sees it:
// the handler is open, the Host and Origin are allowed, and a declared body
// length is within the bound.
func guard(w http.ResponseWriter, req *http.Request, closed bool, policy *hostorigin.Policy, maxBody int64) bool {
	if closed {
		http.Error(w, "mcp: server closed", http.StatusServiceUnavailable)
		return false
	}
	if !policy.Admit(w, req) {
		return false
	}
	if maxBody > 0 && req.ContentLength > maxBody {
		http.Error(w, fmt.Sprintf("mcp: request body of %d bytes exceeds the %d-byte limit", req.ContentLength, maxBody), http.StatusRequestEntityTooLarge)
		return false
	}
	return true
}

func bound64(v, def int64) int64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return -1
	}
	return v
}

// HTTPHandler serves a [Server] over Streamable HTTP, to clients of every
// protocol revision, at whatever path it is mounted on. It is the go-sdk's
// mcp.StreamableHTTPHandler behind this package's checks. There are two of
// them: stateful and stateless. See [HTTPOptions] for what is refused
// before the protocol sees a request, and HTTPOptions.Stateless for the
// two modes. See the package documentation ("Hostile clients") for how
// each request is read before it is served.
//
// A request on 2026-07-28 or later stands alone, as that revision defines.
// It has no initialize, no session id, no GET stream or DELETE. Its
// version, capabilities and client info travel in its _meta. Its
// Mcp-Method, Mcp-Name and Mcp-Param-* headers must match its body, else
// it gets 400 and the JSON-RPC error -32020, header mismatch. The server
// answers server/discover and subscriptions/listen. Such a request is
// served statelessly in either mode. It is recognised by its
// Mcp-Protocol-Version header. A POST without a session may have that
// header missing or older. It is then recognised by the protocol version
// in the _meta of its requests, which the header must then match (-32020).
// In the default mode, a POST without a session may be none of these and
// not an initialize. It names no revision it can be served on. It is
// refused with 400 before anything runs:
//   - -32020 when it has no Mcp-Protocol-Version header (a 2026-07-28
//     request needs one);
//   - -32600 when the header names an older revision (whose requests need
//     a session).
//
// Sessions of older revisions (2025-11-25, 2025-06-18, 2025-03-26) are
// stateful unless HTTPOptions.Stateless is set. A session's id is
// Options.SessionID's value when set, a random id from the go-sdk
// otherwise. A request for a session that ended (deleted, timed out,
// closed) gets 404 Not Found, which tells the client to start a new one.
// POST carries requests, GET opens the stream of server-initiated
// messages, DELETE ends a session. Every message a session sends on a
// stream is kept in a bounded event store, so a client whose stream
// dropped can resume it with Last-Event-ID and read what it missed. At
// most HTTPOptions.MaxSessions sessions are open at once.
//
// A session belongs to the principal that opened it, when the handler is
// behind the go-sdk's auth middleware. That is auth.RequireBearerToken,
// which puts the token's auth.TokenInfo in the request's context. A
// request may name the session with another principal's token, or none.
// It is refused with 403 Forbidden before it is served, as the go-sdk's
// own handler refuses it.
type HTTPHandler struct {
	s           *Server
	stateful    *mcp.StreamableHTTPHandler // sessions before 2026-07-28; nil when Stateless
	stateless   *mcp.StreamableHTTPHandler // requests on 2026-07-28; all requests when Stateless
	policy      *hostorigin.Policy
	maxBody     int64
	bodyTimeout time.Duration // 0: none
	maxSessions int           // -1: none

	// mu guards the fields below.
	mu       sync.Mutex
	closed   bool
	ids      map[string]bool // ids of sessions this handler started and has not seen end
	opening  int             // session-less POSTs on the stateful handler, each of which may open one
	prune    int             // prune ids when it grows past this
	requests map[*context.CancelFunc]bool
	wg       sync.WaitGroup // the stateless requests in flight; Add only while !closed
}

// HTTPHandler returns an http.Handler that serves s over Streamable HTTP.
// A nil opts means defaults. It returns an *OptionsError (matching
// [ErrInvalidOptions]) if an AllowedOrigins entry is not an origin.
func (s *Server) HTTPHandler(opts *HTTPOptions) (*HTTPHandler, error) {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	policy, err := newHostPolicy("HTTPHandler", &o)
	if err != nil {
		return nil, err
	}
	h := &HTTPHandler{
		s:           s,
		policy:      policy,
		maxBody:     bound64(o.MaxBodyBytes, DefaultMaxBodyBytes),
		bodyTimeout: max(time.Duration(bound64(int64(o.BodyTimeout), int64(DefaultBodyTimeout))), 0),
		maxSessions: bound(o.MaxSessions, DefaultMaxSessions),
		ids:         make(map[string]bool),
		prune:       64,
		requests:    make(map[*context.CancelFunc]bool),
	}
	getServer := func(*http.Request) *mcp.Server { return s.mcp }
	h.stateless = mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		Logger:                     s.logger,
		MaxRequestBodyBytes:        h.maxBody,
		DisableLocalhostProtection: true, // policy is a superset that honours AllowedHosts
		// A 2026-07-28 request's reply goes on its own response, and there is
		// no resumption: once the HTTP request ends, the reply cannot be
		// delivered, so the handler's context ends with it.
		PropagateRequestCancellation: true,
	})
	if o.Stateless {
		return h, nil
	}
	sopts := &mcp.StreamableHTTPOptions{
		Logger:                     s.logger,
		MaxRequestBodyBytes:        h.maxBody,
		DisableLocalhostProtection: true,
	}
	if n := o.EventStoreBytes; n >= 0 {
		store := mcp.NewMemoryEventStore(nil)
		store.SetMaxBytes(int(bound64(int64(n), DefaultEventStoreBytes)))
		sopts.EventStore = store
	}
	switch {
	case o.IdleTimeout == 0:
		sopts.SessionTimeout = DefaultIdleTimeout
	case o.IdleTimeout > 0:
		sopts.SessionTimeout = o.IdleTimeout
	}
	h.stateful = mcp.NewStreamableHTTPHandler(getServer, sopts)
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if !guard(w, req, closed, h.policy, h.maxBody) {
		return
	}
	if r := duplicateHeader(req); r != nil {
		r.write(w)
		return
	}
	var in *inbound
	if req.Method == http.MethodPost {
		var r *refusal
		if in, r = readPOST(w, req, h.maxBody, h.bodyTimeout, true); in == nil {
			if r != nil {
				r.write(w)
			}
			return
		}
	}
	stateless, r := h.route(req, in)
	if r == nil && stateless {
		r = h.s.checkParamHeaders(req, in)
	}
	var task, listen *jsonrpc.Request
	var taskID []byte
	var watch []string
	if r == nil && stateless {
		task, taskID, _ = h.taskRequest(req, in)
		listen, watch = h.listenRequest(req, in)
	}
	switch {
	case r != nil:
		r.write(w)
	case listen != nil:
		h.serveTaskListen(w, req, listen, watch)
	case task != nil && isTaskMethod(task.Method):
		h.serveTaskMethod(w, req, task, taskID)
	case task != nil:
		h.serveTaskCall(w, req, task)
	case stateless:
		h.serveStateless(w, req)
	default:
		h.serveStateful(w, req, in)
	}
}

// route decides which handler serves req. It reads req's body (in, nil for
// a request without one) as the go-sdk will. The stateless handler serves
// a request on 2026-07-28 or later. route knows one by its
// Mcp-Protocol-Version header, compared as the go-sdk compares it. So an
// unknown later version is answered by the revision that lists the
// supported ones. For a POST without a session, it goes by the protocol
// version in the _meta of its requests. The stateful handler serves
// everything else that names its revision: a request of a session, an
// initialize, a GET or DELETE. A POST without a session that names none is
// refused (see HTTPHandler). It is accepted with nothing run when it holds
// no call.
func (h *HTTPHandler) route(req *http.Request, in *inbound) (stateless bool, r *refusal) {
	header := req.Header.Get("Mcp-Protocol-Version")
	switch {
	case header >= protocol.Revision20260728, h.stateful == nil:
		return true, nil
	case in == nil, req.Header.Get("Mcp-Session-Id") != "", in.msgs == nil:
		return false, nil // the go-sdk refuses a body it cannot read
	case in.carriesVersion():
		return true, nil
	case in.has("initialize"):
		return false, nil
	case header == "" && !slices.ContainsFunc(in.requests(), (*jsonrpc.Request).IsCall):
		// Notifications (or responses) alone, outside any session, ask
		// for nothing: they are accepted, and nothing runs. The go-sdk's
		// own client sends a 2026-07-28 notifications/cancelled with no
		// _meta and no header (a stateless request is cancelled by
		// closing its stream); refusing it would fail every
		// cancellation it sends.
		return false, &refusal{status: http.StatusAccepted}
	}
	var id []byte
	if _, raw, ok := in.single(); ok {
		id = raw
	}
	if header == "" {
		return false, &refusal{status: http.StatusBadRequest, code: mcp.CodeHeaderMismatch, id: id,
			msg: "mcp: the request names no protocol revision: without a session, a request must be an initialize (2025-11-25 and earlier) or carry the Mcp-Protocol-Version header and params._meta[\"" + mcp.MetaKeyProtocolVersion + "\"] (2026-07-28)"}
	}
	return false, &refusal{status: http.StatusBadRequest, code: jsonrpc.CodeInvalidRequest, id: id,
		msg: fmt.Sprintf("mcp: a %s request other than initialize needs the session that an initialize opens (Mcp-Session-Id)", header)}
}

// serveStateless serves one request without a session, so that Close can
// end it.
func (h *HTTPHandler) serveStateless(w http.ResponseWriter, req *http.Request) {
	ctx, end, ok := h.track(w, req)
	if !ok {
		return
	}
	defer end()
	h.stateless.ServeHTTP(w, req.WithContext(context.WithValue(ctx, statelessKey{}, ctx)))
}

// track returns the context of a stateless request, which Close ends, and
// the function to call when it is served; false (and 503 sent) when the
// handler is closed.
func (h *HTTPHandler) track(w http.ResponseWriter, req *http.Request) (context.Context, func(), bool) {
	ctx, cancel := context.WithCancel(req.Context())
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		cancel()
		http.Error(w, "mcp: server closed", http.StatusServiceUnavailable)
		return nil, nil, false
	}
	h.requests[&cancel] = true
	h.wg.Add(1)
	h.mu.Unlock()
	return ctx, func() {
		cancel()
		h.mu.Lock()
		delete(h.requests, &cancel)
		h.mu.Unlock()
		h.wg.Done()
	}, true
}

// Close ends every session the handler started and every stateless request
// in flight (a subscriptions/listen stream among them), and refuses every
// later request with 503 Service Unavailable; open streams end. The
// handlers of stateless requests see their context end, as when the
// client goes away and the reply can no longer be delivered. Close waits
// for them to return. The handlers of a session's requests run on, since
// the go-sdk ends a session without cancelling them. It does not close the listener
// or the http.Server. Call it before http.Server.Shutdown, which waits for
// open streams to end. Close may be called more than once.
func (h *HTTPHandler) Close() error {
	h.mu.Lock()
	h.closed = true
	ids := h.ids
	h.ids = make(map[string]bool)
	requests := h.requests
	h.requests = make(map[*context.CancelFunc]bool)
	h.mu.Unlock()
	h.closeSessions(ids)
	for cancel := range requests {
		(*cancel)()
	}
	h.wg.Wait()
	return nil
}

func (h *HTTPHandler) closeSessions(ids map[string]bool) {
	for ss := range h.s.mcp.Sessions() {
		if ids[ss.ID()] {
			ss.Close()
		}
	}
}
