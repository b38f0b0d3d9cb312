package server

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/looprig/mcp/internal/hostorigin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SSEHandler serves a [Server] over the legacy HTTP+SSE transport of
// protocol revision 2024-11-05, for clients that still need it. A GET
// opens a session and its event stream. The stream's first event names
// the endpoint where the client POSTs its messages: this handler's path
// with a ?sessionid= query. It is the go-sdk's mcp.SSEHandler behind the same
// checks as [HTTPHandler] (Host, Origin, body bound; see [HTTPOptions]).
//
// A session lasts as long as its GET stream: it ends when the client
// disconnects or the handler is closed; at most HTTPOptions.MaxSessions
// are open at once (the next GET gets 503). A POST for a session that
// ended gets 404 Not Found. A POST's message is read as [HTTPHandler]
// reads one, and refused as it refuses one (400 and a JSON-RPC error on
// the POST, before the session sees it). The legacy transport has no
// resumption and no DELETE, and its session ids are always random:
// Options.SessionID, EventStoreBytes and IdleTimeout do not apply.
type SSEHandler struct {
	inner       *mcp.SSEHandler
	policy      *hostorigin.Policy
	maxBody     int64
	bodyTimeout time.Duration // 0: none
	maxSessions int           // -1: none

	// mu guards the fields below.
	mu      sync.Mutex
	closed  bool
	streams map[*context.CancelFunc]bool // one per open GET stream
	wg      sync.WaitGroup               // the open GET streams; Add only while !closed
}

// SSEHandler returns an http.Handler that serves s over the legacy
// HTTP+SSE transport. A nil opts means defaults. It returns an
// *OptionsError (matching [ErrInvalidOptions]) if an AllowedOrigins entry
// is not an origin.
func (s *Server) SSEHandler(opts *HTTPOptions) (*SSEHandler, error) {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	policy, err := newHostPolicy("SSEHandler", &o)
	if err != nil {
		return nil, err
	}
	h := &SSEHandler{
		policy:      policy,
		maxBody:     bound64(o.MaxBodyBytes, DefaultMaxBodyBytes),
		bodyTimeout: max(time.Duration(bound64(int64(o.BodyTimeout), int64(DefaultBodyTimeout))), 0),
		maxSessions: bound(o.MaxSessions, DefaultMaxSessions),
		streams:     make(map[*context.CancelFunc]bool),
	}
	h.inner = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.SSEOptions{
		MaxRequestBodyBytes:        h.maxBody,
		DisableLocalhostProtection: true, // policy is a superset that honours AllowedHosts
	})
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *SSEHandler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
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
	if req.Method == http.MethodPost {
		if in, r := readPOST(w, req, h.maxBody, h.bodyTimeout, false); in == nil {
			if r != nil {
				r.write(w)
			}
			return
		}
	}
	if req.Method != http.MethodGet {
		h.inner.ServeHTTP(w, req)
		return
	}
	// A GET is a session: let Close end it.
	ctx, cancel := context.WithCancel(req.Context())
	defer cancel()
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		http.Error(w, "mcp: server closed", http.StatusServiceUnavailable)
		return
	}
	if h.maxSessions >= 0 && len(h.streams) >= h.maxSessions {
		h.mu.Unlock()
		busy(h.maxSessions).write(w)
		return
	}
	h.streams[&cancel] = true
	h.wg.Add(1)
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.streams, &cancel)
		h.mu.Unlock()
		h.wg.Done()
	}()
	h.inner.ServeHTTP(w, req.WithContext(ctx))
}

// Close ends every open session and waits for their streams to end, and
// refuses every later request with 503 Service Unavailable. It does not
// close the listener or the http.Server. Close may be called more than
// once.
func (h *SSEHandler) Close() error {
	h.mu.Lock()
	h.closed = true
	streams := h.streams
	h.streams = make(map[*context.CancelFunc]bool)
	h.mu.Unlock()
	for cancel := range streams {
		(*cancel)()
	}
	h.wg.Wait()
	return nil
}
