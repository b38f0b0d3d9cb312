package inprocess

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// New returns a Factory whose every transport connects a new session of srv
// when it is connected. The server session ends when the client side closes.
//
// If srv is nil, the Factory's Transport fails with an error matching
// [transport.ErrPolicy] (a configuration error, which client.Connect reports
// as client.ClassPolicy before anything starts).
func New(srv *mcp.Server) transport.Factory {
	if srv == nil {
		return factory{err: errNilServer}
	}
	return factory{srv: srv}
}

// errNilServer is the error of New(nil)'s Factory.
var errNilServer = fmt.Errorf("%w: inprocess.New: srv is nil", transport.ErrPolicy)

type factory struct {
	srv *mcp.Server
	err error // errNilServer when srv is nil
}

func (factory) Kind() transport.Kind { return transport.KindInProcess }

func (f factory) Transport() (mcp.Transport, error) {
	if f.err != nil {
		return nil, f.err
	}
	return &serverTransport{srv: f.srv}, nil
}

type serverTransport struct{ srv *mcp.Server }

func (t *serverTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, s := Pipe()
	if _, err := t.srv.Connect(ctx, s, nil); err != nil {
		return nil, err
	}
	return c.Connect(ctx)
}

// Pipe returns two transports connected to each other, like
// mcp.NewInMemoryTransports but without framing. Connect the server side
// first. Closing either connection closes both.
func Pipe() (mcp.Transport, mcp.Transport) {
	p := &pipe{closed: make(chan struct{})}
	a2b := make(chan jsonrpc.Message, 16)
	b2a := make(chan jsonrpc.Message, 16)
	return &end{conn: &conn{p: p, in: b2a, out: a2b}}, &end{conn: &conn{p: p, in: a2b, out: b2a}}
}

type end struct{ conn *conn }

func (e *end) Connect(context.Context) (mcp.Connection, error) { return e.conn, nil }

// pipe is the state both ends share.
type pipe struct {
	once   sync.Once
	closed chan struct{}
}

func (p *pipe) close() { p.once.Do(func() { close(p.closed) }) }

type conn struct {
	p   *pipe
	in  <-chan jsonrpc.Message
	out chan<- jsonrpc.Message
}

func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.p.closed:
		return nil, io.EOF
	default:
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.p.closed:
		return nil, io.EOF
	case m := <-c.in:
		return m, nil
	}
}

func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	msg = clone(msg)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-c.p.closed:
		return transport.ErrClosed
	default:
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-c.p.closed:
		return transport.ErrClosed
	case c.out <- msg:
		return nil
	}
}

func (c *conn) Close() error { c.p.close(); return nil }

func (c *conn) SessionID() string { return "" }

// clone copies the message struct so that neither side can observe the
// other's later changes to it. Params and results are immutable encoded JSON
// and are shared.
func clone(m jsonrpc.Message) jsonrpc.Message {
	switch m := m.(type) {
	case *jsonrpc.Request:
		c := *m
		return &c
	case *jsonrpc.Response:
		c := *m
		return &c
	}
	return m
}
