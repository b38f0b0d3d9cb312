package httpguard

import (
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The errors below are defined once, here, and re-exported by
// transport/streamablehttp and transport/sse under the same names, so that
// errors.Is(err, sse.ErrRedirectedPOST) and
// errors.Is(err, streamablehttp.ErrRedirectedPOST) are the same test. Their
// texts name no transport; the transports prefix what they wrap, and the
// struct errors name theirs in a field.

// JSON-RPC error codes of the errors a transport hands to a call in place of
// a response it could not deliver. They lie outside the ranges JSON-RPC and
// MCP reserve. A server could send the same codes; it would only make its
// own error look like a local one.
const (
	CodeLimit         = -31400
	CodeStreamDropped = -31401
	CodeTimeout       = -31402
)

// ErrLimit and ErrTimeout are *jsonrpc.Error values: the go-sdk hands a
// call only the code and message of a JSON-RPC error, so Streamable HTTP
// delivers them as error responses, and errors.Is matches them by code (the
// go-sdk's error type compares codes). The legacy SSE transport returns them
// as Go errors, which errors.Is matches as well.
var (
	// ErrLimit is returned when a response exceeds a bound of a transport's
	// Limits. Reading stops at the bound.
	ErrLimit error = &jsonrpc.Error{Code: CodeLimit, Message: "response over limit"}

	// ErrTimeout is returned when a dial, TLS handshake, response header or
	// idle read exceeds its bound in a transport's Timeouts.
	ErrTimeout error = &jsonrpc.Error{Code: CodeTimeout, Message: "timeout"}
)

var (
	// ErrInsecure is returned when the endpoint is plain http on a host that
	// is not loopback and AllowInsecureHTTP is not set, or when the TLS
	// configuration allows versions below TLS 1.2.
	ErrInsecure = errors.New("insecure endpoint")

	// ErrCrossOrigin is returned when a request would go to an origin other
	// than the endpoint's. Nothing is sent.
	ErrCrossOrigin = errors.New("request to another origin")

	// ErrCrossOriginRedirect is returned when the server redirects a request
	// to another origin. The redirect is not followed.
	ErrCrossOriginRedirect = errors.New("redirect to another origin")

	// ErrRedirectedPOST is returned when the server answers a POST with a
	// redirect of any kind. It is not followed: the message may already
	// have been processed, and a 307 or 308 would send it again.
	ErrRedirectedPOST = errors.New("redirect of a POST")

	// ErrTooManyRedirects is returned when a request is redirected more than
	// [MaxRedirects] times within the origin.
	ErrTooManyRedirects = errors.New("too many redirects")

	// ErrUnauthorized is returned when the server answers 401 or 403 and
	// the request is not re-sent.
	ErrUnauthorized = errors.New("unauthorized")
)

// prefix returns "name: ", or "" for no name.
func prefix(name string) string {
	if name == "" {
		return ""
	}
	return name + ": "
}

// A LimitError says which bound of a transport's Limits a response crossed.
// It unwraps to [ErrLimit].
type LimitError struct {
	Transport string // the package that refused: "sse" or "streamablehttp"
	What      string // "json body", "sse event", "stream", "body", "concurrent streams", "error body"
	Limit     int64  // the bound, in bytes or (for concurrent streams) requests
}

func (e *LimitError) Error() string {
	if e.What == "concurrent streams" {
		return fmt.Sprintf("%smore than %d concurrent streams", prefix(e.Transport), e.Limit)
	}
	return fmt.Sprintf("%s%s over %d bytes", prefix(e.Transport), e.What, e.Limit)
}

func (e *LimitError) Unwrap() error { return ErrLimit }

// A TimeoutError says which bound of a transport's Timeouts was exceeded.
// It unwraps to [ErrTimeout] and to the underlying error, if any.
type TimeoutError struct {
	Transport string        // the package that timed out: "sse" or "streamablehttp"
	Phase     string        // "dial", "tls handshake", "response header", "idle read", "close"
	Limit     time.Duration // the bound
	Err       error         // the underlying error, if any
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s%s timeout after %v", prefix(e.Transport), e.Phase, e.Limit)
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
	Transport string // the package that refused: "sse" or "streamablehttp"
	Method    string // the method of the redirected request
	Status    int    // the redirect's status code
	To        string // the origin of the redirect target, or "null"
	Err       error
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s%v: %s answered %d to %s", prefix(e.Transport), e.Err, e.Method, e.Status, e.To)
}

func (e *RedirectError) Unwrap() error { return e.Err }
