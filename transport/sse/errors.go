package sse

import (
	"errors"
	"fmt"
	"time"
)

var (
	// ErrInsecure is returned by [New] when the endpoint is plain http on a
	// host that is not loopback and Options.AllowInsecureHTTP is not set, or
	// when the TLS configuration allows versions below TLS 1.2.
	ErrInsecure = errors.New("sse: insecure endpoint")

	// ErrCrossOrigin is returned when a request would go to an origin other
	// than the endpoint's. Nothing is sent.
	ErrCrossOrigin = errors.New("sse: request to another origin")

	// ErrCrossOriginEndpoint is returned by Connect when the server's
	// endpoint event names a message endpoint on another origin. The
	// session is abandoned; no request goes to that origin.
	ErrCrossOriginEndpoint = errors.New("sse: endpoint event names another origin")

	// ErrNoEndpoint is returned by Connect when the session stream does not
	// open with a valid endpoint event, or ends before it.
	ErrNoEndpoint = errors.New("sse: no endpoint event")

	// ErrCrossOriginRedirect is returned when the server redirects a request
	// to another origin. The redirect is not followed.
	ErrCrossOriginRedirect = errors.New("sse: redirect to another origin")

	// ErrRedirectedPOST is returned when the server answers a POST with a
	// redirect of any kind. It is not followed: the message may already
	// have been processed, and a 307 or 308 would send it again.
	ErrRedirectedPOST = errors.New("sse: redirect of a POST")

	// ErrTooManyRedirects is returned when the session GET is redirected
	// more than 5 times within the origin.
	ErrTooManyRedirects = errors.New("sse: too many redirects")

	// ErrUnauthorized is returned when the server answers 401 or 403. The
	// request is not re-sent.
	ErrUnauthorized = errors.New("sse: unauthorized")

	// ErrUnexpectedResponse is returned when the server answers with a
	// status other than 2xx, 401 or 403, or answers the session GET with
	// something other than an event stream. The error ([StatusError]) says
	// when the server may speak Streamable HTTP instead.
	ErrUnexpectedResponse = errors.New("sse: unexpected response")

	// ErrLimit is returned when the server sends more than a bound of
	// [Limits]: an event over MaxEventBytes, a session stream over
	// MaxStreamBytes, a body over MaxBodyBytes. Reading stops at the bound.
	// A bound crossed on the session stream ends the session: every call in
	// flight fails with it, and none is re-sent.
	ErrLimit = errors.New("sse: response over limit")

	// ErrTimeout is returned when a dial, TLS handshake, response header or
	// idle read exceeds its bound in [Timeouts]. An idle-read timeout ends
	// the session: every call in flight fails with it, and none is re-sent.
	ErrTimeout = errors.New("sse: timeout")
)

// hintStreamable is what an error says when the server looks like a
// Streamable HTTP server.
const hintStreamable = "the server may speak Streamable HTTP: use transport/streamablehttp"

// A StatusError describes a response this transport does not accept: a
// status other than 2xx, or a session GET answered with something other
// than text/event-stream. It unwraps to [ErrUnauthorized] (401, 403) or
// [ErrUnexpectedResponse].
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

func (e *StatusError) Unwrap() error {
	if e.Status == 401 || e.Status == 403 {
		return ErrUnauthorized
	}
	return ErrUnexpectedResponse
}

// An EndpointError describes an endpoint event naming another origin. It
// unwraps to [ErrCrossOriginEndpoint].
type EndpointError struct {
	Endpoint string // the event's data, as sent (truncated to 200 bytes)
	Origin   string // the origin it names, or "null"
	Err      error
}

func (e *EndpointError) Error() string {
	return fmt.Sprintf("%v: %q is on %s", e.Err, e.Endpoint, e.Origin)
}

func (e *EndpointError) Unwrap() error { return e.Err }

// A LimitError says which bound of [Limits] the server crossed. It unwraps
// to [ErrLimit].
type LimitError struct {
	What  string // "sse event", "stream", "body"
	Limit int64  // the bound, in bytes
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("sse: %s over %d bytes", e.What, e.Limit)
}

func (e *LimitError) Unwrap() error { return ErrLimit }

// A TimeoutError says which bound of [Timeouts] was exceeded. It unwraps to
// [ErrTimeout] and to the underlying error, if any.
type TimeoutError struct {
	Phase string        // "dial", "tls handshake", "response header", "idle read"
	Limit time.Duration // the bound
	Err   error         // the underlying error, if any
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("sse: %s timeout after %v", e.Phase, e.Limit)
}

func (e *TimeoutError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrTimeout}
	}
	return []error{ErrTimeout, e.Err}
}

// Timeout reports true, as net.Error does.
func (e *TimeoutError) Timeout() bool { return true }

// A RedirectError describes a refused redirect. It unwraps to
// [ErrCrossOriginRedirect], [ErrRedirectedPOST] or [ErrTooManyRedirects].
type RedirectError struct {
	Method string // the method of the redirected request
	Status int    // the redirect's status code
	To     string // the origin of the redirect target
	Err    error
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%v: %s answered %d to %s", e.Err, e.Method, e.Status, e.To)
}

func (e *RedirectError) Unwrap() error { return e.Err }
