package fakeserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/looprig/mcp/internal/httpserve"
	"github.com/looprig/mcp/server"
)

// An HTTPServer is a fake server listening over HTTP (see
// [Server.StartHTTP]), with a second listener, the other origin, that the
// redirect and foreign-endpoint faults send clients to. The other origin
// serves nothing (404); it logs what reaches it, so that a test can prove
// that no request and no credential did.
type HTTPServer struct {
	// URL is the endpoint clients connect to: http://HOST:PORT/mcp, or
	// http://HOST:PORT/sse for the legacy SSE shape.
	URL string
	// OtherURL is the other origin, http://HOST:PORT2.
	OtherURL string

	h       *HTTPHandler
	srv     *httpserve.Server
	otherH  *otherOrigin
	otherS  *httpserve.Server
	serving sync.WaitGroup
	once    sync.Once
	err     error
}

// StartHTTP serves s over HTTP on addr ("" means 127.0.0.1:0, a free
// loopback port) with its scripted faults, and starts the other origin on
// another port of the same host. It returns once both listen. Close stops
// both.
//
// Both servers keep the bounds every HTTP server of this module keeps:
//   - request headers are read within 10 s;
//   - a request body is read within 10 s, unless opts.Serving sets its
//     own BodyTimeout. A body still arriving then is cut and its
//     connection closed;
//   - idle connections are closed after 60 s;
//   - at most 256 connections are open at once. The next is answered 503
//     and closed.
//
// A slow client holds one connection for those bounds at most, and a good
// client beside it is served.
func (s *Server) StartHTTP(addr string, opts *HTTPOptions) (*HTTPServer, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("fakeserver: listen address %q: %w", addr, err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("fakeserver: listen: %w", err)
	}
	oln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("fakeserver: listen for the other origin: %w", err)
	}
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	// The handler's own bound on reading a body is the server's
	// (httpserve.BodyTimeout), unless the caller chose one.
	serving := server.HTTPOptions{BodyTimeout: httpserve.BodyTimeout}
	if o.Serving != nil {
		serving = *o.Serving
		if serving.BodyTimeout == 0 {
			serving.BodyTimeout = httpserve.BodyTimeout
		}
	}
	o.Serving = &serving
	hs := &HTTPServer{OtherURL: "http://" + oln.Addr().String(), otherH: &otherOrigin{}}
	o.OtherOrigin = hs.OtherURL
	path := "/mcp"
	if o.SSE {
		path = "/sse"
	}
	hs.URL = "http://" + ln.Addr().String() + path
	if hs.h, err = s.HTTPHandler(&o); err != nil {
		ln.Close()
		oln.Close()
		return nil, err
	}
	hs.srv = httpserve.New(hs.h, hs.h.door, nil, discardLog)
	hs.otherS = httpserve.New(hs.otherH, nil, nil, discardLog)
	hs.serving.Add(2)
	go func() { defer hs.serving.Done(); hs.srv.Serve(ln) }()
	go func() { defer hs.serving.Done(); hs.otherS.Serve(oln) }()
	return hs, nil
}

// Handler returns the fake's HTTP handler.
func (hs *HTTPServer) Handler() *HTTPHandler { return hs.h }

// Requests returns the log of every request the fake server saw, in order
// of arrival.
func (hs *HTTPServer) Requests() []Request { return hs.h.Requests() }

// OtherRequests returns the log of every request that reached the other
// origin.
func (hs *HTTPServer) OtherRequests() []Request { return hs.otherH.requests() }

// OtherCounts returns how many requests reached the other origin, and how
// many of them carried an Authorization header.
func (hs *HTTPServer) OtherCounts() (requests, authorizations int) {
	for _, r := range hs.otherH.requests() {
		requests++
		if r.Authorization {
			authorizations++
		}
	}
	return requests, authorizations
}

// closeGrace bounds how long Close waits for open streams to end before it
// cuts their connections.
const closeGrace = time.Second

// Close ends every session, stops both listeners and waits for their
// goroutines. It may be called more than once.
func (hs *HTTPServer) Close() error {
	hs.once.Do(func() {
		hs.h.Close() // ends the sessions, so their streams end
		ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
		defer cancel()
		err := hs.srv.Shutdown(ctx)
		if err != nil {
			err = hs.srv.Close()
		}
		hs.err = errors.Join(err, hs.otherS.Close())
		hs.serving.Wait()
	})
	return hs.err
}

// otherOrigin answers 404 to everything and logs what it saw.
type otherOrigin struct {
	mu  sync.Mutex // guards log
	log []Request
}

func (o *otherOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	o.log = append(o.log, Request{
		Method:        r.Method,
		Session:       r.Header.Get("Mcp-Session-Id"),
		LastEventID:   r.Header.Get("Last-Event-ID"),
		Authorization: r.Header.Get("Authorization") != "",
		Status:        http.StatusNotFound,
	})
	o.mu.Unlock()
	http.Error(w, "fakeserver: this is the other origin", http.StatusNotFound)
}

func (o *otherOrigin) requests() []Request {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]Request(nil), o.log...)
}

// discardLog silences the http.Server's own log (a cut stream is a
// scripted fault, not news).
var discardLog = log.New(io.Discard, "", 0)
