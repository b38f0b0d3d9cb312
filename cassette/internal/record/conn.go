package record

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Transport records the one session of a message-level factory.
type Transport struct {
	inner mcp.Transport
	conn  func(mcp.Connection) *Conn
}

func (t *Transport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return t.conn(c), nil
}

// NewTransport returns a transport that records the one session of inner,
// through the connection conn makes of inner's.
func NewTransport(inner mcp.Transport, conn func(mcp.Connection) *Conn) mcp.Transport {
	return &Transport{inner: inner, conn: conn}
}

// NewConn returns a recording connection over inner. cl is the recorded
// factory's classifier, if any; done, if set, is called once the
// connection is closed.
func NewConn(inner mcp.Connection, cl transport.Classifier, done func()) *Conn {
	return &Conn{inner: inner, cl: cl, done: done}
}

// Conn passes every message through and keeps it, in the order the
// client saw it, with how the session ended.
type Conn struct {
	inner mcp.Connection
	cl    transport.Classifier // the recorded factory's, if any
	done  func()               // called once the connection is closed: the session ended

	mu       sync.Mutex // guards the fields below
	entries  []Entry
	size     int  // about the bytes of the messages recorded
	tooLarge bool // they grew past MaxSize: nothing more is kept, nor what was
	closing  bool // Close has begun: read errors are the client's doing

	closeOnce sync.Once
	closeErr  error
}

// An Entry is one entry of a message-level recording: a message, or the
// server's end of the session.
type Entry struct {
	from   string
	msg    jsonrpc.Message
	failed bool // a client message whose write failed: it may not have been sent

	end   error                // the error that ended reading (io.EOF included), for the server's end
	diag  *transport.Diagnosis // what the connection knew of the end then
	class transport.Class
}

// shallow copies the message struct; params and results are immutable.
func shallow(m jsonrpc.Message) jsonrpc.Message {
	switch m := m.(type) {
	case *jsonrpc.Request:
		c := *m
		c.Extra = nil
		return &c
	case *jsonrpc.Response:
		c := *m
		c.Extra = nil
		return &c
	}
	return m
}

// add keeps e and returns its index, or -1 once Close has begun or the
// recording has grown past MaxSize (then what was kept is dropped too, so
// that memory stays within the bound: the cassette could not be written).
func (c *Conn) add(e Entry) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing || c.tooLarge {
		return -1
	}
	if c.size += msgSize(e.msg); c.size > format.Limit {
		c.tooLarge, c.entries = true, nil
		return -1
	}
	c.entries = append(c.entries, e)
	return len(c.entries) - 1
}

// msgSize is about the bytes m takes in a cassette: at least its
// parameters, result or error, and its method.
func msgSize(m jsonrpc.Message) int {
	n := 64
	switch m := m.(type) {
	case *jsonrpc.Request:
		n += len(m.Method) + len(m.Params)
	case *jsonrpc.Response:
		n += len(m.Result)
		if m.Error != nil {
			n += len(m.Error.Error())
		}
	}
	return n
}

func (c *Conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.inner.Read(ctx)
	switch {
	case err == nil:
		c.add(Entry{from: format.FromServer, msg: shallow(m)})
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		// The reader gave up; the session goes on.
	default:
		c.mu.Lock()
		ended := c.closing
		for _, e := range c.entries {
			ended = ended || e.end != nil
		}
		c.mu.Unlock()
		if !ended {
			e := Entry{end: err, class: ClassOf(err, c.cl)}
			if d, ok := transport.As[transport.Diagnoser](c.inner); ok {
				e.diag = d.Diagnose()
			}
			if errors.Is(err, io.EOF) {
				e.class = 0
			}
			c.add(e)
		}
	}
	return m, err
}

// Write records the message before writing it, so that a reply the peer
// sends at once cannot be recorded ahead of it.
func (c *Conn) Write(ctx context.Context, m jsonrpc.Message) error {
	i := c.add(Entry{from: format.FromClient, msg: shallow(m)})
	err := c.inner.Write(ctx, m)
	if err != nil && i >= 0 {
		c.mu.Lock()
		if !c.tooLarge {
			c.entries[i].failed = true
		}
		c.mu.Unlock()
	}
	return err
}

func (c *Conn) SessionID() string { return c.inner.SessionID() }

// Unwrap returns the recorded connection (a transport.Diagnoser is found
// through it).
func (c *Conn) Unwrap() mcp.Connection { return c.inner }

// Close closes the inner connection; the recording is written by the
// factory's Close.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closing = true
		c.mu.Unlock()
		c.closeErr = c.inner.Close()
		if c.done != nil {
			c.done()
		}
	})
	return c.closeErr
}

// Taken returns the recording, once the connection is closed, or
// ErrTooLarge.
func (c *Conn) Taken() ([]Entry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tooLarge {
		return nil, ErrTooLarge
	}
	return c.entries, nil
}
