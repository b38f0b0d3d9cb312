package server

import (
	"context"
	"errors"
	"io"

	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Serve runs one session over t, any go-sdk transport, and returns when the
// session ends. It returns nil when the client closed it. It returns ctx's
// error when ctx ended it (the session is closed first). Otherwise it
// returns the error that broke it.
//
// To serve many sessions at once, call Serve once per transport; all
// sessions share the registry.
func (s *Server) Serve(ctx context.Context, t mcp.Transport) error {
	ctx, t = s.withTasks(ctx, t)
	ss, err := s.mcp.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case err := <-done:
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) { // the client closed it (a pipe's end: the go-sdk's in-memory transports)
			return nil
		}
		return err
	case <-ctx.Done():
		ss.Close()
		<-done
		return ctx.Err()
	}
}

// ServeStdio runs one session reading newline-delimited JSON from stdin and
// writing it to stdout, as a server launched by a client does with its
// os.Stdin and os.Stdout. It returns when stdin ends (nil) or ctx is done.
//
// Inbound frames are bounded by the go-sdk's mcp.DefaultMaxLineLength
// (16 MiB). Each is read as the go-sdk reads it, and refused as
// [HTTPHandler] refuses a body (see "Hostile clients" in the package
// documentation). A message another reader could read otherwise is
// answered with the error -32600 and id null. So is a request whose id
// the reply could not carry unchanged. Neither reaches the session, and
// the session goes on. stdout receives one Write per frame. If stdin is an
// io.Closer it is closed when the session ends; otherwise a read blocked
// on it when ctx ends stays blocked until it returns.
func (s *Server) ServeStdio(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	rc, ok := stdin.(io.ReadCloser)
	if !ok {
		rc = io.NopCloser(stdin)
	}
	out := &frameWriter{w: stdout}
	sc := newScreen(rc, out)
	return s.Serve(ctx, &mcp.IOTransport{Reader: sc, Writer: nopWriteCloser{out}})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// Factory returns an in-process transport.Factory: each connection is a new
// session of this server in the same process (see transport/inprocess).
// The session ends when the client closes it.
func (s *Server) Factory() transport.Factory {
	if s.tasks != nil {
		return taskFactory{s}
	}
	return inprocess.New(s.mcp)
}
