package server

import (
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// serveStateful serves req on the stateful handler. A POST without a
// session may open one: it is admitted only while the sessions open, and
// being opened, are fewer than MaxSessions.
func (h *HTTPHandler) serveStateful(w http.ResponseWriter, req *http.Request, in *inbound) {
	if req.Method != http.MethodPost || req.Header.Get("Mcp-Session-Id") != "" {
		h.stateful.ServeHTTP(w, req)
		return
	}
	if !h.admit() {
		r := busy(h.maxSessions)
		if in != nil {
			if _, id, ok := in.single(); ok {
				r.id = id
			}
		}
		r.write(w)
		return
	}
	h.stateful.ServeHTTP(w, req)
	h.opened(w.Header().Get("Mcp-Session-Id"))
}

// busy is the refusal of a session past the bound of max.
func busy(max int) *refusal {
	return &refusal{status: http.StatusServiceUnavailable, code: jsonrpc.CodeInternalError, retry: true,
		msg: fmt.Sprintf("mcp: the server is busy: %d sessions are open, the most it keeps (HTTPOptions.MaxSessions); retry later", max)}
}

// admit counts one more session being opened, if the bound allows it. At
// the bound it first forgets the sessions that have ended.
func (h *HTTPHandler) admit() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.maxSessions >= 0 && len(h.ids)+h.opening >= h.maxSessions {
		h.pruneLocked()
		if len(h.ids)+h.opening >= h.maxSessions {
			return false
		}
	}
	h.opening++
	return true
}

// opened ends an admission: id is the session it opened, or "". If the
// handler was closed meanwhile, the session is ended at once.
func (h *HTTPHandler) opened(id string) {
	h.mu.Lock()
	h.opening--
	closed := h.closed
	if !closed && id != "" && !h.ids[id] {
		h.ids[id] = true
		if len(h.ids) > h.prune {
			h.pruneLocked()
			h.prune = max(64, 2*len(h.ids))
		}
	}
	h.mu.Unlock()
	if closed && id != "" {
		h.closeSessions(map[string]bool{id: true})
	}
}

// pruneLocked forgets the sessions that have ended (deleted, timed out,
// closed). h.mu is held.
func (h *HTTPHandler) pruneLocked() {
	live := make(map[string]bool, len(h.ids))
	for ss := range h.s.mcp.Sessions() {
		if h.ids[ss.ID()] {
			live[ss.ID()] = true
		}
	}
	h.ids = live
}
