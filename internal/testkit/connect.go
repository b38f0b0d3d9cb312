package testkit

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ConnectOptions are the options of [Connect] and [TryConnect]. The zero
// value connects a plain client at the go-sdk's default revision.
type ConnectOptions struct {
	// Client is the go-sdk client that connects. If nil, a client of
	// [NewClient](nil) connects: no handlers, no roots.
	Client *mcp.Client

	// Version is the protocol revision the client offers. If empty, the
	// go-sdk's default (2026-07-28, falling back to 2025-11-25). With
	// Connect, the server must settle on Version, or the test fails.
	Version string
}

// NewClient returns a go-sdk client named "test", version "v0", with opts
// (nil: the go-sdk's defaults).
func NewClient(opts *mcp.ClientOptions) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, opts)
}

// A Factory makes the transport of one connection, as transport.Factory
// does (which this package does not import).
type Factory interface {
	Transport() (mcp.Transport, error)
}

// Transport returns f's transport, failing t (Fatalf) on an error.
func Transport(t testing.TB, f Factory) mcp.Transport {
	t.Helper()
	tr, err := f.Transport()
	if err != nil {
		t.Fatalf("testkit: Transport: %v", err)
	}
	return tr
}

// Connect connects a go-sdk client (opts.Client, or [NewClient](nil)) over
// tr within the test's deadline ([Context]) and closes the session at
// cleanup. It fails t (Fatalf) if the connection fails, or if the server
// settles on a revision other than opts.Version when that is set. opts may
// be nil.
func Connect(t testing.TB, tr mcp.Transport, opts *ConnectOptions) *mcp.ClientSession {
	t.Helper()
	cs, err := TryConnect(t, tr, opts)
	if err != nil {
		t.Fatalf("testkit: Connect: %v", err)
	}
	if opts != nil && opts.Version != "" {
		if got := cs.InitializeResult().ProtocolVersion; got != opts.Version {
			t.Fatalf("testkit: Connect: the server negotiated %s, want %s", got, opts.Version)
		}
	}
	return cs
}

// TryConnect is [Connect] for a test of the connection itself: it returns
// Connect's error instead of failing t, and does not check the revision
// the server settles on. A session it returns is closed at cleanup.
func TryConnect(t testing.TB, tr mcp.Transport, opts *ConnectOptions) (*mcp.ClientSession, error) {
	t.Helper()
	var o ConnectOptions
	if opts != nil {
		o = *opts
	}
	if o.Client == nil {
		o.Client = NewClient(nil)
	}
	var so *mcp.ClientSessionOptions
	if o.Version != "" {
		so = &mcp.ClientSessionOptions{ProtocolVersion: o.Version}
	}
	cs, err := o.Client.Connect(Context(t), tr, so)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { cs.Close() })
	return cs, nil
}
