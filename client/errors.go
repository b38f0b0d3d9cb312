package client

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os/exec"
	"strings"

	"github.com/looprig/mcp/internal/safetext"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A FailureClass says what kind of thing went wrong, and so what a caller
// may do about it. It is the module's one vocabulary of failures, defined
// in transport (see [transport.Class]). Cassette endings, mcprig and the
// testscript commands share it.
type FailureClass = transport.Class

// The classes, as transport defines them. Each is an alias, not a copy:
// client.ClassAuth == transport.ClassAuth. They are here so that a caller
// of client reads Error.Class without importing transport.
const (
	// ClassStart: the server could not be started or did not complete the
	// handshake (missing executable, exit before initialize).
	ClassStart = transport.ClassStart
	// ClassTransport: the connection broke (a stream dropped and could not
	// be resumed, a dial failed).
	ClassTransport = transport.ClassTransport
	// ClassProtocol: the server broke the protocol (malformed frame,
	// repeated pagination cursor, unexpected message), or speaks no
	// revision the profile accepts (ErrRevisionMismatch).
	ClassProtocol = transport.ClassProtocol
	// ClassAuth: the server refused the credentials.
	ClassAuth = transport.ClassAuth
	// ClassPolicy: this library refused, by policy or by the client's
	// configuration. Examples: a disabled or held binding, an unknown
	// tool, a size or round limit, a cross-origin redirect. So is a
	// server's request for input the Handlers do not serve or could not
	// answer.
	ClassPolicy = transport.ClassPolicy
	// ClassTimeout: a deadline passed (the caller's context's,
	// Limits.CallTimeout, Limits.ConnectTimeout, or one of the transport's
	// own bounds), or the caller gave up (its context was cancelled).
	ClassTimeout = transport.ClassTimeout
	// ClassServer: the server answered with a JSON-RPC error, ended the
	// session, or exited while in use.
	ClassServer = transport.ClassServer
	// ClassTool: the tool ran and reported an error (CallToolResult.IsError).
	ClassTool = transport.ClassTool
	// ClassClosed: the client was closed.
	ClassClosed = transport.ClassClosed
	// ClassMismatch: a replay mismatch. The session is replayed from a
	// recording (a cassette) that does not hold what the client sent at
	// this point, or that held its answer past the replay's bound; the
	// request was not executed. errors.As finds the *cassette.MismatchError
	// (naming the cassette, its line and a diff) in the error.
	ClassMismatch = transport.ClassMismatch
)

// Operations named in Error.Op.
const (
	OpConnect     = "connect"
	OpDiscover    = "discover"
	OpCallTool    = "call"
	OpRead        = "read"
	OpGetPrompt   = "prompt"
	OpSubscribe   = "subscribe"
	OpUnsubscribe = "unsubscribe"
	OpClose       = "close"
)

// Error is the error every Client method returns, or wraps.
type Error struct {
	Class  FailureClass
	Op     string // one of the Op constants
	Server string // Definition.Name
	Tool   string // the tool, for OpCallTool
	Err    error
	// Diagnosis is what the transport knew about the peer's end (exit
	// status, stderr tail), when there was an end to explain.
	Diagnosis *transport.Diagnosis
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mcp %s: %s", e.Server, e.Op)
	if e.Tool != "" {
		fmt.Fprintf(&b, " %s", e.Tool)
	}
	fmt.Fprintf(&b, ": %s", e.Class)
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if d := e.Diagnosis; d != nil {
		if e.Err != nil {
			if rest, ok := saysTail(e.Err.Error(), d.Stderr); ok {
				// The transport's error quotes a line of the tail already
				// (a stdio exit error quotes the one that says what went
				// wrong, though the go-sdk keeps only its text): each line
				// is said once. Stderr returns the whole tail.
				cp := *d
				cp.Stderr = rest
				d = &cp
			}
		}
		fmt.Fprintf(&b, " (server %s)", d)
	}
	// The server's words (its errors, its stderr) are untrusted.
	return safetext.Text(b.String())
}

