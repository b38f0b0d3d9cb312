package mcptest

import (
	"context"
	"sync"

	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connCounter is a factory that counts the client connections it made that
// are still open. So a leak check knows at once when a client was never
// closed. Otherwise it waits only for the server to catch up.
type connCounter struct {
	transport.Factory
	mu   sync.Mutex // guards open
	open int
}

func (f *connCounter) Transport() (mcp.Transport, error) {
	t, err := f.Factory.Transport()
	if err != nil {
		return nil, err
	}
	return countedTransport{t, f}, nil
}

// Unwrap returns the counted factory, whose capabilities transport.As
// finds through the counter.
func (f *connCounter) Unwrap() transport.Factory { return f.Factory }

// Open returns the number of connections made and not closed; 0 for a nil
// counter.
func (f *connCounter) Open() int {
	if f == nil {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.open
}

func (f *connCounter) add(n int) {
	f.mu.Lock()
	f.open += n
	f.mu.Unlock()
}

type countedTransport struct {
	mcp.Transport
	f *connCounter
}

// Unwrap returns the counted transport. The client finds the hooks of a
// Streamable HTTP transport through it.
func (t countedTransport) Unwrap() mcp.Transport { return t.Transport }

func (t countedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.f.add(1)
	return &countedConn{Connection: c, f: t.f}, nil
}

type countedConn struct {
	mcp.Connection
	f    *connCounter
	once sync.Once
}

// Unwrap returns the counted connection (a transport.Diagnoser is found
// through it).
func (c *countedConn) Unwrap() mcp.Connection { return c.Connection }

func (c *countedConn) Close() error {
	err := c.Connection.Close()
	c.once.Do(func() { c.f.add(-1) })
	return err
}
