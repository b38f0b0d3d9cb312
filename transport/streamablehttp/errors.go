package streamablehttp

import (
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// JSON-RPC error codes of the errors this transport hands to a call in place
// of a response it could not deliver (see [ErrLimit], [ErrStreamDropped],
// [ErrTimeout]). They lie outside the ranges JSON-RPC and MCP reserve. A
// server could send the same codes; it would only make its own error look
// like a local one.
const (
	CodeLimit         = -31400
	CodeStreamDropped = -31401
	CodeTimeout       = -31402
)

// Errors that reach a call through the go-sdk. The go-sdk hands a call only
// the code and message of a JSON-RPC error, so these sentinels are
// *jsonrpc.Error values: errors.Is matches them by code (the go-sdk's error
// type compares codes), and also matches the [LimitError] and [TimeoutError]
// values this package returns directly.
var (
	// ErrLimit is returned when a response exceeds a bound of [Limits]: a JSON
	// body over MaxJSONBytes, a server-sent event over MaxEventBytes, a
	// response stream over MaxStreamBytes. Reading stops at the bound and
	// the response is discarded; a call waiting for it fails with this error
	// and is not re-sent, and the connection stays usable. It is also
	// returned, with the context's error, when a request's context ends
	// while it waits for one of MaxConcurrentStreams slots (it was not
	// sent). It is a policy error.
	ErrLimit error = &jsonrpc.Error{Code: CodeLimit, Message: "streamablehttp: response over limit"}

	// ErrStreamDropped is returned to a call whose response stream (or JSON
	// body) ended before the response arrived, when the stream carried no
	// event id to resume from. The request may have been executed by the
	// server; it is not re-sent.
	ErrStreamDropped error = &jsonrpc.Error{Code: CodeStreamDropped, Message: "streamablehttp: response stream dropped"}

	// ErrTimeout is returned when a dial, TLS handshake, response header or
	// idle read exceeds its bound in [Timeouts]. A call whose response stream
	// goes idle past the bound with no event id to resume from fails with it;
	// it is not re-sent.
	ErrTimeout error = &jsonrpc.Error{Code: CodeTimeout, Message: "streamablehttp: timeout"}
)

var (
	// ErrInsecure is returned by [New] when the endpoint is plain http on a
	// host that is not loopback and Options.AllowInsecureHTTP is not set, or
	// when the TLS configuration allows versions below TLS 1.2.
	ErrInsecure = errors.New("streamablehttp: insecure endpoint")

	// ErrCrossOrigin is returned when a request would go to an origin other
	// than the endpoint's. Nothing is sent.
	ErrCrossOrigin = errors.New("streamablehttp: request to another origin")

	// ErrCrossOriginRedirect is returned when the server redirects a request
	// to another origin. The redirect is not followed.
	ErrCrossOriginRedirect = errors.New("streamablehttp: redirect to another origin")

	// ErrRedirectedPOST is returned when the server answers a POST with a
	// redirect of any kind. It is not followed: the message may already
	// have been processed, and a 307 or 308 would send it again.
	ErrRedirectedPOST = errors.New("streamablehttp: redirect of a POST")

	// ErrTooManyRedirects is returned when a GET or DELETE is redirected more
	// than 5 times within the origin.
	ErrTooManyRedirects = errors.New("streamablehttp: too many redirects")

	// ErrReplay is returned when a JSON-RPC call that was already sent on
	// this connection is about to be POSTed again. It is not sent. (The
	// go-sdk re-POSTs after a successful OAuth authorization; this package
	// prevents that for every call but the handshake and the lists, and this
	// guard catches any other path.)
	ErrReplay = errors.New("streamablehttp: call already sent")

	// ErrUnauthorized is returned when the server answers 401 or 403 and no
	// new credential could be obtained: Options.Credentials is not an
	// auth.Authorizer, or its flow failed. The request was not re-sent.
	ErrUnauthorized = errors.New("streamablehttp: unauthorized")

	// ErrReauthorized is returned when the server refused a call with 401 or
	// 403 and a new credential was obtained. The refused call was not re-sent;
	// the caller may issue it again, and it will carry the new credential.
	ErrReauthorized = errors.New("streamablehttp: credential renewed; request not re-sent")
)

// A LimitError says which bound of [Limits] a response exceeded. It unwraps
// to [ErrLimit].
type LimitError struct {
	What  string // "json body", "sse event", "stream", "concurrent streams", "error body"
	Limit int64  // the bound, in bytes or (for concurrent streams) requests
}

func (e *LimitError) Error() string {
	if e.What == "concurrent streams" {
		return fmt.Sprintf("streamablehttp: more than %d concurrent streams", e.Limit)
	}
	return fmt.Sprintf("streamablehttp: %s over %d bytes", e.What, e.Limit)
}

func (e *LimitError) Unwrap() error { return ErrLimit }

// A TimeoutError says which bound of [Timeouts] was exceeded. It unwraps to
// [ErrTimeout] and to the underlying error, if any.
type TimeoutError struct {
	Phase string        // "dial", "tls handshake", "response header", "idle read", "close"
	Limit time.Duration // the bound
	Err   error         // the underlying error, if any
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("streamablehttp: %s timeout after %v", e.Phase, e.Limit)
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