// saysTail reports whether msg quotes a line of a stderr tail ("(stderr:
// LINE)", as a stdio exit error does), and returns the tail without it.
func saysTail(msg string, tail []byte) ([]byte, bool) {
	lines := strings.SplitAfter(strings.TrimRight(string(tail), "\r\n\t "), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimRight(lines[i], "\r\n")
		if strings.TrimSpace(l) != "" && strings.Contains(msg, "(stderr: "+safetext.Line(l)+")") {
			rest := strings.Join(append(lines[:i:i], lines[i+1:]...), "")
			if rest != "" && !strings.HasSuffix(rest, "\n") {
				rest += "\n"
			}
			return []byte(rest), true
		}
	}
	return nil, false
}

func (e *Error) Unwrap() error { return e.Err }

// Stderr returns the tail of the server's standard error, if the transport
// has one (stdio), for showing: newlines and tabs kept, other control
// characters made visible. Diagnosis.Stderr holds the bytes as read.
func (e *Error) Stderr() string {
	if e.Diagnosis == nil {
		return ""
	}
	return safetext.Text(string(e.Diagnosis.Stderr))
}

// ConnectionRetryable reports whether connecting again may succeed: the
// failure was in the connection, not in the request or the policy. It never
// means that a tool call may be sent again: the library never retries a
// tool call, and a caller that does so risks running the tool twice.
//
// A timeout is the connection's when Connect timed out (the handshake or
// discovery) or when a transport's own bound passed (a dial, TLS
// handshake, response header or idle read: transport.ErrTimeout). A
// request that timed out because the caller stopped waiting (its
// context's deadline or cancellation, Limits.CallTimeout) leaves the
// connection as it was: ConnectionRetryable is false, and the next call
// on the same client may be made.
func (e *Error) ConnectionRetryable() bool {
	switch e.Class {
	case ClassTransport, ClassServer:
		return true
	case ClassTimeout:
		return e.Op == OpConnect || e.Op == OpDiscover || errors.Is(e.Err, transport.ErrTimeout)
	case ClassStart:
		// A missing executable will be missing next time too.
		return !errors.Is(e.Err, transport.ErrPolicy) && !isNotFound(e.Err)
	}
	return false
}

// Sentinel errors, matched with errors.Is through *Error. Each is one a
// caller acts on; a *ReasonError says more.
var (
	// ErrClosed is returned by calls on a client that is closing or closed.
	ErrClosed = errors.New("client closed")
	// ErrUnknownTool is returned when a call names a tool (or model name)
	// that the catalog does not have. Nothing is sent to the server. A
	// disabled binding ([ReasonDisabled]) and an unknown skill
	// ([ReasonUnknownSkill]) match it too.
	ErrUnknownTool = errors.New("unknown tool")
	// ErrHeld is returned when a call names a tool that changed against the
	// pinned fingerprint and was not yet accepted (Client.AcceptCatalog).
	// A held skill ([ReasonSkillHeld]) matches it too.
	ErrHeld = errors.New("tool changed since pinned fingerprint; not accepted")
	// ErrCatalogLimit is returned when discovery passes a Limits bound. A
	// repeated pagination cursor ([ReasonCursorLoop], a ClassProtocol
	// error) matches it too.
	ErrCatalogLimit = errors.New("catalog over limit")
	// ErrOutcomeUnknown is wrapped by the error of a request that was sent
	// and whose reply was lost, when the request may run something. Such
	// requests are CallTool, CallModel, ReadResource, GetPrompt, and each
	// continuation of a multi round-trip request. The reply is lost when:
	//   - the response stream broke with no way to resume it. This is
	//     always so on protocol 2026-07-28, which has no Last-Event-ID. On
	//     2025-11-25 it is so when the stream carried no event id.
	//   - the connection or the server process ended under it.
	//   - it timed out waiting for the reply.
	//
	// The server may or may not have run it. The library never sends it
	// again; whether to is the caller's decision. The error's Class still
	// says what failed (transport, server, timeout).
	ErrOutcomeUnknown = errors.New("outcome unknown: request sent, reply lost; not re-sent")
	// ErrNoHandler is returned when a server's input-required result asks
	// for something (sampling, elicitation, roots) that Handlers has no
	// handler for. No handler runs and no continuation is sent. A server
	// may check the client's capabilities before it asks, as this
	// module's server does on both revisions. It then refuses the call
	// itself with JSON-RPC error -32021 (missing required client
	// capabilities). That error wraps ErrNoHandler too, and keeps the
	// *jsonrpc.Error.
	ErrNoHandler = errors.New("no handler for the server's input request")
	// ErrTaskTimeout is returned when a task is still running when the next
	// poll would pass Limits.TaskTimeout. It is a ClassTimeout error. A
	// task still running after Limits.MaxTaskPolls polls
	// ([ReasonTaskPolls], a ClassPolicy error) matches it too.
	ErrTaskTimeout = errors.New("task still running after the time bound")
)

