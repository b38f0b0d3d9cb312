package transport

import (
	"errors"
	"fmt"

	"github.com/looprig/mcp/internal/safetext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transports mark their errors with these sentinels (through wrapping or an
// Is method) so that a client can classify a failure without knowing the
// transport.
var (
	// ErrStart is matched by errors from a transport that could not start its
	// peer (a missing executable, a refused dial).
	ErrStart = errors.New("transport: peer did not start")
	// ErrPolicy is matched by errors from a request the transport refused
	// by policy: a size limit, a cross-origin redirect or an
	// insecure scheme (a [PolicyError], whose Rule says which). It is also
	// matched by errors of a factory made from a nil or zero argument
	// (inprocess.New(nil)), or with credentials made so (auth's
	// ErrInvalidArgument). Nothing was sent with those.
	ErrPolicy = errors.New("transport: refused by policy")
	// ErrAuth is matched by errors from a peer that refused the credentials:
	// an HTTP transport's 401 or 403 that is not sent again.
	ErrAuth = errors.New("transport: not authorized")
	// ErrProtocol is matched by errors from a peer that broke the wire
	// protocol: a malformed frame, an unexpected status.
	ErrProtocol = errors.New("transport: protocol violation")
	// ErrBroken is matched by errors from a connection that broke under a
	// request and could not be resumed (a response stream that dropped with
	// no event id). The request is not sent again.
	ErrBroken = errors.New("transport: connection broke")
	// ErrServer is matched by errors from a peer that answered a request
	// with a failure of its own, outside JSON-RPC: an HTTP 5xx, a 404 for a
	// session it no longer has.
	ErrServer = errors.New("transport: server failed the request")
	// ErrMismatch is matched by errors from a replaying transport (a
	// cassette) when its recording does not hold what the client sent at
	// this point of the session. It is also matched when the recording held
	// its answer past the replay's bound. That is a replay mismatch
	// (cassette.MismatchError). Nothing was executed.
	ErrMismatch = errors.New("transport: replay mismatch")
)

// A Classifier is implemented by a Factory whose errors reach the client in
// a form the go-sdk chose, for example as JSON-RPC errors it synthesised.
// There errors.Is against the sentinels above cannot see them.
//
// Classify may return, in place of a bare sentinel, an error of the
// transport's own that matches one (errors.Is) and says more: a replaying
// cassette returns its *cassette.MismatchError, which matches ErrMismatch.
// A client puts what Classify returns in the chain of the error it reports
// (its text unchanged), so that errors.Is and errors.As find it there.
type Classifier interface {
	// Classify returns the sentinel (ErrStart, ErrPolicy, ErrAuth,
	// ErrProtocol, ErrTimeout, ErrBroken, ErrServer, ErrMismatch) that err
	// stands for, or an error matching one, or nil.
	Classify(err error) error
}

// Kind names a transport.
type Kind int

const (
	// KindInProcess is a connection to a server in the same process.
	KindInProcess Kind = iota + 1
	// KindStdio is a supervised child process speaking newline-delimited JSON.
	KindStdio
	// KindStreamableHTTP is the Streamable HTTP transport (2025-03-26 and later).
	KindStreamableHTTP
	// KindSSE is the legacy HTTP+SSE transport of protocol 2024-11-05.
	KindSSE
)

// String returns the kind's name as used in cassettes and on the command line.
func (k Kind) String() string {
	switch k {
	case KindInProcess:
		return "inprocess"
	case KindStdio:
		return "stdio"
	case KindStreamableHTTP:
		return "streamablehttp"
	case KindSSE:
		return "sse"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ParseKind returns the Kind whose String is s.
func ParseKind(s string) (Kind, error) {
	for k := KindInProcess; k <= KindSSE; k++ {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("transport: unknown kind %q", s)
}

// A Factory makes the transport for one connection. It is what
// client.Connect consumes.
//
// Factories are safe for concurrent use; each call to Transport returns a
// fresh transport, so one Factory can serve many connections (and a client
// may reconnect with it).
type Factory interface {
	// Kind names the transport.
	Kind() Kind
	// Transport returns a new transport for exactly one connection. Nothing
	// is started (no process, no request) until the transport's Connect is
	// called.
	Transport() (mcp.Transport, error)
}

// ProtocolPinner is implemented by a Factory that speaks exactly one protocol
// revision (the legacy SSE transport speaks only 2024-11-05). A client must
// not negotiate any other revision over it. Like every optional capability
// of a factory, it is asked for with [As], which finds it through wrappers.
type ProtocolPinner interface {
	PinnedProtocolVersion() string
}

// A Diagnoser is implemented by a connection that can say why it ended.
// [As] finds it through connections that wrap others
// (Unwrap() mcp.Connection).
type Diagnoser interface {
	// Diagnose returns what is known about the connection's end, or nil when
	// it has not ended or nothing is known. It does not block.
	Diagnose() *Diagnosis
}

// A Diagnosis describes how a connection's peer ended.
type Diagnosis struct {
	// Exited reports whether a child process has exited; ExitCode is its exit
	// code (-1 when killed by a signal, named by Signal).
	Exited   bool
	ExitCode int
	Signal   string
	// Stderr is the tail of the child's standard error, bounded by the
	// transport's ring size.
	Stderr []byte
	// Err is the error that ended reading from the peer, if it was not a
	// plain end of stream: a malformed frame, a frame over the size limit.
	Err error
}

// String summarises the diagnosis in one line plus the stderr tail.
func (d *Diagnosis) String() string {
	if d == nil {
		return ""
	}
	var s string
	switch {
	case !d.Exited:
		s = "running"
	case d.Signal != "":
		s = "killed by " + d.Signal
	default:
		s = fmt.Sprintf("exit status %d", d.ExitCode)
	}
	if d.Err != nil {
		s += "; " + safetext.Line(d.Err.Error())
	}
	if len(d.Stderr) > 0 {
		s += "; stderr tail:\n" + safetext.Text(string(d.Stderr))
	}
	return s
}
