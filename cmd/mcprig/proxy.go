package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// errTooLarge is returned by relay when a session carries more bytes than a
// cassette may hold (cassette.MaxSize): a recording past it could not be
// loaded again, so the proxy ends the session instead of growing without
// bound.
var errTooLarge = errors.New("session too large to record")

// errServerEnded is returned (wrapped) by relay when the server side ended the
// session before the client did.
var errServerEnded = errors.New("server ended the session")

// A serverEnd is relay's result when the server side ended the session
// first: what ended it and, when the server connection says (a stdio
// child, live or replayed from its cassette), how the server ended.
type serverEnd struct {
	err  error
	diag *transport.Diagnosis // nil when nothing is known
}

func (e *serverEnd) Error() string   { return errServerEnded.Error() + ": " + e.err.Error() }
func (e *serverEnd) Unwrap() []error { return []error{errServerEnded, e.err} }

// exitStatus is the exit status of a proxy whose session failed with err.
// It is the server's own exit code when that is all that went wrong: the
// server exited, ending the session. So the client that launched the proxy
// sees the status it would have seen from the server itself, recording and
// replaying alike. Otherwise it is 1.
func exitStatus(err error) int {
	if se, ok := err.(*serverEnd); ok && se.diag != nil && se.diag.Exited && se.diag.ExitCode >= 0 {
		return se.diag.ExitCode
	}
	return 1
}

// A relay forwards JSON-RPC messages, unchanged, between the two sides of
// a proxy. The client side (down) is the MCP client that launched mcprig.
// The server side (up) is a recording or replaying connection. The go-sdk
// decodes each frame into a jsonrpc.Message whose params and result stay
// raw JSON, and encodes it again on the other side.
type relay struct {
	down, up mcp.Connection

	// maxBytes bounds the bytes of params, results and errors forwarded in
	// both directions; 0 means no bound.
	maxBytes int64
	// every, if positive, calls progress after every that many messages.
	every    int64
	progress func(fromClient, fromServer int64)

	fromClient, fromServer, bytes atomic.Int64

	// diag is how the server connection ended, as it reports it once
	// closed (transport.Diagnoser); set by run.
	diag *transport.Diagnosis
}

// run forwards messages until either side ends, then closes up (which, for a
// recording, writes the cassette) and down. It returns nil when the client
// ended the session (end of its input, or ctx cancelled by a signal), and
// otherwise the error that ended it, joined with Close's.
func (r *relay) run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type end struct {
		fromClient bool
		err        error
	}
	ends := make(chan end, 2)
	go func() { ends <- end{true, r.pump(ctx, r.down, r.up, true)} }()
	go func() { ends <- end{false, r.pump(ctx, r.up, r.down, false)} }()

	var first end
	pending := 2
	select {
	case first = <-ends:
		pending--
	case <-ctx.Done():
		first = end{true, io.EOF}
	}
	cancel()
	closeErr := r.up.Close()
	if d, ok := transport.As[transport.Diagnoser](r.up); ok {
		r.diag = d.Diagnose()
	}
	r.down.Close()
	// Both pumps end once their connections are closed and ctx is done.
	for ; pending > 0; pending-- {
		<-ends
	}
	err := r.reason(first.fromClient, first.err)
	if closeErr != nil {
		return errors.Join(err, closeErr)
	}
	return err
}

// reason turns the error that ended the first pump into relay's result.
func (r *relay) reason(fromClient bool, err error) error {
	switch {
	case errors.Is(err, errTooLarge):
		return err
	case fromClient && (errors.Is(err, io.EOF) || errors.Is(err, context.Canceled)):
		return nil // the client closed its end: the normal end of a session
	case fromClient:
		return fmt.Errorf("reading from the client: %w", err)
	default:
		return &serverEnd{err: err, diag: r.diag}
	}
}

// pump copies messages from src to dst until one of them fails.
func (r *relay) pump(ctx context.Context, src, dst mcp.Connection, fromClient bool) error {
	for {
		m, err := src.Read(ctx)
		if err != nil {
			return err
		}
		if r.maxBytes > 0 && r.bytes.Add(size(m)) > r.maxBytes {
			return fmt.Errorf("%w: over %d bytes", errTooLarge, r.maxBytes)
		}
		if err := dst.Write(ctx, m); err != nil {
			if fromClient {
				return fmt.Errorf("%w: writing to the server: %w", errServerEnded, err)
			}
			return fmt.Errorf("writing to the client: %w", err)
		}
		r.count(fromClient)
	}
}

func (r *relay) count(fromClient bool) {
	if fromClient {
		r.fromClient.Add(1)
	} else {
		r.fromServer.Add(1)
	}
	if r.every <= 0 || r.progress == nil {
		return
	}
	c, s := r.fromClient.Load(), r.fromServer.Load()
	if (c+s)%r.every == 0 {
		r.progress(c, s)
	}
}

// Messages returns how many messages were forwarded each way.
func (r *relay) Messages() (fromClient, fromServer int64) {
	return r.fromClient.Load(), r.fromServer.Load()
}

// size is a cheap measure of a message's encoded size: its raw payload plus
// a fixed allowance for the envelope.
func size(m jsonrpc.Message) int64 {
	const envelope = 64
	switch m := m.(type) {
	case *jsonrpc.Request:
		return envelope + int64(len(m.Method)+len(m.Params))
	case *jsonrpc.Response:
		n := envelope + int64(len(m.Result))
		if m.Error != nil {
			n += int64(len(m.Error.Error()))
		}
		return n
	}
	return envelope
}

// stdioConn is the client side of a stdio proxy: newline-delimited JSON-RPC
// on in and out, framed by the go-sdk, each inbound frame bounded by
// maxFrame bytes.
func stdioConn(ctx context.Context, in io.Reader, out io.Writer, maxFrame int) (mcp.Connection, error) {
	t := &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}, MaxLineLength: maxFrame}
	return t.Connect(ctx)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// A lockedWriter serialises the writes of several goroutines to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// An asyncWriter passes writes to w from its own goroutine, so that a writer
// that must not block (the stdio transport's stderr copy) never does. It
// keeps at most cap chunks queued and drops what does not fit, counting the
// bytes dropped. Close flushes the queue and waits for the goroutine.
type asyncWriter struct {
	w       io.Writer
	ch      chan []byte
	done    chan struct{}
	once    sync.Once
	dropped atomic.Int64

	mu     sync.Mutex // guards closed against a send after Close
	closed bool
}

func newAsyncWriter(w io.Writer, chunks int) *asyncWriter {
	a := &asyncWriter{w: w, ch: make(chan []byte, chunks), done: make(chan struct{})}
	go func() {
		defer close(a.done)
		for p := range a.ch {
			a.w.Write(p)
		}
	}()
	return a
}

func (a *asyncWriter) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return len(p), nil
	}
	select {
	case a.ch <- append([]byte(nil), p...):
	default:
		a.dropped.Add(int64(len(p)))
	}
	return len(p), nil
}

// Close flushes what is queued and returns how many bytes were dropped.
func (a *asyncWriter) Close() int64 {
	a.once.Do(func() {
		a.mu.Lock()
		a.closed = true
		close(a.ch)
		a.mu.Unlock()
		<-a.done
	})
	return a.dropped.Load()
}