// A Reason says which case of a failure an error is, where no sentinel
// of its own is needed. Its text is the error's message.
type Reason string

// The reasons. Each names its sentinel, if it has one, and its class.
const (
	// ReasonDisabled: a call names a disabled binding. ErrUnknownTool,
	// ClassPolicy.
	ReasonDisabled Reason = "binding disabled"
	// ReasonUnknownSkill: a skill or file the catalog does not list.
	// Nothing is sent. ErrUnknownTool, ClassPolicy.
	ReasonUnknownSkill Reason = "unknown skill"
	// ReasonSkillHeld: a skill changed against the pinned fingerprint and
	// was not yet accepted (Client.AcceptCatalog). ErrHeld, ClassPolicy.
	ReasonSkillHeld Reason = "skill changed since pinned fingerprint; not accepted"
	// ReasonCursorLoop: a server's pagination cursor repeated.
	// ErrCatalogLimit, ClassProtocol.
	ReasonCursorLoop Reason = "pagination cursor repeated"
	// ReasonInvalidCatalog: a server listed an invalid catalog (a tool
	// twice, a null item). ClassProtocol.
	ReasonInvalidCatalog Reason = "invalid catalog"
	// ReasonHandler: a handler could not answer a server's input request.
	// It returned an error or no result, or an accepted elicitation's
	// content does not match the requested schema. No continuation is
	// sent. ClassPolicy.
	ReasonHandler Reason = "handler failed"
	// ReasonInvalidInputRequest: a server's input request cannot be
	// handled as sent. Examples: an unknown kind, a sampling message with
	// several content blocks, a requested schema that does not resolve.
	// ClassProtocol.
	ReasonInvalidInputRequest Reason = "invalid input request"
	// ReasonHeaderMismatch: the server refused a request because its HTTP
	// headers disagree with its body (JSON-RPC error -32020, protocol
	// 2026-07-28). The headers are Mcp-Protocol-Version, Mcp-Method,
	// Mcp-Name and Mcp-Param-*. Either something between the client and
	// the server rewrote them, or the two disagree on a tool's
	// x-mcp-header annotations. The request was not executed.
	// ClassProtocol.
	ReasonHeaderMismatch Reason = "request headers do not match its body"
	// ReasonInputRounds: a server still needs input (or still sheds load)
	// after Limits.MaxInputRounds continuations of one request. No further
	// continuation is sent. ClassPolicy.
	ReasonInputRounds Reason = "too many input rounds"
	// ReasonTaskPolls: a task is still running after Limits.MaxTaskPolls
	// polls of one wait. ErrTaskTimeout, ClassPolicy.
	ReasonTaskPolls Reason = "task still running after the poll bound"
	// ReasonTaskFailed: the server reports a task failed (a protocol-level
	// failure; a tool that reported an error completes, with a ClassTool
	// error). The task's JSON-RPC error is wrapped too. ClassServer.
	ReasonTaskFailed Reason = "task failed"
	// ReasonTaskCancelled: the server reports a task cancelled while the
	// client waited for it. ClassServer.
	ReasonTaskCancelled Reason = "task cancelled"
	// ReasonInvalidTask: a server's task handle or task state cannot be
	// used: no task id, an unknown status, a completed task without a
	// result. ClassProtocol.
	ReasonInvalidTask Reason = "invalid task"
	// ReasonHandlerStuck: Close found a handler still running
	// HandlerGrace after its context was cancelled: it ignores its
	// context. Go cannot stop it; it runs on until it returns by itself,
	// and whatever it returns is discarded. ClassTimeout.
	ReasonHandlerStuck Reason = "handler still running after its context was cancelled"
	// ReasonSkillMismatch: a fetched skill file differs from its entry. A
	// *SkillError says how. ClassProtocol.
	ReasonSkillMismatch Reason = "skill file differs from its entry"
	// ReasonUnknownProfile: ParseProfile does not know a name, or a
	// Definition's Profile is outside the constants (Connect fails with
	// ClassPolicy).
	ReasonUnknownProfile Reason = "unknown profile"
)

