package testkit

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serve starts a go-sdk server with one tool on an in-memory pipe and
// returns the client's end and the server's session. answer, if set,
// replaces the revision the server settles on.
func serve(t *testing.T, answer string) (mcp.Transport, *mcp.ServerSession) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "srv", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	if answer != "" {
		srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				res, err := next(ctx, method, req)
				if r, ok := res.(*mcp.InitializeResult); ok {
					r.ProtocolVersion = answer
				}
				return res, err
			}
		})
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return ct, ss
}

// Connect hands back a session at the revision asked for, which works,
// and closes it when the test ends.
func TestConnectClosesAtCleanup(t *testing.T) {
	ct, ss := serve(t, "") // the server's end is closed with this test, not the subtest
	t.Run("sub", func(t *testing.T) {
		cs := Connect(t, ct, &ConnectOptions{Version: "2025-11-25"})
		if got := cs.InitializeResult().ProtocolVersion; got != "2025-11-25" {
			t.Errorf("negotiated %s, want 2025-11-25", got)
		}
		if _, err := cs.ListTools(Context(t), nil); err != nil {
			t.Errorf("ListTools: %v", err)
		}
	})
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	Await(t, ended, "the server session's end after the subtest's cleanup")
}

// Connect fails the test when the server settles on another revision than
// the one asked for.
func TestConnectFailsOnAnotherRevision(t *testing.T) {
	ct, _ := serve(t, "2025-06-18")
	f := newFakeT(t, Timeout)
	fatal, returned := f.run(func() { Connect(f, ct, &ConnectOptions{Version: "2025-11-25"}) })
	if returned || !strings.Contains(fatal, "negotiated 2025-06-18, want 2025-11-25") {
		t.Errorf("Connect answered 2025-06-18: returned %v, Fatalf(%q); want a failure naming both revisions", returned, fatal)
	}
}

// With no Version, Connect takes what the go-sdk negotiates by default.
func TestConnectDefaultRevision(t *testing.T) {
	ct, _ := serve(t, "")
	cs := Connect(t, ct, nil)
	if got := cs.InitializeResult().ProtocolVersion; got == "" {
		t.Error("no revision negotiated")
	}
}

type failingTransport struct{ err error }

func (f failingTransport) Connect(context.Context) (mcp.Connection, error) { return nil, f.err }

func (f failingTransport) Transport() (mcp.Transport, error) { return nil, f.err }

// TryConnect returns the connection's error rather than failing the test.
func TestTryConnectReturnsTheError(t *testing.T) {
	errDial := errors.New("dial refused")
	cs, err := TryConnect(t, failingTransport{errDial}, nil)
	if cs != nil || !errors.Is(err, errDial) {
		t.Errorf("TryConnect = %v, %v; want nil and the transport's error", cs, err)
	}
}

// Transport fails the test on the factory's error.
func TestTransportFailsOnTheFactorysError(t *testing.T) {
	f := newFakeT(t, Timeout)
	fatal, returned := f.run(func() { Transport(f, failingTransport{errors.New("no such endpoint")}) })
	if returned || !strings.Contains(fatal, "no such endpoint") {
		t.Errorf("Transport of a failing factory: returned %v, Fatalf(%q); want a failure with its error", returned, fatal)
	}
}
