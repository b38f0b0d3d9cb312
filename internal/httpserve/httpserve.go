// Package httpserve starts every HTTP server this module runs itself
// (fakeserver.StartHTTP, mcprig fakeserver --http, mcprig replay --listen,
// mcprig record --listen, mcptest's authorization server, the conformance
// server), each behind the Host/Origin rule of package hostorigin and with
// the bounds each of them keeps against slow and greedy clients:
//
//   - a request whose Host or Origin the rule refuses is answered 403
//     before the handler sees it;
//   - the request headers are read within HeaderTimeout (10 s);
//   - a request body is read within BodyTimeout (10 s) of the handler's
//     start: a body dripped slowly is cut when it passes, the connection
//     closed, and the handler's read fails;
//   - a connection idle between requests is closed after IdleTimeout
//     (60 s);
//   - at most MaxConns (256) connections are open at once: the next one is
//     answered 503 Service Unavailable, with Retry-After, and closed;
//   - headers are bounded by net/http's DefaultMaxHeaderBytes (1 MiB).
//
// A slow client thereby holds one connection, and its handler, for at most
// the header and body timeouts: a good client beside it is served, unless
// MaxConns slow ones are connected at once, and then as soon as one is cut.
// The time to write a response is not bounded: responses here are event
// streams that last as long as their session.
//
//	srv := httpserve.New(handler, nil, nil, nil)
//	go srv.Serve(ln)
//	defer srv.Close()
package httpserve

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/looprig/mcp/internal/hostorigin"
)

// The bounds used when the corresponding Limits field is zero.
const (
	HeaderTimeout = 10 * time.Second
	BodyTimeout   = 10 * time.Second
	IdleTimeout   = 60 * time.Second
	MaxConns      = 256
)

// Limits are the bounds of one server. A zero field takes the default of
// the same name; a negative one means no bound (for tests that need it).
type Limits struct {
	HeaderTimeout time.Duration
	BodyTimeout   time.Duration
	IdleTimeout   time.Duration
	MaxConns      int
}

func (l *Limits) orDefaults() Limits {
	var o Limits
	if l != nil {
		o = *l
	}
	pick := func(v *time.Duration, def time.Duration) {
		switch {
		case *v == 0:
			*v = def
		case *v < 0:
			*v = 0
		}
	}
	pick(&o.HeaderTimeout, HeaderTimeout)
	pick(&o.BodyTimeout, BodyTimeout)
	pick(&o.IdleTimeout, IdleTimeout)
	switch {
	case o.MaxConns == 0:
		o.MaxConns = MaxConns
	case o.MaxConns < 0:
		o.MaxConns = 0
	}
	return o
}

// A Server is an http.Server with the bounds of Limits.
type Server struct {
	srv      *http.Server
	maxConns int
}

// New returns a server of h behind door (nil: hostorigin.Default) with
// limits l (nil: the defaults). errlog receives the http.Server's own
// log; nil discards it.
func New(h http.Handler, door *hostorigin.Policy, l *Limits, errlog *log.Logger) *Server {
	if door == nil {
		door = hostorigin.Default
	}
	lim := l.orDefaults()
	if errlog == nil {
		errlog = log.New(io.Discard, "", 0)
	}
	return &Server{
		srv: &http.Server{
			Handler:           door.Handler(BoundBody(h, lim.BodyTimeout)),
			ReadHeaderTimeout: lim.HeaderTimeout,
			IdleTimeout:       lim.IdleTimeout,
			MaxHeaderBytes:    http.DefaultMaxHeaderBytes,
			ErrorLog:          errlog,
		},
		maxConns: lim.MaxConns,
	}
}

// Serve accepts connections on ln until the server is closed, as
// http.Server.Serve does, at most MaxConns of them open at once.
func (s *Server) Serve(ln net.Listener) error {
	if s.maxConns > 0 {
		ln = &limitListener{Listener: ln, free: make(chan struct{}, s.maxConns), refusing: make(chan struct{}, maxRefusing)}
	}
	return s.srv.Serve(ln)
}

// Shutdown is http.Server.Shutdown.
func (s *Server) Shutdown(ctx context.Context) error { return s.srv.Shutdown(ctx) }

// Close is http.Server.Close.
func (s *Server) Close() error { return s.srv.Close() }

// BoundBody bounds the time h may take to read a request's body to d from
// the handler's start (d zero: no bound). Once the body is read to its end,
// the connection's read deadline is lifted, so that a response stream is
// not cut by it. A body not read to its end keeps it, so that what net/http
// reads of it after the handler is bounded too; a body whose read passed
// the deadline fails every later read at once, whatever deadline is set
// after, and its connection is closed after the response. ReadBody, in h,
// never reads past the deadline.
func BoundBody(h http.Handler, d time.Duration) http.Handler {
	if d <= 0 {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			deadline := time.Now().Add(d)
			if rc.SetReadDeadline(deadline) == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
				r = r.WithContext(context.WithValue(r.Context(), deadlineKey{}, deadline))
			}
		}
		h.ServeHTTP(w, r)
	})
}

// deadlineKey carries the time by which BoundBody wants the body read.
type deadlineKey struct{}

