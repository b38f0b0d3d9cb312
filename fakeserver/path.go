package fakeserver

import (
	"fmt"

	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Path is how a fake server is served. Each fault kind acts on some paths
// only. Every path refuses, when it is chosen, a fault it cannot act on:
// [New] and [Wrap] those that need a child process, [Server.Factory] at its
// first connection, [Server.HTTPHandler] and [Server.StartHTTP] at once,
// and [Main] as it reads its flags. [CheckPath] is that one rule.
//
// A server reached around those paths (serving [Server.MCP] or
// [Server.Server] directly) runs no fault that needs them.
type Path struct {
	// HTTP is set when the server is served over HTTP ([Server.HTTPHandler],
	// [Server.StartHTTP], --http). Otherwise it is served over a stream:
	// in-process ([Server.Factory]) or on a stdio child's stdin and stdout.
	HTTP bool
	// SSE is set, with HTTP, for the legacy HTTP+SSE shape
	// (HTTPOptions.SSE, --sse).
	SSE bool
	// Child is set when the server runs in a child process through [Main].
	Child bool
}

func (p Path) String() string {
	s := "in-process"
	switch {
	case p.SSE:
		s = "over legacy SSE"
	case p.HTTP:
		s = "over HTTP"
	case p.Child:
		return "in a stdio child"
	}
	if p.Child {
		s += " in a child process"
	}
	return s
}

// ActsOn reports whether f acts when its server is served by p.
func (f Fault) ActsOn(p Path) bool {
	k := kinds[f.Kind]
	switch {
	case f.Kind == FaultForeignEndpoint:
		return p.SSE
	case f.Kind == FaultDrop || f.Kind == FaultDropNoID:
		return p.HTTP && !p.SSE // a legacy POST's reply is on another stream
	case k.http:
		return p.HTTP
	case f.Kind == FaultMalformed || f.Kind == FaultIgnoreEOF:
		return p.Child && !p.HTTP // they act on the stdio stream
	case k.stdio:
		return p.Child
	}
	return true
}

// actsWhere says where f acts, for a [PathError].
func (f Fault) actsWhere() string {
	k := kinds[f.Kind]
	switch {
	case f.Kind == FaultForeignEndpoint:
		return "over legacy SSE (HTTPOptions.SSE, --sse)"
	case f.Kind == FaultDrop || f.Kind == FaultDropNoID:
		return "over Streamable HTTP (Server.HTTPHandler, Server.StartHTTP, --http)"
	case k.http:
		return "over HTTP (Server.HTTPHandler, Server.StartHTTP, --http)"
	case f.Kind == FaultMalformed || f.Kind == FaultIgnoreEOF:
		return "in a stdio child (fakeserver.Main without --http)"
	case k.stdio:
		return "in a child process (fakeserver.Main)"
	}
	return "on every path"
}

// A PathError is returned for a fault that does not act on the path its
// fake server is served by. It wraps [transport.ErrBadFault].
type PathError struct {
	Fault Fault
	Path  Path

	here bool // refused by New or Wrap: on no path of this process
}

func (e *PathError) Error() string {
	where := e.Path.String()
	if e.here {
		where = "in this process"
	}
	return fmt.Sprintf("fakeserver: fault %q: %v: it does not act %s, only %s", e.Fault, transport.ErrBadFault, where, e.Fault.actsWhere())
}

// Unwrap returns [transport.ErrBadFault].
func (e *PathError) Unwrap() error { return transport.ErrBadFault }

// CheckPath returns a [*PathError] for the first of faults that does not
// act when its server is served by p, or nil.
func CheckPath(faults []Fault, p Path) error {
	for _, f := range faults {
		if !f.ActsOn(p) {
			return &PathError{Fault: f, Path: p}
		}
	}
	return nil
}

// checkProcess returns a [*PathError] for the first of faults that no path
// of a server in this process (not a child: in-process or over HTTP) acts
// on, or nil.
func checkProcess(faults []Fault) error {
	for _, f := range faults {
		if !f.ActsOn(Path{}) && !f.ActsOn(Path{HTTP: true}) && !f.ActsOn(Path{HTTP: true, SSE: true}) {
			return &PathError{Fault: f, Path: Path{}, here: true}
		}
	}
	return nil
}

// refusedFactory is the in-process factory of a fake with a fault that
// does not act in-process: every connection fails with err.
type refusedFactory struct {
	transport.Factory
	err error
}

func (f refusedFactory) Transport() (mcp.Transport, error) { return nil, f.err }
