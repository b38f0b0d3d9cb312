package transport

import (
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrBadFault is returned for a fault that cannot be injected, as a
// fake server (package fakeserver: an unknown kind, a tool its catalog
// does not have, a fault its transport or platform cannot act on) or a
// replay (package cassette: a message the cassette does not hold, or not
// of the kind the fault acts on, a request it does not have) is told to
// inject it. It is a mistake in the test's script, of no failure class.
var ErrBadFault = errors.New("invalid fault")

// ErrClosed is returned by a connection's Write (and Read) once the
// connection is closed. It wraps mcp.ErrConnectionClosed, so the go-sdk and
// errors.Is(err, mcp.ErrConnectionClosed) see the end of a connection.
var ErrClosed = fmt.Errorf("transport: %w", mcp.ErrConnectionClosed)

// JSON-RPC error codes of the errors a transport hands to a call in place of
// a response it could not deliver (see [ErrLimit] and [ErrTimeout]). They lie
// outside the ranges JSON-RPC and MCP reserve. A server could send the same
// codes; it would only make its own error look like a local one.
const (
	CodeLimit   = -31400
	CodeTimeout = -31402
)

// ErrLimit and ErrTimeout are *jsonrpc.Error values. The go-sdk hands a call
// only the code and message of a JSON-RPC error. So a transport that fails
// a call from below the go-sdk (Streamable HTTP) delivers them as error
// responses. errors.Is matches them by code, since the go-sdk's error type
// compares codes. A transport that returns them as Go errors
// (transport/sse) is matched the same way. So are the [LimitError] and
// [TimeoutError] values that unwrap to them.
var (
	// ErrLimit is returned when a response exceeds a bound of a transport's
	// Limits. Reading stops at the bound. Transports classify it as
	// [ErrPolicy].
	ErrLimit error = &jsonrpc.Error{Code: CodeLimit, Message: "transport: response over limit"}

	// ErrTimeout is returned when a transport's bound on time passes: a
	// dial, TLS handshake, response header or idle read in a transport's
	// Timeouts. It is also the class of every such error.
	ErrTimeout error = &jsonrpc.Error{Code: CodeTimeout, Message: "transport: timed out"}
)

// A Rule names the policy by which an HTTP transport (transport/streamablehttp,
// transport/sse) or package auth refused a request. Its String is the
// refusal's text.
type Rule int

const (
	// RuleInsecure: an HTTP transport's New refused the endpoint. It is
	// plain http on a host that is not loopback, and AllowInsecureHTTP is
	// not set; or its TLS configuration allows versions below TLS 1.2.
	RuleInsecure Rule = iota + 1
	// RuleCrossOrigin: a request would go to an origin other than the
	// endpoint's. Nothing is sent.
	RuleCrossOrigin
	// RuleCrossOriginRedirect: the server redirected a request to another
	// origin. The redirect is not followed.
	RuleCrossOriginRedirect
	// RuleRedirectedPOST: the server answered a POST with a redirect of any
	// kind. It is not followed: the message may already have been
	// processed, and a 307 or 308 would send it again.
	RuleRedirectedPOST
	// RuleTooManyRedirects: a request was redirected more than
	// [MaxRedirects] times within the origin.
	RuleTooManyRedirects
)

var ruleText = [...]string{
	RuleInsecure:            "insecure endpoint",
	RuleCrossOrigin:         "request to another origin",
	RuleCrossOriginRedirect: "redirect to another origin",
	RuleRedirectedPOST:      "redirect of a POST",
	RuleTooManyRedirects:    "too many redirects",
}

// String returns the rule's refusal text, such as "redirect of a POST".
func (r Rule) String() string {
	if r < RuleInsecure || r > RuleTooManyRedirects {
		return fmt.Sprintf("Rule(%d)", int(r))
	}
	return ruleText[r]
}

// A PolicyError is a request refused by an HTTP policy [Rule]. It unwraps to
// [ErrPolicy]. Its text names no transport: the transports prefix what
// they wrap, and [RedirectError] names its transport in a field.
//
// errors.Is(err, &PolicyError{Rule: r}) reports whether err is a refusal by
// rule r; errors.As gives the Rule of any refusal.
type PolicyError struct {
	Rule Rule
}

func (e *PolicyError) Error() string { return e.Rule.String() }

// Unwrap returns ErrPolicy.
func (e *PolicyError) Unwrap() error { return ErrPolicy }

// Is reports whether target is a *PolicyError with the same Rule.
func (e *PolicyError) Is(target error) bool {
	t, ok := target.(*PolicyError)
	return ok && t.Rule == e.Rule
}

// MaxRedirects is how many redirects within the origin an HTTP transport's
// GET or DELETE may follow.
const MaxRedirects = 5

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

// Unwrap returns ErrLimit.
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

// Unwrap returns ErrTimeout and Err, if any.
func (e *TimeoutError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrTimeout}
	}
	return []error{ErrTimeout, e.Err}
}

// Timeout reports true, as net.Error does.
func (e *TimeoutError) Timeout() bool { return true }

// A RedirectError describes a refused redirect. It unwraps to its Err: a
// [*PolicyError] whose Rule is [RuleCrossOriginRedirect],
// [RuleRedirectedPOST] or [RuleTooManyRedirects].
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
