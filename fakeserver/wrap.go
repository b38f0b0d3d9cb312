package fakeserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/looprig/mcp/protocol"
	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Servable is a server [Wrap] can put faults and counters around: the
// go-sdk's *mcp.Server, or this module's *server.Server.
type Servable interface {
	*mcp.Server | *server.Server
}

// WrapOptions configures [Wrap]. A nil *WrapOptions means no faults.
type WrapOptions struct {
	// Faults are the scripted misbehaviours, as for [New]: the kinds that
	// act in-process (delay, hang, error, panic, oversize) and, when the
	// server is served over HTTP ([Server.HTTPHandler],
	// [Server.StartHTTP]), the HTTP kinds. Every tool named must be
	// published by srv when Wrap is called.
	Faults []Fault
}

// Wrap returns a fake server that serves srv, your own server under test,
// with the fault script and the counters of a fake. Every tools/call is
// counted ([Server.Counts]). The faults scripted for its tool act before
// srv's handler runs. It serves in-process ([Server.Factory]) and over
// HTTP ([Server.HTTPHandler], [Server.StartHTTP]). srv's own tools,
// resources and prompts are served unchanged.
//
// Wrap installs a receiving middleware on srv (the go-sdk's
// AddReceivingMiddleware), which cannot be taken off. [Server.Detach]
// makes it pass every request through untouched. So a server shared by
// several tests can be wrapped by each in turn. What it counts is what the
// middleware sees:
//   - a tools/call for a tool srv has, once per request. A call to an
//     unknown tool is not counted. Nor is one srv refuses as invalid
//     params (a JSON-RPC error -32602). A call whose arguments srv's
//     handler then rejects is counted.
//   - on 2026-07-28, each round of a multi round-trip call is a request.
//     So a call that asks for input once is two rounds and one execution.
//     On 2025-11-25 the go-sdk runs both rounds inside one request. That
//     counts as one round and one execution.
//
// The panic fault answers as server.Server does for a panicking handler
// (an isError result "handler panicked: …"), since a go-sdk server does
// not recover its handlers' panics; the error fault gives an isError
// result. Faults that act on a process (crash, malformed, …) need a stdio
// child and are refused.
//
// Wrap returns an error wrapping [transport.ErrBadFault] for an invalid fault, a
// stdio-only one, or one naming a tool srv does not publish.
func Wrap[S Servable](srv S, opts *WrapOptions) (*Server, error) {
	var o WrapOptions
	if opts != nil {
		o = *opts
	}
	s := &Server{faults: o.Faults, logger: discardIfNil(nil), wrapped: true, calls: map[string]int{}, counts: newCounts(), quit: make(chan struct{})}
	switch v := any(srv).(type) {
	case *server.Server:
		if v == nil {
			return nil, errors.New("fakeserver: Wrap: nil server")
		}
		s.srv, s.mcp = v, v.MCP()
	case *mcp.Server:
		if v == nil {
			return nil, errors.New("fakeserver: Wrap: nil server")
		}
		s.mcp = v
	}
	info, tools, err := s.listTools()
	if err != nil {
		return nil, fmt.Errorf("fakeserver: Wrap: listing the server's tools: %w", err)
	}
	s.name = info
	if _, err := s.checkFaults(func(tool string) bool { return tools[tool] }, nil, false); err != nil {
		return nil, err
	}
	for _, f := range s.faults {
		if f.Kind == FaultEnv {
			return nil, fmt.Errorf("fakeserver: fault %q: %w: it adds a tool to a fake's own catalog, not to a wrapped server", f, transport.ErrBadFault)
		}
	}
	s.mcp.AddReceivingMiddleware(s.middleware)
	return s, nil
}

// listTools connects to the server in-process and returns its name and
// the names of its tools.
func (s *Server) listTools() (string, map[string]bool, error) {
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.mcp.Connect(ctx, st, nil)
	if err != nil {
		return "", nil, err
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fakeserver-wrap", Version: Version}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol.Revision20251125})
	if err != nil {
		return "", nil, err
	}
	defer cs.Close()
	name := "server"
	if r := cs.InitializeResult(); r != nil && r.ServerInfo != nil && r.ServerInfo.Name != "" {
		name = r.ServerInfo.Name
	}
	tools := map[string]bool{}
	if cs.InitializeResult().Capabilities.Tools == nil {
		return name, tools, nil
	}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return "", nil, err
		}
		tools[t.Name] = true
	}
	return name, tools, nil
}

// Detach ends a wrapped server's faults and counting: its middleware then
// passes every request through untouched. The counters keep what they
// hold. Detach of a fake that wraps nothing does nothing.
func (s *Server) Detach() { s.detached.Store(true) }

// middleware counts and faults every tools/call of a wrapped server.
func (s *Server) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		cr, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || cr.Params == nil || s.detached.Load() {
			return next(ctx, method, req)
		}
		tool := cr.Params.Name
		var rpcErr error
		res, err := s.round(ctx, cr, func(ctx context.Context) (*mcp.CallToolResult, error) {
			r, err := next(ctx, method, req)
			if err != nil {
				rpcErr = err
				return nil, err
			}
			res, _ := r.(*mcp.CallToolResult)
			return res, nil
		})
		if werr, ok := errors.AsType[*jsonrpc.Error](rpcErr); ok && werr.Code == jsonrpc.CodeInvalidParams {
			s.uncount(tool) // unknown tool, or refused before any handler ran
		}
		if err != nil && rpcErr == nil {
			// A fault decided the outcome: an isError result, as a tool's
			// own failure reaches the caller.
			r := &mcp.CallToolResult{}
			r.SetError(err)
			return r, nil
		}
		if err != nil {
			return nil, err
		}
		return res, nil
	}
}
