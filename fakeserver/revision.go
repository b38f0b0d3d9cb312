package fakeserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/looprig/mcp/protocol"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The protocol revisions a fake can be pinned to (Options.Revision).
const (
	// Revision20251125 serves as a server from before 2026-07-28 does: the
	// initialize handshake and sessions only. server/discover is an
	// unknown method, so a client on the zero client.Profile falls back
	// to initialize (and a client pinned to 2026-07-28 refuses the
	// server); a request of protocol 2026-07-28 is refused with -32022.
	Revision20251125 = protocol.Revision20251125
	// Revision20260728 serves only the current revision: initialize is an
	// unknown method, so a client pinned to an older revision cannot
	// connect.
	Revision20260728 = protocol.Revision20260728
)

// badName is the reason of an option naming what the fake does not have:
// a catalog or a revision. It matches ErrBadCatalog, since the fake's
// definition cannot be made; the text says which.
type badName string

func (e badName) Error() string { return string(e) }

// Is reports whether target is ErrBadCatalog.
func (e badName) Is(target error) bool { return target == ErrBadCatalog }

// errUnknownRevision is returned when Options.Revision is not one of the
// revisions a fake can be pinned to.
const errUnknownRevision = badName("unknown protocol revision")

func checkRevision(rev string) error {
	switch rev {
	case "", Revision20251125, Revision20260728:
		return nil
	}
	return fmt.Errorf("fakeserver: %w %q (want %s or %s; empty serves both)", errUnknownRevision, rev, Revision20251125, Revision20260728)
}

// pinRevision is receiving middleware that refuses, before any handler
// runs or anything is counted, what a server of the one revision rev
// would not serve.
func pinRevision(rev string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if err := refuseRevision(rev, method, req); err != nil {
				return nil, err
			}
			return next(ctx, method, req)
		}
	}
}

func refuseRevision(rev, method string, req mcp.Request) error {
	notFound := &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("method %q not found (the server serves protocol revision %s only)", method, rev)}
	switch {
	case rev == Revision20251125 && method == "server/discover":
		return notFound
	case rev == Revision20260728 && method == "initialize":
		return notFound
	case rev == Revision20251125 && method != "initialize":
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok {
			return nil
		}
		if p := ss.InitializeParams(); p != nil && p.ProtocolVersion >= Revision20260728 {
			data, _ := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: []string{Revision20251125}, Requested: p.ProtocolVersion})
			return &jsonrpc.Error{Code: mcp.CodeUnsupportedProtocolVersion, Message: fmt.Sprintf("protocol revision %s not supported (the server serves %s only)", p.ProtocolVersion, rev), Data: data}
		}
	}
	return nil
}