// A deadlineBody lifts the read deadline of its connection at its end,
// and keeps a timeout once it had one. (net/http then closes the
// connection after the response: what it reads of the rest fails.)
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	once sync.Once

	mu  sync.Mutex // guards err; reads may come from more than one goroutine, one at a time
	err error      // the timeout that ended the body
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	stuck := b.err
	b.mu.Unlock()
	if stuck != nil {
		return 0, stuck
	}
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == io.EOF:
		b.once.Do(func() { b.rc.SetReadDeadline(time.Time{}) })
	case IsTimeout(err):
		b.mu.Lock()
		b.err = err
		b.mu.Unlock()
	}
	return n, err
}

// ReadBody reads r's body whole, refusing more than maxBytes (maxBytes
// negative: no bound) with an *http.MaxBytesError, and a body not read
// within timeout (zero: no bound; the http.Server's ReadTimeout, or
// BoundBody's deadline, instead if sooner) with an error for which
// IsTimeout is true. After a failure the connection is closed once the
// response is written. It restores nothing: the caller owns the bytes.
func ReadBody(w http.ResponseWriter, r *http.Request, maxBytes int64, timeout time.Duration) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.ReadTimeout > 0 && (timeout <= 0 || srv.ReadTimeout < timeout) {
		timeout = srv.ReadTimeout
	}
	var at time.Time
	if timeout > 0 {
		at = time.Now().Add(timeout)
	}
	if d, ok := r.Context().Value(deadlineKey{}).(time.Time); ok && (at.IsZero() || d.Before(at)) {
		at = d // BoundBody's, which is sooner
	}
	rc := http.NewResponseController(w)
	deadline := !at.IsZero() && rc.SetReadDeadline(at) == nil
	body := r.Body
	if maxBytes >= 0 {
		body = http.MaxBytesReader(w, body, maxBytes)
	}
	b, err := readAll(body, r.ContentLength, maxBytes)
	if err != nil {
		// What remains of the body must not be read as another request.
		w.Header().Set("Connection", "close")
	}
	if deadline && err == nil {
		// Read to its end: lift the deadline, so that a response stream
		// is not cut by it. A body cut short keeps it, so that what
		// net/http reads of it after the handler is bounded too.
		rc.SetReadDeadline(time.Time{})
	}
	r.Body.Close()
	return b, err
}

// readAll reads r to its end. A body of known size (Content-Length,
// which net/http holds the body to) is read into a buffer of that size at
// most maxBytes (negative: no bound), so that memory stays near the body's
// size instead of doubling as it grows.
func readAll(r io.Reader, size, maxBytes int64) ([]byte, error) {
	if size <= 0 {
		return io.ReadAll(r)
	}
	if maxBytes >= 0 && size > maxBytes {
		size = maxBytes
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}

// IsTimeout reports whether err is a read that passed its deadline.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// A limitListener answers the connection past its bound with 503 and
// closes it.
type limitListener struct {
	net.Listener
	free     chan struct{} // one token per open connection
	refusing chan struct{} // one token per connection being refused

	mu     sync.Mutex     // guards closed, and Add to wg against Wait
	closed bool           // Close has begun
	wg     sync.WaitGroup // the refusals under way
}

// maxRefusing bounds the connections being refused at once; past it, a
// connection is closed without an answer.
const maxRefusing = 64

// busy is what a connection past the bound reads before it is closed.
const busy = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 52\r\n\r\nmcp: too many connections open at once; retry later\n"

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.free <- struct{}{}:
			return &limitConn{Conn: c, release: func() { <-l.free }}, nil
		default:
		}
		l.mu.Lock()
		select {
		case l.refusing <- struct{}{}:
			if !l.closed {
				l.wg.Go(func() {
					defer func() { <-l.refusing }()
					refuse(c)
				})
				break
			}
			<-l.refusing
			c.Close()
		default:
			c.Close()
		}
		l.mu.Unlock()
	}
}

// Close stops accepting and waits for the refusals under way (a second
// at most each).
func (l *limitListener) Close() error {
	err := l.Listener.Close()
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.wg.Wait()
	return err
}

// refuse reads the head of the client's request, answers c with busy,
// then reads what the client sent until it closes its side (a second at
// most in all), so that closing does not reset the connection before the
// client has read the answer. The answer waits for the request's head:
// an HTTP client that reads bytes before it has written its request
// takes them for an unsolicited response on an idle connection and
// drops both, so the refused client would see no 503 at all.
func refuse(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if !readHead(c) {
		return
	}
	if _, err := io.WriteString(c, busy); err != nil {
		return
	}
	if tc, ok := c.(interface{ CloseWrite() error }); ok {
		tc.CloseWrite()
	}
	io.Copy(io.Discard, io.LimitReader(c, 64<<10))
}

// A limitConn gives its token back once, when it is closed.
type limitConn struct {
	net.Conn
	release func()
	once    sync.Once
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// readHead reads from c until the end of a request's head (a blank
// line), at most 64 KiB; it reports whether c is still worth answering.
func readHead(c net.Conn) bool {
	var seen []byte
	buf := make([]byte, 4<<10)
	for len(seen) < 64<<10 {
		n, err := c.Read(buf)
		seen = append(seen, buf[:n]...)
		if bytes.Contains(seen, []byte("\r\n\r\n")) {
			return true
		}
		if err != nil {
			return false
		}
	}
	return true
}
