package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/httpserve"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// errNotLoopback is returned when --listen names an address other machines
// could reach and --allow-remote was not given.
var errNotLoopback = errors.New("not a loopback address (use --allow-remote to listen on it)")

// listen opens a TCP listener on addr, refusing non-loopback hosts unless
// allowRemote.
func listen(addr string, allowRemote bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--listen %s: %w", addr, err)
	}
	if !allowRemote {
		ip := net.ParseIP(host)
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return nil, fmt.Errorf("--listen %s: %w", addr, errNotLoopback)
		}
	}
	return net.Listen("tcp", addr)
}

// A session proxy forwards every request it gets to one endpoint through a
// round tripper (a recorder or a replaying cassette), streaming responses
// as they come, and reports when the client ended its session (see
// sessionEnd). idle, if positive, also ends it once no request has been in
// flight for that long.
type sessionProxy struct {
	endpoint *url.URL
	rp       *httputil.ReverseProxy
	end      *sessionEnd
}

func newSessionProxy(endpoint *url.URL, rt http.RoundTripper, errlog io.Writer, idle time.Duration) *sessionProxy {
	p := &sessionProxy{endpoint: endpoint, end: newSessionEnd(idle)}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			u := *endpoint
			u.RawQuery = r.In.URL.RawQuery
			r.Out.URL = &u
			r.Out.Host = ""
			// The browser-facing Origin check is this proxy's listener's
			// business, not the upstream's.
			r.Out.Header.Del("Origin")
			// Compression is the upstream hop's own: the recorder's
			// transport asks for it and decodes it, so that what is
			// recorded and forwarded is plain text.
			r.Out.Header.Del("Accept-Encoding")
		},
		Transport:     rt,
		FlushInterval: -1, // server-sent events go out as they arrive
		// The upstream's request failed with no response (the server
		// died before its headers; replayed, the recording says so): the
		// client sees what it would have seen without the proxy, its
		// connection closed with no response, not a 502 of the proxy's
		// own.
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if !errors.Is(err, context.Canceled) {
				fmt.Fprintf(errlog, "mcprig: %s %s: %v\n", r.Method, r.URL.Path, err)
			}
			if httpserve.IsTimeout(err) {
				// The client's body was cut at the server's bound.
				w.WriteHeader(http.StatusRequestTimeout)
				return
			}
			panic(http.ErrAbortHandler)
		},
	}
	return p
}

func (p *sessionProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	kind := kindOf(r)
	p.end.begin()
	defer func() { p.end.done(kind, r.Context().Err() != nil) }()
	p.rp.ServeHTTP(w, r)
}

// serve runs srv on l until the client ends its session or ctx is done,
// then shuts the server down (open streams are cut after a short grace).
func (p *sessionProxy) serve(ctx context.Context, l net.Listener) error {
	srv := httpserve.New(p, nil, nil)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	var err error
	defer p.end.stop()
	select {
	case <-p.end.ended:
	case <-ctx.Done():
	case err = <-errc:
		return err
	}
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if srv.Shutdown(sctx) != nil {
		srv.Close() // a standalone GET stream never ends on its own
	}
	<-errc
	return err
}

// recordHTTP runs the recording HTTP proxy: it prints the URL to connect to
// on stdout, forwards to the upstream and writes the cassette when the
// client ends its session (see sessionEnd) or mcprig is interrupted.
func recordHTTP(ctx context.Context, f *recordFlags, opts *cassette.Options, stdout, stderr io.Writer) int {
	up, err := url.Parse(f.upstream)
	if err != nil || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" {
		return usageError(stderr, "mcprig record", fmt.Sprintf("--upstream %q: want an http or https URL", f.upstream))
	}
	origin, err := auth.OriginOf(up)
	if err != nil {
		return usageError(stderr, "mcprig record", fmt.Sprintf("--upstream %q: %v", f.upstream, err))
	}
	l, err := listen(f.listen, f.allowRemote)
	if err != nil {
		return usageError(stderr, "mcprig record", err.Error())
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	defer base.CloseIdleConnections()
	pf := &proxyFactory{origin: origin, base: base}
	opts.Mode = cassette.ModeRecord
	rec, err := cassette.Open(f.out, pf, opts)
	if err != nil {
		l.Close()
		return usageError(stderr, "mcprig record", err.Error())
	}
	p := newSessionProxy(up, pf.rt, stderr, f.idle)
	fmt.Fprintf(stdout, "http://%s%s\n", l.Addr(), up.EscapedPath())
	serveErr := p.serve(ctx, l)
	if err := errors.Join(serveErr, rec.Close()); err != nil {
		fmt.Fprintf(stderr, "mcprig record: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "mcprig record: wrote %s\n", f.out)
	return 0
}

// replayHTTP serves a streamablehttp cassette over HTTP on f.listen until the
// client ends its session (see sessionEnd) or mcprig is interrupted.
func replayHTTP(ctx context.Context, f *replayFlags, c *cassette.Cassette, opts *cassette.Options, stdout, stderr io.Writer) int {
	if c.Kind() != transport.KindStreamableHTTP {
		fmt.Fprintf(stderr, "mcprig replay: --listen serves cassettes recorded over Streamable HTTP; %s was recorded over %s (replay it over stdio, without --listen)\n", c.File, c.Header.Transport)
		return 2
	}
	origin, _ := auth.ParseOrigin(cassette.ReplayOrigin)
	pf := &proxyFactory{origin: origin}
	p, err := cassette.Replay(c, pf, opts)
	if err != nil {
		return usageError(stderr, "mcprig replay", err.Error())
	}
	path := "/"
	for _, in := range c.Interactions {
		if in.Kind == cassette.KindRequest {
			path = in.HTTP.URL
			break
		}
	}
	l, err := listen(f.listen, f.allowRemote)
	if err != nil {
		return usageError(stderr, "mcprig replay", err.Error())
	}
	// Requests are replayed as addressed to the listener, whose origin
	// replay serves where the recording renamed the recorded server's
	// (a 401's resource_metadata). Nothing is dialled.
	endpoint, err := url.Parse("http://" + l.Addr().String() + path)
	if err != nil {
		l.Close()
		fmt.Fprintf(stderr, "mcprig replay: %v\n", err)
		return 1
	}
	sp := newSessionProxy(endpoint, pf.rt, stderr, f.idle)
	fmt.Fprintf(stdout, "http://%s%s\n", l.Addr(), endpoint.EscapedPath())
	if err := errors.Join(sp.serve(ctx, l), p.Close()); err != nil {
		fmt.Fprintf(stderr, "mcprig replay: %v\n", err)
		return 1
	}
	return 0
}

// A proxyFactory is the cassette.HTTPFactory of a proxy: the cassette hands
// it the round tripper that records (or replays) over base, and the proxy
// forwards its clients' requests through it. It makes no transport of its
// own.
type proxyFactory struct {
	origin auth.Origin
	base   http.RoundTripper
	rt     http.RoundTripper // set by the cassette
}

func (p *proxyFactory) Kind() transport.Kind { return transport.KindStreamableHTTP }

func (p *proxyFactory) Transport() (mcp.Transport, error) {
	return nil, errors.New("mcprig: a proxy's sessions come from its clients")
}

func (p *proxyFactory) Origin() auth.Origin { return p.origin }

func (p *proxyFactory) WithBase(wrap func(http.RoundTripper) http.RoundTripper) transport.Factory {
	p.rt = wrap(p.base)
	return p
}
