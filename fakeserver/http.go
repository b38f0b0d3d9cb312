package fakeserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/looprig/mcp/internal/hostorigin"
	"github.com/looprig/mcp/protocol"
	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configures [Server.HTTPHandler] and [Server.StartHTTP].
// A nil *HTTPOptions means the defaults: Streamable HTTP with the server
// package's default bounds, event store on.
type HTTPOptions struct {
	// SSE serves the legacy 2024-11-05 HTTP+SSE shape (server.SSEHandler)
	// instead of Streamable HTTP.
	SSE bool
	// Stateless serves Streamable HTTP without sessions for any client
	// (server.HTTPOptions.Stateless). Every POST is answered on its own,
	// and GET and DELETE get 405. There is no event store, so a dropped
	// response stream cannot be resumed. A 2025-11-25 client cannot be
	// asked for input. Without it, 2025-11-25 clients get sessions and
	// 2026-07-28 requests are answered statelessly, as that revision has
	// no sessions. The HTTP faults act the same either way. Not with SSE.
	Stateless bool
	// Serving configures the handler underneath (Host and Origin checks,
	// body bound, event store, idle timeout). If nil, the server package's
	// defaults.
	Serving *server.HTTPOptions
	// Wrap, if set, wraps the protocol's handler: it sees every request the
	// faults let through, after they are logged (see [Request]), and its
	// answers are logged too. mcptest puts a fake authorization server's
	// protected resource there.
	Wrap func(http.Handler) http.Handler
	// OtherOrigin is the base URL (scheme://host:port) that FaultRedirect
	// and FaultForeignEndpoint send the client to. StartHTTP sets it to its
	// second listener. If empty, HTTPHandler panics when one of those
	// faults is scripted.
	OtherOrigin string
}

// An HTTPHandler serves a fake [Server] over HTTP with its scripted faults
// (the kinds marked (http) in [FaultKind]), and logs every request it sees
// (see [Request]). It is the server package's HTTPHandler (or SSEHandler)
// underneath: sessions are numbered fake-1, fake-2, … and every event is
// kept for resumption.
type HTTPHandler struct {
	s     *Server
	door  *hostorigin.Policy // Host and Origin, before anything is logged or served
	inner http.Handler
	close func() error
	sse   bool
	other string

	// mu guards log and fired.
	mu    sync.Mutex
	log   []Request
	fired map[int]bool // the once-only faults (drops) that have acted, by index
}

// A Request is what the fake server saw of one HTTP request, and how it
// answered. It never holds a credential: only whether there was one.
type Request struct {
	Method string // the HTTP method
	// RPC is the JSON-RPC method a POST carried ("initialize",
	// "tools/call", …), "response" for a reply to a server request, or ""
	// when the body is not JSON-RPC.
	RPC string
	// Tool is the tool a tools/call named.
	Tool string
	// Session is the Mcp-Session-Id header (the legacy SSE shape: the
	// sessionid query parameter).
	Session string
	// LastEventID is the Last-Event-ID header of a GET that resumes a stream.
	LastEventID string
	// SentEventID is the id of the last server-sent event written on the
	// response, as the client received it ("" if none had an id).
	SentEventID string
	// Authorization reports that the request carried an Authorization
	// header.
	Authorization bool
	// Status is the response status; 0 while no header is written (or when
	// a delayed request's client gave up).
	Status int
	// Fault is the fault that acted on the request, if any.
	Fault FaultKind
}

// String returns the request's one-line form, as the mcptest command
// `requests` prints it:
//
//	METHOD [RPC [TOOL]] [session=ID] [last-event-id=ID] [sent-event-id=ID] [auth] [fault=KIND] status=N
func (r Request) String() string {
	f := []string{r.Method}
	if r.RPC != "" {
		f = append(f, r.RPC)
	}
	if r.Tool != "" {
		f = append(f, r.Tool)
	}
	if r.Session != "" {
		f = append(f, "session="+r.Session)
	}
	if r.LastEventID != "" {
		f = append(f, "last-event-id="+r.LastEventID)
	}
	if r.SentEventID != "" {
		f = append(f, "sent-event-id="+r.SentEventID)
	}
	if r.Authorization {
		f = append(f, "auth")
	}
	if r.Fault != "" {
		f = append(f, "fault="+string(r.Fault))
	}
	return strings.Join(append(f, fmt.Sprintf("status=%d", r.Status)), " ")
}