// A ReasonError is wrapped by an error whose case a Reason names. Find it
// with errors.As, or match one with errors.Is(err, &ReasonError{Reason:
// r}). errors.Is matches its reason's sentinel, if any, too.
type ReasonError struct {
	Reason Reason
	is     error // the sentinel it matches, or nil
}

func (e *ReasonError) Error() string { return string(e.Reason) }

// Is reports whether target is a *ReasonError of the same Reason, or the
// reason's sentinel.
func (e *ReasonError) Is(target error) bool {
	if t, ok := target.(*ReasonError); ok {
		return t.Reason == e.Reason
	}
	return e.is != nil && target == e.is
}

// reasonSentinels are the kept sentinels the reasons folded into them match.
var reasonSentinels = map[Reason]error{
	ReasonDisabled:     ErrUnknownTool,
	ReasonUnknownSkill: ErrUnknownTool,
	ReasonSkillHeld:    ErrHeld,
	ReasonCursorLoop:   ErrCatalogLimit,
	ReasonTaskPolls:    ErrTaskTimeout,
}

// reasonErr returns a new *ReasonError of r, to wrap with %w. Each error
// has its own, so a caller that changes the one errors.As gives it changes
// no other error.
func reasonErr(r Reason) *ReasonError { return &ReasonError{r, reasonSentinels[r]} }

// ToolError is the error of a tool that ran and reported failure
// (CallToolResult.IsError). Text is the result's text content.
type ToolError struct {
	Text string
}

func (e *ToolError) Error() string {
	if e.Text == "" {
		return "tool reported an error"
	}
	return "tool reported an error: " + safetext.Text(e.Text)
}

