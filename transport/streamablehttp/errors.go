package streamablehttp

import (
	"errors"

	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/internal/httpguard"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// CodeStreamDropped is the JSON-RPC error code of [ErrStreamDropped]. Like
// transport.CodeLimit and transport.CodeTimeout, the codes of the other
// errors this transport hands to a call in place of a response it could not
// deliver, it lies outside the ranges JSON-RPC and MCP reserve.
const CodeStreamDropped = -31401

// Codes of [ErrResponseMismatch] and [ErrRedirectRefused], in the same
// range.
const (
	CodeResponseMismatch = -31403
	CodeRedirectRefused  = -31404
	CodeRefused          = -31405
)

// Errors that reach a call through the go-sdk. The go-sdk hands a call only
// the code and message of a JSON-RPC error, so ErrStreamDropped, like
// transport.ErrLimit and transport.ErrTimeout, is a *jsonrpc.Error value:
// errors.Is matches it by code.
//
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
var (
	// ErrStreamDropped is returned to a call whose response stream (or JSON
	// body) ended before the response arrived, when the stream could not be
	// resumed. It could not be when it carried no event id, or when it was
	// of protocol 2026-07-28, which has no resumption. It is also returned when the connection broke
	// after the call was written and before the response headers came. The
	// request may have been executed by the server; it is not re-sent.
	// (Only this transport resumes streams, so only it has this error.)
	ErrStreamDropped error = &jsonrpc.Error{Code: CodeStreamDropped, Message: "streamablehttp: response stream dropped"}

	// ErrResponseMismatch is returned to a call whose POST was answered
	// 200 application/json with a body that is not its response. The body
	// may hold a response to another id, a request or notification, or no
	// JSON-RPC message at all. The body is finished, so no answer is coming. The call fails at
	// once with this protocol error. The request may have been executed; it
	// is not sent again. Whatever the body held is not delivered, so it
	// cannot complete another call. The connection stays usable.
	ErrResponseMismatch error = &jsonrpc.Error{Code: CodeResponseMismatch, Message: "streamablehttp: JSON body is not the call's response"}

	// ErrRedirectRefused is what the connection fails with when the server
	// redirects the standalone GET stream, or a GET resuming a call's
	// stream, to another origin. It is a policy refusal, not retried. (The
	// go-sdk retries a failed GET with backoff; this one reaches it as a
	// final answer instead.) No request and no credential is sent to the
	// other origin. The go-sdk hands the connection's failure on as a JSON-RPC
	// error, which errors.Is matches by code; its message is the
	// [transport.RedirectError]'s.
	ErrRedirectRefused error = &jsonrpc.Error{Code: CodeRedirectRefused, Message: "streamablehttp: redirect of GET refused"}

	// ErrRefused is returned to a call whose POST was answered with a 4xx
	// status other than 401, 403 and 404, by the server or a proxy before
	// it. The body is not a JSON-RPC error. The status is 400, 405, 409, 413
	// or the like. The server refused the request, so it did not run it. The
	// outcome is known, and the call is not sent again. The go-sdk, handed
	// such a status, would fail the whole connection. This transport hands
	// it the call's error instead, so the connection stays usable. Its message names the
	// status and the start of the body. The client classes it as the
	// server's (transport.ErrServer).
	ErrRefused error = &jsonrpc.Error{Code: CodeRefused, Message: "streamablehttp: request refused"}

	// ErrReauthorized is returned when the server refused a call with 401 or
	// 403 and a new credential was obtained. The refused call was not re-sent;
	// the caller may issue it again, and it will carry the new credential.
	ErrReauthorized = errors.New("streamablehttp: credential renewed; request not re-sent")
)

// errReplay is returned when a JSON-RPC call that was already sent on this
// connection is about to be POSTed again. It is not sent. (The go-sdk
// re-POSTs after a successful OAuth authorization; this package prevents
// that for every call but the handshake and the lists, and this guard
// catches any other path.) It matches transport.ErrPolicy.
var errReplay = &httpguard.Classed{Text: "streamablehttp: call already sent", Class: transport.ErrPolicy}