// HTTPHandler returns a handler that serves s over Streamable HTTP (or,
// with opts.SSE, the legacy HTTP+SSE shape) at whatever path it is mounted
// on, with s's scripted HTTP faults. It returns:
//   - a [*PathError] for a fault that does not act there (see [Path]);
//   - an error wrapping [transport.ErrBadFault] if a redirect or
//     foreign-endpoint fault is scripted and opts.OtherOrigin is empty;
//   - an error if opts sets both SSE and Stateless;
//   - the server package's *server.OptionsError for an invalid
//     opts.Serving.
//
// Every request passes the Host and Origin checks of server.HTTPOptions
// (opts.Serving's AllowedHosts and AllowedOrigins) first: a refused one
// is answered 403 before it is logged or a fault acts on it.
//
// A wrapped go-sdk server ([Wrap] of an *mcp.Server) is served by the
// go-sdk's own handlers. They have an event store for resumption, and the
// go-sdk's own localhost protection beneath. Of opts.Serving only
// MaxBodyBytes, AllowedHosts and AllowedOrigins apply to it.
func (s *Server) HTTPHandler(opts *HTTPOptions) (*HTTPHandler, error) {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	if err := CheckPath(s.faults, Path{HTTP: true, SSE: o.SSE, Child: s.proc != nil}); err != nil {
		return nil, err
	}
	h := &HTTPHandler{s: s, sse: o.SSE, other: strings.TrimSuffix(o.OtherOrigin, "/"), fired: map[int]bool{}}
	for _, f := range s.faults {
		if (f.Kind == FaultRedirect || f.Kind == FaultForeignEndpoint) && h.other == "" {
			return nil, fmt.Errorf("fakeserver: fault %q: %w: it needs HTTPOptions.OtherOrigin", f, transport.ErrBadFault)
		}
	}
	if o.SSE && o.Stateless {
		return nil, errors.New("fakeserver: HTTPOptions: SSE and Stateless together")
	}
	var err error
	if h.inner, h.close, err = s.innerHandler(&o); err != nil {
		return nil, err
	}
	if h.door, err = door(o.Serving); err != nil {
		h.close()
		return nil, err
	}
	if o.Wrap != nil {
		h.inner = o.Wrap(h.inner)
	}
	return h, nil
}

// door returns the Host/Origin rule of serving (nil: the defaults), the
// rule of every listener of this module (internal/hostorigin).
func door(serving *server.HTTPOptions) (*hostorigin.Policy, error) {
	if serving == nil {
		serving = &server.HTTPOptions{}
	}
	p, err := hostorigin.New(hostorigin.Config{
		AllowedHosts:   serving.AllowedHosts,
		AllowedOrigins: serving.AllowedOrigins,
		HostsOption:    "HTTPOptions.Serving.AllowedHosts",
		OriginsOption:  "HTTPOptions.Serving.AllowedOrigins",
	})
	if err != nil {
		return nil, fmt.Errorf("fakeserver: HTTPOptions.Serving: %w", err)
	}
	return p, nil
}

// innerHandler returns the protocol's handler underneath the faults, and
// how to close it.
//
// A fake (and a wrapped server.Server) is served by the server package's
// handler. Stateful serving keeps sessions for the clients that have them
// (2025-11-25 and older). It answers 2026-07-28 requests, which have no
// sessions, statelessly. Stateless keeps no session for anyone. A wrapped
// go-sdk server gets the same routing over the go-sdk's own handlers.
func (s *Server) innerHandler(o *HTTPOptions) (http.Handler, func() error, error) {
	if s.srv != nil {
		var so server.HTTPOptions
		if o.Serving != nil {
			so = *o.Serving
		}
		so.Stateless = so.Stateless || o.Stateless
		if o.SSE {
			sh, err := s.srv.SSEHandler(&so)
			if err != nil {
				return nil, nil, err
			}
			return sh, sh.Close, nil
		}
		hh, err := s.srv.HTTPHandler(&so)
		if err != nil {
			return nil, nil, err
		}
		return hh, hh.Close, nil
	}
	if o.SSE {
		return mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil), s.closeSessions, nil
	}
	modern := s.statelessHandler(o)
	if o.Stateless {
		return modern, s.closeSessions, nil
	}
	legacy := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		EventStore:          mcp.NewMemoryEventStore(nil),
		MaxRequestBodyBytes: maxBody(o),
	})
	route := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isModern(r) {
			modern.ServeHTTP(w, r)
			return
		}
		legacy.ServeHTTP(w, r)
	})
	return route, s.closeSessions, nil
}