// classify turns err from the go-sdk or a transport into a class. The
// transport's Classifier, if any, is asked first.
func classify(err error, d *transport.Diagnosis, connecting bool, cl transport.Classifier) FailureClass {
	if cl != nil {
		if s := cl.Classify(err); s != nil {
			err = s
		}
	}
	var rpcErr *jsonrpc.Error
	switch {
	case errors.Is(err, ErrClosed):
		return ClassClosed
	case errors.Is(err, transport.ErrMismatch):
		return ClassMismatch
	case errors.Is(err, reasonErr(ReasonCursorLoop)):
		return ClassProtocol // before ErrCatalogLimit, which it matches
	case errors.Is(err, ErrUnknownTool), errors.Is(err, ErrHeld),
		errors.Is(err, ErrCatalogLimit), errors.Is(err, ErrNoHandler), errors.Is(err, reasonErr(ReasonHandler)),
		errors.Is(err, reasonErr(ReasonInputRounds)), errors.Is(err, reasonErr(ReasonTaskPolls)), errors.Is(err, transport.ErrPolicy):
		return ClassPolicy // reasonErr(ReasonTaskPolls) before ErrTaskTimeout, which it matches
	case errors.Is(err, reasonErr(ReasonInvalidCatalog)), errors.Is(err, reasonErr(ReasonInvalidInputRequest)),
		errors.Is(err, ErrRevisionMismatch), errors.Is(err, reasonErr(ReasonInvalidTask)), errors.Is(err, transport.ErrProtocol):
		return ClassProtocol
	case errors.Is(err, transport.ErrAuth):
		return ClassAuth
	case errors.Is(err, transport.ErrStart):
		return ClassStart
	case errors.Is(err, transport.ErrBroken):
		return ClassTransport
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, transport.ErrTimeout), errors.Is(err, context.Canceled),
		errors.Is(err, ErrTaskTimeout):
		return ClassTimeout
	case errors.Is(err, transport.ErrServer), errors.Is(err, reasonErr(ReasonTaskFailed)), errors.Is(err, reasonErr(ReasonTaskCancelled)):
		return ClassServer
	case errors.As(err, &rpcErr) && rpcErr.Code == mcp.CodeHeaderMismatch, errors.Is(err, reasonErr(ReasonHeaderMismatch)):
		return ClassProtocol
	case errors.As(err, new(*url.Error)):
		// An HTTP request that got no answer (refused, unreachable, reset):
		// the go-sdk wraps it as a JSON-RPC error ("rejected by
		// transport"), which no server sent.
		return ClassTransport
	case errors.As(err, &rpcErr):
		return ClassServer
	}
	if d != nil && d.Err != nil {
		return classify(d.Err, nil, connecting, nil)
	}
	if connecting {
		return ClassStart
	}
	if d != nil && d.Exited || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, mcp.ErrSessionMissing) {
		return ClassServer
	}
	return ClassTransport
}

// explain returns err with what the transport's classifier says it stands
// for in its chain (see transport.Classifier), its text unchanged: a
// replaying cassette's *MismatchError for the JSON-RPC error the go-sdk
// made of it.
func explain(err error, cl transport.Classifier) error {
	if cl == nil || err == nil {
		return err
	}
	if s := cl.Classify(err); s != nil && !errors.Is(err, s) {
		return &explained{err: err, as: s}
	}
	return err
}

// explained is an error and what it stands for.
type explained struct{ err, as error }

func (e *explained) Error() string   { return e.err.Error() }
func (e *explained) Unwrap() []error { return []error{e.err, e.as} }

// lostReply reports whether err, from a request the client sent, means
// that its reply was lost: the request may have been executed. A request
// the transport refused before sending (a dial or TLS timeout, a policy
// refusal, a connection already closed) is not lost.
func lostReply(err error, d *transport.Diagnosis, cl transport.Classifier) bool {
	if cl != nil {
		// An answer the transport could not read (broken, or not the
		// call's) is lost too.
		if s := cl.Classify(err); errors.Is(s, transport.ErrBroken) || errors.Is(s, transport.ErrProtocol) {
			return true
		}
	}
	var te *transport.TimeoutError
	switch {
	case errors.Is(err, ErrClosed), errors.Is(err, mcp.ErrConnectionClosed), errors.Is(err, context.Canceled):
		return false
	case errors.Is(err, transport.ErrBroken):
		return true
	case errors.As(err, &te) && (te.Phase == "dial" || te.Phase == "tls handshake"):
		return false
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, transport.ErrTimeout):
		return true
	case classify(err, nil, false, cl) == ClassTimeout:
		return true
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return false // the server answered
	}
	if d != nil && d.Err != nil {
		// The transport stopped reading: an unreadable frame lost the
		// answer; one refused by policy (too large) was there. This does
		// not depend on whether the child has exited yet.
		return classify(d.Err, nil, false, nil) == ClassProtocol
	}
	return d != nil && d.Exited // the server process ended under the request
}

func isNotFound(err error) bool {
	return errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist)
}
