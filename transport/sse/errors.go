package sse

import (
	"errors"
	"fmt"

	"github.com/looprig/mcp/internal/httpguard"
)

// The errors this package shares with transport/streamablehttp are the same
// values there (both re-export internal/httpguard's), so errors.Is and
// errors.As give the same answer with either package's name.
var (
	// ErrInsecure is returned by [New] when the endpoint is plain http on a
	// host that is not loopback and Options.AllowInsecureHTTP is not set, or
	// when the TLS configuration allows versions below TLS 1.2.
	ErrInsecure = httpguard.ErrInsecure

	// ErrCrossOrigin is returned when a request would go to an origin other
	// than the endpoint's. Nothing is sent.
	ErrCrossOrigin = httpguard.ErrCrossOrigin

	// ErrCrossOriginEndpoint is returned by Connect when the server's
	// endpoint event names a message endpoint on another origin. The
	// session is abandoned; no request goes to that origin.
	ErrCrossOriginEndpoint = errors.New("sse: endpoint event names another origin")

	// ErrNoEndpoint is returned by Connect when the session stream does not
	// open with a valid endpoint event, or ends before it.
	ErrNoEndpoint = errors.New("sse: no endpoint event")

	// ErrCrossOriginRedirect is returned when the server redirects a request
	// to another origin. The redirect is not followed.
	ErrCrossOriginRedirect = httpguard.ErrCrossOriginRedirect

	// ErrRedirectedPOST is returned when the server answers a POST with a
	// redirect of any kind. It is not followed: the message may already
	// have been processed, and a 307 or 308 would send it again.
	ErrRedirectedPOST = httpguard.ErrRedirectedPOST

	// ErrTooManyRedirects is returned when the session GET is redirected
	// more than 5 times within the origin.
	ErrTooManyRedirects = httpguard.ErrTooManyRedirects

	// ErrUnauthorized is returned when the server answers 401 or 403. The
	// request is not re-sent.
	ErrUnauthorized = httpguard.ErrUnauthorized

	// ErrUnexpectedResponse is returned when the server answers with a
	// status other than 2xx, 401 or 403, or answers the session GET with
	// something other than an event stream. The error ([StatusError]) says
	// when the server may speak Streamable HTTP instead.
	ErrUnexpectedResponse = errors.New("sse: unexpected response")

	// ErrLimit is returned when the server sends more than a bound of
	// [Limits]: an event over MaxEventBytes, a session stream over
	// MaxStreamBytes, a body over MaxBodyBytes. Reading stops at the bound.
	// A bound crossed on the session stream ends the session: every call in
	// flight fails with it, and none is re-sent. It is the *jsonrpc.Error
	// that streamablehttp.ErrLimit is: this package returns it as a Go
	// error, and errors.Is also matches a JSON-RPC error with its code
	// (streamablehttp.CodeLimit), which a server could send.
	ErrLimit = httpguard.ErrLimit

	// ErrTimeout is returned when a dial, TLS handshake, response header or
	// idle read exceeds its bound in [Timeouts]. An idle-read timeout ends
	// the session: every call in flight fails with it, and none is re-sent.
	// It is the *jsonrpc.Error that streamablehttp.ErrTimeout is, matched
	// the same way (streamablehttp.CodeTimeout).
	ErrTimeout = httpguard.ErrTimeout
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
// to [ErrLimit]. Its fields are Transport ("sse" here), What ("sse event",
// "stream" or "body") and Limit (the bound, in bytes). It is the type
// streamablehttp.LimitError names too.
type LimitError = httpguard.LimitError

// A TimeoutError says which bound of [Timeouts] was exceeded. It unwraps to
// [ErrTimeout] and to the underlying error, if any, and its Timeout method
// reports true, as net.Error's does. Its fields are Transport ("sse" here),
// Phase ("dial", "tls handshake", "response header" or "idle read"), Limit
// (the bound) and Err (the underlying error, if any). It is the type
// streamablehttp.TimeoutError names too.
type TimeoutError = httpguard.TimeoutError

// A RedirectError describes a refused redirect. It unwraps to its Err:
// [ErrCrossOriginRedirect], [ErrRedirectedPOST] or [ErrTooManyRedirects].
// Its other fields are Transport ("sse" here), Method (of the redirected
// request), Status (the redirect's status code) and To (the origin of the
// target, or "null"). It is the type streamablehttp.RedirectError names
// too.
type RedirectError = httpguard.RedirectError
