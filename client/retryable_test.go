package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A call that ends because the caller stopped waiting (its context's
// deadline, Limits.CallTimeout, its context cancelled) is a timeout the
// caller set: the connection is fine, the error says it need not be
// retried, and the next call on the same client is answered. A timeout at
// Connect, and a transport's own bound, are the connection's.
func TestCallerTimeoutIsNotTheConnections(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limits client.Limits
		ctx    func() (context.Context, context.CancelFunc)
		cancel bool // cancel the context once the tool runs
		is     error
	}{
		{name: "deadline", ctx: func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 50*time.Millisecond)
		}, is: context.DeadlineExceeded},
		{name: "CallTimeout", limits: client.Limits{CallTimeout: 50 * time.Millisecond}, is: context.DeadlineExceeded},
		{name: "cancelled", cancel: true, is: context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			entered, release := make(chan struct{}, 1), make(chan struct{})
			defer close(release)
			n := &counter{}
			srv := gateServer(entered, release, n)
			mcp.AddTool(srv, &mcp.Tool{Name: "quick"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, nil
			})
			c := connect(t, srv, client.Definition{Name: "gate", Limits: tc.limits}, nil)
			bs := backstop(t)
			ctx, cancel := context.WithCancel(bs)
			if tc.ctx != nil {
				ctx, cancel = tc.ctx()
			}
			defer cancel()
			if tc.cancel {
				go func() {
					select {
					case <-entered:
					case <-time.After(30 * time.Second): // the call fails the test below then
					}
					cancel()
				}()
			}
			_, err := c.CallTool(ctx, "wait", map[string]any{})
			notBackstopped(t, bs, err)
			assertClass(t, err, client.ClassTimeout, tc.is)
			var ce *client.Error
			if errors.As(err, &ce) && ce.ConnectionRetryable() {
				t.Errorf("%v: ConnectionRetryable() = true for a timeout the caller set", err)
			}
			callCtx, stop := context.WithTimeout(context.Background(), 30*time.Second)
			defer stop()
			if _, err := c.CallTool(callCtx, "quick", map[string]any{}); err != nil {
				t.Errorf("the next call on the same client: %v", err)
			}
		})
	}
	t.Run("connect", func(t *testing.T) {
		leakcheck.Check(t)
		srv := mcp.NewServer(&mcp.Implementation{Name: "mute", Version: "v1"}, nil)
		srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "initialize" || method == "server/discover" {
					<-ctx.Done() // never answers the handshake
					return nil, ctx.Err()
				}
				return next(ctx, method, req)
			}
		})
		_, err := client.Connect(context.Background(), client.Definition{Name: "mute", Transport: inprocess.New(srv),
			Limits: client.Limits{ConnectTimeout: 50 * time.Millisecond}}, nil)
		assertClass(t, err, client.ClassTimeout, context.DeadlineExceeded)
		var ce *client.Error
		if errors.As(err, &ce) && !ce.ConnectionRetryable() {
			t.Errorf("%v: ConnectionRetryable() = false for a handshake that timed out", err)
		}
	})
	for _, tc := range []struct {
		e    *client.Error
		want bool
	}{
		{&client.Error{Class: client.ClassTimeout, Op: client.OpCallTool, Err: context.DeadlineExceeded}, false},
		{&client.Error{Class: client.ClassTimeout, Op: client.OpRead, Err: context.Canceled}, false},
		{&client.Error{Class: client.ClassTimeout, Op: client.OpCallTool, Err: &transport.TimeoutError{Phase: "idle read", Limit: time.Second}}, true},
		{&client.Error{Class: client.ClassTimeout, Op: client.OpConnect, Err: context.DeadlineExceeded}, true},
		{&client.Error{Class: client.ClassTimeout, Op: client.OpDiscover, Err: context.DeadlineExceeded}, true},
		{&client.Error{Class: client.ClassTimeout, Op: client.OpClose, Err: &client.ReasonError{Reason: client.ReasonHandlerStuck}}, false},
	} {
		if got := tc.e.ConnectionRetryable(); got != tc.want {
			t.Errorf("%v (op %s): ConnectionRetryable() = %v, want %v", tc.e, tc.e.Op, got, tc.want)
		}
	}
}