// modernRevision is the first revision without sessions.
const modernRevision = protocol.Revision20260728

// isModern reports whether r speaks 2026-07-28 or later: its
// Mcp-Protocol-Version header says so (the go-sdk's client sends it on
// every such request, server/discover included). The server package's
// handler also routes a sessionless POST whose _meta names a version.
func isModern(r *http.Request) bool {
	return r.Header.Get("Mcp-Protocol-Version") >= modernRevision
}

// statelessHandler serves every POST of a wrapped go-sdk server on its
// own, with no session and no event store: the go-sdk's stateless
// handler, behind the body bound.
func (s *Server) statelessHandler(o *HTTPOptions) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		MaxRequestBodyBytes: maxBody(o),
		// The POST is the whole call: a client that gives up on it cancels
		// the handler, a hung one included.
		PropagateRequestCancellation: true,
	})
}

func maxBody(o *HTTPOptions) int64 {
	if o.Serving != nil && o.Serving.MaxBodyBytes > 0 {
		return o.Serving.MaxBodyBytes
	}
	return server.DefaultMaxBodyBytes
}

// closeSessions ends every session of the server.
func (s *Server) closeSessions() error {
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
	return nil
}

// Close ends every call held by a hang or delay fault (see
// [Server.Close]), ends every session the handler started and refuses
// later requests (see server.HTTPHandler.Close).
func (h *HTTPHandler) Close() error {
	h.s.Close()
	return h.close()
}

// Requests returns a copy of the log of every request the handler has
// seen, in order of arrival. The log is not bounded: a fake server is for
// tests.
func (h *HTTPHandler) Requests() []Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Request(nil), h.log...)
}

// maxPeek bounds how much of a POST body is read to learn its JSON-RPC
// method; the body is passed on whole either way.
const maxPeek = 1 << 20

// ServeHTTP implements http.Handler.
// A request whose Host or Origin is refused (see server.HTTPOptions) is
// answered 403 before it is logged, faulted or served.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.door.Admit(w, r) {
		return
	}
	rq, idx := h.logRequest(r)
	if r.Method == http.MethodDelete {
		h.s.endSession(rq.Session) // before the go-sdk waits for the session's calls
	}
	lw := &logWriter{ResponseWriter: w, h: h, idx: idx}
	var out http.ResponseWriter = lw
	for i, f := range h.s.faults {
		if !f.HTTPOnly() || !h.matches(f, r, rq) {
			continue
		}
		var answered bool
		if out, answered = h.applyFault(i, f, r, rq, idx, lw, out); answered {
			return
		}
	}
	h.inner.ServeHTTP(out, r)
}

// logRequest appends what is learnt of r to the log, and returns it with
// its index in the log.
func (h *HTTPHandler) logRequest(r *http.Request) (rq Request, idx int) {
	rq = Request{
		Method:        r.Method,
		Session:       r.Header.Get("Mcp-Session-Id"),
		LastEventID:   r.Header.Get("Last-Event-ID"),
		Authorization: r.Header.Get("Authorization") != "",
	}
	if rq.Session == "" {
		rq.Session = r.URL.Query().Get("sessionid")
	}
	if r.Method == http.MethodPost && r.Body != nil {
		rq.RPC, rq.Tool = peekRPC(r)
	}
	h.mu.Lock()
	idx = len(h.log)
	h.log = append(h.log, rq)
	h.mu.Unlock()
	return rq, idx
}

