package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/hostorigin"
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

// defaultMaxBody bounds a request body the proxies take by default: 4 MiB,
// the bound of the server package's and the go-sdk's handlers.
const defaultMaxBody = 4 << 20

// doorFlags are the flags of an HTTP listener of mcprig: what its
// Host/Origin rule (internal/hostorigin) admits beyond loopback, and the
// bound on a request body.
type doorFlags struct {
	hosts, origins multiFlag
	maxBody        int64
}

func (f *doorFlags) define(fs *flag.FlagSet, with string) {
	fs.Var(&f.hosts, "allow-host", with+"accept the Host `NAME` or NAME:PORT, in place of loopback names; repeatable")
	fs.Var(&f.origins, "allow-origin", with+"accept a browser's Origin `SCHEME://HOST[:PORT]`, in place of loopback origins; repeatable")
	fs.Int64Var(&f.maxBody, "max-body", defaultMaxBody, with+"refuse a request body over `BYTES` with 413, before anything is forwarded (at most 64 MiB, a cassette's bound)")
}

// policy returns the listener's Host/Origin rule.
func (f *doorFlags) policy() (*hostorigin.Policy, error) {
	if f.maxBody < 1 || f.maxBody > cassette.MaxSize {
		return nil, fmt.Errorf("--max-body %d: want 1 to %d bytes", f.maxBody, cassette.MaxSize)
	}
	p, err := hostorigin.New(hostorigin.Config{AllowedHosts: f.hosts, AllowedOrigins: f.origins, HostsOption: "--allow-host", OriginsOption: "--allow-origin"})
	var ee *hostorigin.EntryError
	if errors.As(err, &ee) {
		return nil, fmt.Errorf("--allow-origin %q: %w", ee.Value, ee.Err)
	}
	return p, err
}

// A session proxy forwards every request it gets to one endpoint through a
// round tripper (a recorder or a replaying cassette). It streams responses
// as they come. It reports when the client ended its session (see
// sessionEnd). idle, if positive, also ends it once no request has been in
// flight for that long. Its listener answers through door first (403), and
// a body over maxBody is refused with 413 before anything is forwarded.
type sessionProxy struct {
	endpoint *url.URL
	rp       *httputil.ReverseProxy
	end      *sessionEnd
	door     *hostorigin.Policy
	maxBody  int64
}

func newSessionProxy(endpoint *url.URL, rt http.RoundTripper, errlog io.Writer, idle time.Duration, door *hostorigin.Policy, maxBody int64) *sessionProxy {
	p := &sessionProxy{endpoint: endpoint, end: newSessionEnd(idle), door: door, maxBody: maxBody}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			u := *endpoint
			u.RawQuery = r.In.URL.RawQuery
			r.Out.URL = &u
			r.Out.Host = ""
			// The browser-facing Origin check is this proxy's listener's
			// (p.door, which has passed it), not the upstream's.
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

// ServeHTTP forwards r once its body is read whole within p.maxBody; the
// door has admitted it (serve puts the door before it).
func (p *sessionProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, ok := p.readBody(w, r)
	if !ok {
		return
	}
	kind := kindOf(r, body)
	p.end.begin()
	defer func() { p.end.done(kind, r.Context().Err() != nil) }()
	p.rp.ServeHTTP(w, r)
}

// readBody reads r's body whole, at most p.maxBody bytes, and puts it
// back as a body of known length. So nothing is forwarded of a body that
// will be refused, nor a body cut short. It returns the body. A body
// over the bound is answered 413 (at once when its Content-Length says
// so), a body not read in time 408; readBody then reports false.
func (p *sessionProxy) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true
	}
	tooLarge := func() ([]byte, bool) {
		w.Header().Set("Connection", "close")
		http.Error(w, fmt.Sprintf("mcprig: request body exceeds the %d-byte limit (--max-body)", p.maxBody), http.StatusRequestEntityTooLarge)
		return nil, false
	}
	if r.ContentLength > p.maxBody {
		return tooLarge()
	}
	b, err := httpserve.ReadBody(w, r, p.maxBody, 0)
	if _, ok := err.(*http.MaxBytesError); ok {
		return tooLarge()
	}
	if err != nil {
		status := http.StatusBadRequest
		if httpserve.IsTimeout(err) {
			status = http.StatusRequestTimeout
		}
		http.Error(w, "mcprig: reading the request body: "+err.Error(), status)
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	r.ContentLength = int64(len(b))
	r.TransferEncoding = nil
	return b, true
}

// serve runs srv on l until the client ends its session or ctx is done,
// then shuts the server down (open streams are cut after a short grace).
func (p *sessionProxy) serve(ctx context.Context, l net.Listener) error {
	srv := httpserve.New(p, p.door, nil, nil)
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

// recordHTTP runs the recording HTTP proxy. It prints the URL to connect
// to on stdout and forwards to the upstream. It writes the cassette when
// the client ends its session (see sessionEnd) or mcprig is interrupted.
func recordHTTP(ctx context.Context, f *recordFlags, opts *cassette.Options, stdout, stderr io.Writer) int {
	up, err := url.Parse(f.upstream)
	if err != nil || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" {
		return usageError(stderr, "mcprig record", fmt.Sprintf("--upstream %q: want an http or https URL", f.upstream))
	}
	origin, err := auth.OriginOf(up)
	if err != nil {
		return usageError(stderr, "mcprig record", fmt.Sprintf("--upstream %q: %v", f.upstream, err))
	}
	door, err := f.door.policy()
	if err != nil {
		return usageError(stderr, "mcprig record", err.Error())
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
	p := newSessionProxy(up, pf.rt, stderr, f.idle, door, f.door.maxBody)
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
	door, err := f.door.policy()
	if err != nil {
		p.Close()
		return usageError(stderr, "mcprig replay", err.Error())
	}
	l, err := listen(f.listen, f.allowRemote)
	if err != nil {
		p.Close()
		return usageError(stderr, "mcprig replay", err.Error())
	}
	// Requests are replayed as addressed to the listener, whose origin
	// replay serves where the recording renamed the recorded server's
	// (a 401's resource_metadata). Nothing is dialled.
	endpoint, err := url.Parse("http://" + l.Addr().String() + path)
	if err != nil {
		l.Close()
		p.Close()
		fmt.Fprintf(stderr, "mcprig replay: %v\n", err)
		return 1
	}
	sp := newSessionProxy(endpoint, pf.rt, stderr, f.idle, door, f.door.maxBody)
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
