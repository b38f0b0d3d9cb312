package sse

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Conn is one legacy SSE connection: the go-sdk's, with this package's
// account of the calls awaiting their answer (which the idle-read watchdog
// needs) and its errors in place of the go-sdk's. The go-sdk's SSE client
// connection has no unexported hooks, so wrapping it hides nothing. Its
// POSTs are the go-sdk's; what it reads is the session stream's messages,
// each decoded once as the go-sdk decodes it (see streamBody.pump), not
// the go-sdk's Read, which would decode each again.
type Conn struct {
	inner mcp.Connection
	st    *connState
}

var _ mcp.Connection = (*Conn)(nil)

// Read returns the next message from the session stream. When the stream
// ended on a bound of this package (a limit, the idle watchdog), Read
// returns that error, and the go-sdk fails every call in flight with it.
func (c *Conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.next(ctx)
	if err != nil {
		if f := c.st.streamFailure(); f != nil && ctx.Err() == nil {
			return nil, f
		}
		switch {
		case ctx.Err() != nil, c.st.isClosed():
		case !errors.Is(err, io.EOF):
			// The go-sdk reads nothing but a message it cannot decode
			// this way: the server broke the protocol.
			return nil, c.st.fail(fmt.Errorf("%w: %w", errMalformed, err))
		case c.st.awaiting() > 0:
			// The server ended the session stream under calls it had
			// been sent: their answers are lost.
			return nil, c.st.fail(fmt.Errorf("%w: the session stream ended with %d call(s) unanswered", transport.ErrBroken, c.st.awaiting()))
		}
		return nil, err
	}
	if r, ok := msg.(*jsonrpc.Response); ok {
		c.st.callOver(r.ID)
	}
	return msg, nil
}

// next takes the next message of the session stream: io.EOF once the
// stream ended or the connection closed.
func (c *Conn) next(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.st.ctx.Done():
		return nil, io.EOF
	default:
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.st.ctx.Done():
		return nil, io.EOF
	case <-c.st.ended:
		return nil, io.EOF
	case r := <-c.st.incoming:
		return r.msg, r.err
	}
}

// Write POSTs msg to the session's message endpoint. A POST is never sent
// twice.
func (c *Conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, _ := msg.(*jsonrpc.Request)
	switch {
	case req == nil:
	case req.IsCall():
		c.st.sent(req.ID)
	case req.Method == "notifications/cancelled":
		// A cancelled call is not answered: stop waiting for it.
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
				c.st.callOver(id)
			}
		}
	}
	err := c.inner.Write(ctx, msg)
	if err != nil && req != nil && req.IsCall() {
		c.st.callOver(req.ID)
	}
	return err
}

// Close ends the session stream and frees the connection's pool. It may be
// called more than once.
func (c *Conn) Close() error {
	err := c.inner.Close()
	c.st.shutdown()
	return err
}

// SessionID returns "": the 2024-11-05 transport has no session id header.
func (c *Conn) SessionID() string { return c.inner.SessionID() }
