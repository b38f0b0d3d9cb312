package streamablehttp

import (
	"errors"

	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/internal/httpguard"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// JSON-RPC error codes of the errors this transport hands to a call in place
// of a response it could not deliver. The go-sdk hands a call only the code
// and message of a JSON-RPC error, so a caller tells them apart by code:
// errors.Is(err, &jsonrpc.Error{Code: CodeStreamDropped}), since the
// go-sdk's error type compares codes. Like transport.CodeLimit and
// transport.CodeTimeout, they lie outside the ranges JSON-RPC and MCP
// reserve. Each also matches a class: [Factory.Classify] gives it.
const (
	// CodeStreamDropped ("streamablehttp: response stream dropped",
	// transport.ErrBroken): a call's response stream (or JSON body) ended
	// before the response arrived, and the stream could not be resumed. It
	// could not be when it carried no event id, or when it was of protocol
	// 2026-07-28, which has no resumption. It is also the code when the
	// connection broke after the call was written and before the response
	// headers came. The request may have been executed by the server; it is
	// not re-sent.
	CodeStreamDropped = -31401

	// CodeResponseMismatch ("streamablehttp: JSON body is not the call's
	// response", transport.ErrProtocol): a call's POST was answered 200
	// application/json with a body that is not its response. The body may
	// hold a response to another id, a request or notification, or no
	// JSON-RPC message at all. No answer is coming, so the call fails at
	// once. The request may have been executed; it is not sent again.
	// Whatever the body held is not delivered. The connection stays usable.
	CodeResponseMismatch = -31403

	// CodeRedirectRefused ("streamablehttp: redirect of GET refused",
	// transport.ErrPolicy): the connection fails with it when the server
	// redirects the standalone GET stream, or a GET resuming a call's
	// stream, to another origin. It is not retried. (The go-sdk retries a
	// failed GET with backoff; this one reaches it as a final answer
	// instead.) No request and no credential is sent to the other origin.
	// Its message is the [transport.RedirectError]'s.
	CodeRedirectRefused = -31404

	// CodeRefused ("streamablehttp: request refused", transport.ErrServer):
	// a call's POST was answered with a 4xx status other than 401, 403 and
	// 404, by the server or a proxy before it, and the body is not a
	// JSON-RPC error. The status is 400, 405, 409, 413 or the like. The
	// server did not run the request; the call is not sent again. (The
	// go-sdk, handed such a status, would fail the whole connection.) Its
	// message names the status and the start of the body.
	CodeRefused = -31405
)

// The errors of the codes above, as this transport delivers them.
var (
	errStreamDropped    error = &jsonrpc.Error{Code: CodeStreamDropped, Message: "streamablehttp: response stream dropped"}
	errResponseMismatch error = &jsonrpc.Error{Code: CodeResponseMismatch, Message: "streamablehttp: JSON body is not the call's response"}
	errRedirectRefused  error = &jsonrpc.Error{Code: CodeRedirectRefused, Message: "streamablehttp: redirect of GET refused"}
	errRefused          error = &jsonrpc.Error{Code: CodeRefused, Message: "streamablehttp: request refused"}
)

// The errors this transport shares with transport/sse are package
// transport's:
//   - transport.ErrLimit: a JSON body over MaxJSONBytes, an event over
//     MaxEventBytes, a stream over MaxStreamBytes. It is also a request
//     whose context ended while it waited for one of MaxConcurrentStreams
//     slots. The call fails and is not sent again, and the connection
//     stays usable.
//   - transport.ErrTimeout: a bound of [Timeouts]. A call whose stream goes
//     idle with no event id to resume from fails with it and is not sent
//     again.
//   - transport.PolicyError, of Rule RuleInsecure, RuleCrossOrigin,
//     RuleCrossOriginRedirect, RuleRedirectedPOST or RuleTooManyRedirects.
//   - [transport.ErrAuth]: a 401 or 403 with no new credential.
//     Either Options.Credentials is not an auth.Authorizer, or its flow
//     failed.
//   - the types transport.LimitError (What is "json body", "sse event",
//     "stream", "concurrent streams" or "error body"),
//     transport.TimeoutError (Phase is "dial", "tls handshake", "response
//     header", "idle read" or "close") and transport.RedirectError. Each
//     names "streamablehttp" in its Transport field.

// ErrReauthorized is returned when the server refused a call with 401 or
// 403 and a new credential was obtained. The refused call was not re-sent;
// the caller may issue it again, and it will carry the new credential. It
// matches transport.ErrAuth only through [Factory.Classify].
var ErrReauthorized = errors.New("streamablehttp: credential renewed; request not re-sent")

// errReplay is returned when a JSON-RPC call that was already sent on this
// connection is about to be POSTed again. It is not sent. (The go-sdk
// re-POSTs after a successful OAuth authorization; this package prevents
// that for every call but the handshake and the lists, and this guard
// catches any other path.) It matches transport.ErrPolicy.
var errReplay = &httpguard.Classed{Text: "streamablehttp: call already sent", Class: transport.ErrPolicy}
