package streamablehttp

import (
	"errors"

	"github.com/looprig/mcp/internal/httpguard"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// JSON-RPC error codes of the errors this transport hands to a call in place
// of a response it could not deliver (see [ErrLimit], [ErrStreamDropped],
// [ErrTimeout]). They lie outside the ranges JSON-RPC and MCP reserve. A
// server could send the same codes; it would only make its own error look
// like a local one.
const (
	CodeLimit         = httpguard.CodeLimit
	CodeStreamDropped = httpguard.CodeStreamDropped
	CodeTimeout       = httpguard.CodeTimeout
)

// Errors that reach a call through the go-sdk. The go-sdk hands a call only
// the code and message of a JSON-RPC error, so these sentinels are
// *jsonrpc.Error values: errors.Is matches them by code (the go-sdk's error
// type compares codes), and also matches the [LimitError] and [TimeoutError]
// values this package returns directly. ErrLimit and ErrTimeout are the
// values sse.ErrLimit and sse.ErrTimeout are.
var (
	// ErrLimit is returned when a response exceeds a bound of [Limits]: a JSON
	// body over MaxJSONBytes, a server-sent event over MaxEventBytes, a
	// response stream over MaxStreamBytes. Reading stops at the bound and
	// the response is discarded; a call waiting for it fails with this error
	// and is not re-sent, and the connection stays usable. It is also
	// returned, with the context's error, when a request's context ends
	// while it waits for one of MaxConcurrentStreams slots (it was not
	// sent). It is a policy error.
	ErrLimit = httpguard.ErrLimit

	// ErrStreamDropped is returned to a call whose response stream (or JSON
	// body) ended before the response arrived, when the stream could not be
	// resumed: it carried no event id, or it was of protocol 2026-07-28,
	// which has no resumption. It is also returned when the connection broke
	// after the call was written and before the response headers came. The
	// request may have been executed by the server; it is not re-sent.
	// (Only this transport resumes streams, so only it has this error.)
	ErrStreamDropped error = &jsonrpc.Error{Code: CodeStreamDropped, Message: "streamablehttp: response stream dropped"}

	// ErrTimeout is returned when a dial, TLS handshake, response header or
	// idle read exceeds its bound in [Timeouts]. A call whose response stream
	// goes idle past the bound with no event id to resume from fails with it;
	// it is not re-sent.
	ErrTimeout = httpguard.ErrTimeout
)

// The errors this package shares with transport/sse are the same values
// there (both re-export internal/httpguard's), so errors.Is and errors.As
// give the same answer with either package's name.
var (
	// ErrInsecure is returned by [New] when the endpoint is plain http on a
	// host that is not loopback and Options.AllowInsecureHTTP is not set, or
	// when the TLS configuration allows versions below TLS 1.2.
	ErrInsecure = httpguard.ErrInsecure

	// ErrCrossOrigin is returned when a request would go to an origin other
	// than the endpoint's. Nothing is sent.
	ErrCrossOrigin = httpguard.ErrCrossOrigin

	// ErrCrossOriginRedirect is returned when the server redirects a request
	// to another origin. The redirect is not followed.
	ErrCrossOriginRedirect = httpguard.ErrCrossOriginRedirect

	// ErrRedirectedPOST is returned when the server answers a POST with a
	// redirect of any kind. It is not followed: the message may already
	// have been processed, and a 307 or 308 would send it again.
	ErrRedirectedPOST = httpguard.ErrRedirectedPOST

	// ErrTooManyRedirects is returned when a GET or DELETE is redirected more
	// than 5 times within the origin.
	ErrTooManyRedirects = httpguard.ErrTooManyRedirects

	// ErrReplay is returned when a JSON-RPC call that was already sent on
	// this connection is about to be POSTed again. It is not sent. (The
	// go-sdk re-POSTs after a successful OAuth authorization; this package
	// prevents that for every call but the handshake and the lists, and this
	// guard catches any other path.)
	ErrReplay = errors.New("streamablehttp: call already sent")

	// ErrUnauthorized is returned when the server answers 401 or 403 and no
	// new credential could be obtained: Options.Credentials is not an
	// auth.Authorizer, or its flow failed. The request was not re-sent.
	ErrUnauthorized = httpguard.ErrUnauthorized

	// ErrReauthorized is returned when the server refused a call with 401 or
	// 403 and a new credential was obtained. The refused call was not re-sent;
	// the caller may issue it again, and it will carry the new credential.
	ErrReauthorized = errors.New("streamablehttp: credential renewed; request not re-sent")
)

// A LimitError says which bound of [Limits] a response exceeded. It unwraps
// to [ErrLimit]. Its fields are Transport ("streamablehttp" here), What
// ("json body", "sse event", "stream", "concurrent streams" or "error
// body") and Limit (the bound, in bytes or, for concurrent streams,
// requests). It is the type sse.LimitError names too.
type LimitError = httpguard.LimitError

// A TimeoutError says which bound of [Timeouts] was exceeded. It unwraps to
// [ErrTimeout] and to the underlying error, if any, and its Timeout method
// reports true, as net.Error's does. Its fields are Transport
// ("streamablehttp" here), Phase ("dial", "tls handshake", "response
// header", "idle read" or "close"), Limit (the bound) and Err (the
// underlying error, if any). It is the type sse.TimeoutError names too.
type TimeoutError = httpguard.TimeoutError

// A RedirectError describes a refused redirect. It unwraps to its Err:
// [ErrCrossOriginRedirect], [ErrRedirectedPOST] or [ErrTooManyRedirects].
// Its other fields are Transport ("streamablehttp" here), Method (of the
// redirected request), Status (the redirect's status code) and To (the
// origin of the target, or "null"). It is the type sse.RedirectError names
// too.
type RedirectError = httpguard.RedirectError
