package sse

import (
	"fmt"
	"net/http"

	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/internal/httpguard"
)

// The errors this transport shares with transport/streamablehttp are
// package transport's:
//   - transport.PolicyError, of Rule RuleInsecure, RuleCrossOrigin,
//     RuleCrossOriginRedirect or RuleRedirectedPOST; or of Rule
//     RuleTooManyRedirects: the session GET redirected more than
//     transport.MaxRedirects times.
//   - [transport.ErrAuth]: a 401 or 403. The request is not sent
//     again.
//   - transport.ErrLimit: an event over MaxEventBytes, a session stream
//     over MaxStreamBytes, a body over MaxBodyBytes. Reading stops at the
//     bound. A bound crossed on the session stream ends the session. Every
//     call in flight fails with it, and none is sent again.
//   - transport.ErrTimeout: a bound of [Timeouts]. An idle-read timeout
//     ends the session the same way.
//   - the types transport.LimitError (What is "sse event", "stream" or
//     "body"), transport.TimeoutError (Phase is "dial", "tls handshake",
//     "response header" or "idle read") and transport.RedirectError. Each
//     names "sse" in its Transport field.
//
// This transport's own errors are [StatusError], [EndpointError], and two
// that match transport.ErrProtocol: "sse: no endpoint event" (the session
// stream does not open with a valid endpoint event, or ends before it) and
// "sse: malformed message" (the session stream carries a message that is
// not JSON-RPC; it ends the session, every call in flight fails with it,
// and none is re-sent).
var (
	errNoEndpoint = &httpguard.Classed{Text: "sse: no endpoint event", Class: transport.ErrProtocol}
	errMalformed  = &httpguard.Classed{Text: "sse: malformed message", Class: transport.ErrProtocol}
)

// hintStreamable is what an error says when the server looks like a
// Streamable HTTP server.
const hintStreamable = "the server may speak Streamable HTTP: use transport/streamablehttp"

// A StatusError describes a response this transport does not accept: a
// status other than 2xx, or a session GET answered with something other than
// text/event-stream. It unwraps to its class, as [Factory.Classify] gives it:
// transport.ErrAuth (401, 403), transport.ErrServer or
// transport.ErrProtocol.
type StatusError struct {
	Method      string // the request's method
	Status      int    // the response's status code
	ContentType string // the response's Content-Type
	Body        string // the start of the response body, for the message
	// Hint names what to do instead, if anything: for a 400, 404 or 405 or
	// a JSON answer to the session GET, it suggests transport/streamablehttp.
	// This transport never switches by itself.
	Hint string
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("sse: %s answered %d", e.Method, e.Status)
	if e.Status >= 200 && e.Status <= 299 {
		s += fmt.Sprintf(" with Content-Type %q, want text/event-stream", e.ContentType)
	}
	if e.Body != "" {
		s += fmt.Sprintf(": %q", e.Body)
	}
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// Unwrap returns the error's class.
func (e *StatusError) Unwrap() error {
	switch {
	case e.Status == http.StatusUnauthorized, e.Status == http.StatusForbidden:
		return transport.ErrAuth
	case e.Status >= 500 && e.Status <= 599, e.Status == http.StatusTooManyRequests,
		e.Status >= 400 && e.Status <= 499 && e.Method == http.MethodPost:
		return transport.ErrServer
	}
	return transport.ErrProtocol
}

// An EndpointError is returned by Connect when the server's endpoint event
// names a message endpoint on another origin. The session is abandoned; no
// request goes to that origin. It unwraps to transport.ErrPolicy.
type EndpointError struct {
	Endpoint string // the event's data, as sent (truncated to 200 bytes)
	Origin   string // the origin it names, or "null"
}

func (e *EndpointError) Error() string {
	return fmt.Sprintf("sse: endpoint event names another origin: %q is on %s", e.Endpoint, e.Origin)
}

// Unwrap returns transport.ErrPolicy.
func (e *EndpointError) Unwrap() error { return transport.ErrPolicy }
