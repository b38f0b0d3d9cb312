package main

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// A sessionEnd says when the session a proxy serves has ended, as the
// client ends it:
//
//   - a session of 2025-11-25 (or earlier) with the DELETE that ends it;
//   - a session of 2026-07-28, which has no DELETE, when the client closes
//     the subscriptions/listen stream it holds open for list changes, and
//     no other request is in flight. (The go-sdk's client, and so this
//     module's, opens one at Connect when the server announces list
//     changes, and ends it at Close.)
//   - any session, when idle is set and no request has been in flight for
//     idle. That ends a session whose client neither deletes nor listens:
//     a stateless 2025-11-25 session, or a 2026-07-28 server that
//     announces no list changes.
//
// A listen the server ends, or one for resource updates (Unsubscribe ends
// those), ends nothing.
type sessionEnd struct {
	idle  time.Duration
	ended chan struct{}
	once  sync.Once

	mu       sync.Mutex // guards the fields below
	open     int        // requests in flight
	unlisted bool       // the client closed its list-change listen
	timer    *time.Timer
}

func newSessionEnd(idle time.Duration) *sessionEnd {
	e := &sessionEnd{idle: idle, ended: make(chan struct{})}
	e.arm()
	return e
}

// A requestKind is what a request means for the end of its session.
type requestKind int

const (
	otherRequest requestKind = iota
	deleteRequest
	listChangesListen // a subscriptions/listen for list changes
)

// kindOf returns what r is, body its body as read (sessionProxy.readBody).
func kindOf(r *http.Request, body []byte) requestKind {
	switch r.Method {
	case http.MethodDelete:
		return deleteRequest
	case http.MethodPost:
	default:
		return otherRequest
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Notifications struct {
				Tools     bool `json:"toolsListChanged"`
				Prompts   bool `json:"promptsListChanged"`
				Resources bool `json:"resourcesListChanged"`
			} `json:"notifications"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method != "subscriptions/listen" || len(m.ID) == 0 {
		return otherRequest
	}
	if n := m.Params.Notifications; n.Tools || n.Prompts || n.Resources {
		return listChangesListen
	}
	return otherRequest
}

// begin notes a request in flight.
func (e *sessionEnd) begin() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.open++
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
}

// done notes the end of a request of kind; gone says the client went away
// before its response ended (it closed the stream).
func (e *sessionEnd) done(kind requestKind, gone bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.open--
	switch {
	case kind == deleteRequest:
		e.end()
		return
	case kind == listChangesListen && gone:
		e.unlisted = true
	}
	if e.open > 0 {
		return
	}
	if e.unlisted {
		e.end()
		return
	}
	e.armLocked()
}

func (e *sessionEnd) arm() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.armLocked()
}

// armLocked starts the idle bound, if there is one. e.mu is held.
func (e *sessionEnd) armLocked() {
	if e.idle > 0 && e.timer == nil {
		e.timer = time.AfterFunc(e.idle, func() {
			e.mu.Lock()
			defer e.mu.Unlock()
			if e.open == 0 {
				e.end()
			}
		})
	}
}

// end ends the session, once. e.mu is held.
func (e *sessionEnd) end() {
	e.once.Do(func() { close(e.ended) })
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
}

// stop stops the idle bound.
func (e *sessionEnd) stop() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
}
