package mcptest

import (
	"context"
	"sync"

	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connCounter is a factory that counts the client connections it made that
// are still open, so that a leak check knows at once when a client was
// never closed, and otherwise waits only for the server to catch up.
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

// Classify passes the wrapped factory's transport.Classifier through.
func (f *connCounter) Classify(err error) error {
	if c, ok := f.Factory.(transport.Classifier); ok {
		return c.Classify(err)
	}
	return nil
}

// PinnedProtocolVersion passes the wrapped factory's
// transport.ProtocolPinner through.
func (f *connCounter) PinnedProtocolVersion() string {
	if p, ok := f.Factory.(transport.ProtocolPinner); ok {
		return p.PinnedProtocolVersion()
	}
	return ""
}

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

func (c *countedConn) Close() error {
	err := c.Connection.Close()
	c.once.Do(func() { c.f.add(-1) })
	return err
}
