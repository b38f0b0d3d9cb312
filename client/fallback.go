package client

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk, offered 2026-07-28, sends server/discover and, on any error
// it gets, falls back to the initialize handshake of 2025-11-25: right
// for a server that lacks the revision, wrong for a request refused by
// authorization or by policy (a 401 the credentials could not answer, a
// redirect to another origin), which says nothing of the server's
// revisions. The initialize would be refused the same way, after a second
// refusal at the resource and, for a source that asks again, a second
// token request. The go-sdk's fallback cannot be configured, so Connect's
// sending middleware keeps the failure of server/discover and, when its
// class is auth or policy, fails the initialize that follows with it,
// unsent.

const (
	methodDiscover   = "server/discover"
	methodInitialize = "initialize"
)

// A fallbackGate keeps a server/discover refusal for the initialize the
// go-sdk sends next.
type fallbackGate struct {
	classify func(error) FailureClass

	mu      sync.Mutex
	refused error // a server/discover failure of class auth or policy
}

func (g *fallbackGate) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == methodInitialize {
			g.mu.Lock()
			err := g.refused
			g.mu.Unlock()
			if err != nil {
				return nil, err
			}
		}
		res, err := next(ctx, method, req)
		if method == methodDiscover && err != nil {
			if cl := g.classify(err); cl == ClassAuth || cl == ClassPolicy {
				g.mu.Lock()
				g.refused = err
				g.mu.Unlock()
			}
		}
		return res, err
	}
}