// applyFault applies fault f, the i'th, which matches request r (rq, at
// idx in the log): it either wraps out, the writer the protocol answers
// through, and returns it, or answers r itself through lw and returns
// answered.
func (h *HTTPHandler) applyFault(i int, f Fault, r *http.Request, rq Request, idx int, lw *logWriter, out http.ResponseWriter) (_ http.ResponseWriter, answered bool) {
	switch f.Kind {
	case FaultDrop, FaultDropNoID:
		h.mu.Lock()
		once := !h.fired[i]
		h.fired[i] = true
		h.mu.Unlock()
		if !once {
			return out, false
		}
		h.setFault(idx, f.Kind)
		out = &dropWriter{ResponseWriter: out, after: f.Events, stripIDs: f.Kind == FaultDropNoID}
	case FaultDelayHeaders:
		h.setFault(idx, f.Kind)
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return out, true // the client gave up: the request never reaches the protocol
		}
	case FaultUnauthorized:
		h.setFault(idx, f.Kind)
		lw.Header().Set("WWW-Authenticate", `Bearer realm="fakeserver", error="invalid_token", error_description="scripted 401"`)
		http.Error(lw, "fakeserver: unauthorized (scripted)", http.StatusUnauthorized)
		return out, true
	case FaultForbidden:
		h.setFault(idx, f.Kind)
		lw.Header().Set("WWW-Authenticate", `Bearer realm="fakeserver", error="insufficient_scope", error_description="scripted 403"`)
		http.Error(lw, "fakeserver: forbidden (scripted)", http.StatusForbidden)
		return out, true
	case FaultGone:
		h.setFault(idx, f.Kind)
		h.endSession(rq.Session)
		http.Error(lw, "fakeserver: session not found (scripted)", http.StatusNotFound)
		return out, true
	case FaultServerError:
		h.setFault(idx, f.Kind)
		status := cmp0(f.Status, http.StatusInternalServerError)
		http.Error(lw, fmt.Sprintf("fakeserver: %d %s (scripted)", status, http.StatusText(status)), status)
		return out, true
	case FaultNoGet:
		h.setFault(idx, f.Kind)
		lw.Header().Set("Allow", "POST, DELETE")
		http.Error(lw, "fakeserver: no standalone stream (scripted)", http.StatusMethodNotAllowed)
		return out, true
	case FaultRedirect:
		h.setFault(idx, f.Kind)
		http.Redirect(lw, r, h.other+r.URL.RequestURI(), cmp0(f.Status, http.StatusTemporaryRedirect))
		return out, true
	case FaultForeignEndpoint:
		h.setFault(idx, f.Kind)
		out = &endpointWriter{ResponseWriter: out, other: h.other}
	}
	return out, false
}

// matches reports whether fault f applies to request r (rq is what was
// learnt of it).
func (h *HTTPHandler) matches(f Fault, r *http.Request, rq Request) bool {
	call := rq.RPC == "tools/call" && rq.Tool == f.Tool
	switch f.Kind {
	case FaultDrop, FaultDropNoID, FaultGone:
		return call
	case FaultDelayHeaders:
		return r.Method == http.MethodPost && (f.Tool == "" || call)
	case FaultUnauthorized, FaultForbidden, FaultRedirect, FaultServerError:
		return f.Tool == "" || call
	case FaultNoGet:
		return r.Method == http.MethodGet
	case FaultForeignEndpoint:
		return h.sse && r.Method == http.MethodGet
	}
	return false
}

func (h *HTTPHandler) setFault(idx int, k FaultKind) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.log[idx].Fault = k
}

// endSession closes the session with the given id, if it is open.
func (h *HTTPHandler) endSession(id string) {
	for ss := range h.s.mcp.Sessions() {
		if id != "" && ss.ID() == id {
			ss.Close()
		}
	}
}

// peekRPC reads the JSON-RPC method (and tool) of a POST, leaving the body
// whole for the protocol.
func peekRPC(r *http.Request) (method, tool string) {
	head, err := io.ReadAll(io.LimitReader(r.Body, maxPeek))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	if err != nil {
		return "", ""
	}
	var msg struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(head, &msg) != nil {
		return "", ""
	}
	switch {
	case msg.Method == "tools/call":
		return msg.Method, msg.Params.Name
	case msg.Method != "":
		return msg.Method, ""
	case msg.ID != nil:
		return "response", ""
	}
	return "", ""
}
