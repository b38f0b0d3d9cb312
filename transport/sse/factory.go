package sse

import (
	"context"
	"fmt"
	"net/http"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/protocol"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/internal/httpguard"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProtocolVersion is the only protocol revision this transport speaks.
const ProtocolVersion = protocol.Revision20241105

// A Factory makes legacy HTTP+SSE transports to one endpoint. It is a
// transport.Factory, a transport.ProtocolPinner (2024-11-05) and a
// transport.Classifier; it is safe for concurrent use, and each transport it
// makes has its own connection pool, closed when the connection closes.
type Factory struct {
	endpoint string
	ep       *httpguard.Endpoint
	opts     Options            // with defaults applied
	phases   httpguard.Timeouts // the http.Transport's share of opts.Timeouts
	wrap     func(http.RoundTripper) http.RoundTripper
}

// pkg prefixes this package's errors.
const pkg = "sse"

var (
	_ transport.Factory        = (*Factory)(nil)
	_ transport.ProtocolPinner = (*Factory)(nil)
	_ transport.Classifier     = (*Factory)(nil)
)

// New validates endpoint (the URL of the session stream, which the client
// GETs) and opts, and returns a Factory. Nothing is sent until a transport
// it makes is connected.
//
// The endpoint's origin (scheme, host, port) is pinned: no request goes
// anywhere else, and the server's endpoint event must name that origin. It
// must be https, or http on a loopback host (or any host with
// Options.AllowInsecureHTTP); otherwise New fails with
// a transport.PolicyError of Rule RuleInsecure.
func New(endpoint string, opts *Options) (*Factory, error) {
	var o Options
	if opts != nil {
		o = *opts
		o.Base = httpguard.GuardBase("sse", o.Base) // see Options.Base
	}
	ep, err := httpguard.ParseEndpoint(pkg, endpoint, httpguard.Config{
		TLSConfig:         o.TLSConfig,
		RootCAs:           o.RootCAs,
		AllowInsecureHTTP: o.AllowInsecureHTTP,
	})
	if err != nil {
		return nil, err
	}
	o.Limits = o.Limits.withDefaults()
	o.Timeouts = o.Timeouts.withDefaults()
	return &Factory{endpoint: endpoint, ep: ep, opts: o, phases: o.Timeouts.phases()}, nil
}

// Kind returns transport.KindSSE.
func (*Factory) Kind() transport.Kind { return transport.KindSSE }

// PinnedProtocolVersion returns [ProtocolVersion]: a client connects with
// the default profile, which follows the pin, or client.ProfileLegacy.
func (*Factory) PinnedProtocolVersion() string { return ProtocolVersion }

// Origin returns the pinned origin.
func (f *Factory) Origin() auth.Origin { return f.ep.Origin }

// WithBase returns a copy of f whose connections carry their requests
// through wrap(base), base being what would have carried them
// (Options.Base, or the connection's own pool), below the credentials and
// this package's policy. A cassette recording a legacy SSE session puts
// itself there to learn the credentials the transport sends, which it
// redacts wherever they appear.
func (f *Factory) WithBase(wrap func(base http.RoundTripper) http.RoundTripper) transport.Factory {
	g := *f
	g.wrap = httpguard.Rewrap(f.wrap, wrap)
	return &g
}

// Transport returns a new transport for one connection.
func (f *Factory) Transport() (mcp.Transport, error) { return &Transport{f: f}, nil }

// A Transport is one connection's go-sdk mcp.SSEClientTransport, driven
// through this package's http.Client.
type Transport struct{ f *Factory }

// Connect implements mcp.Transport: it opens the session stream, checks the
// endpoint event, and returns a [Conn]. ctx bounds Connect only; the
// session stream lives until the connection is closed.
func (t *Transport) Connect(ctx context.Context) (mcp.Connection, error) {
	st := newConnState(t.f)
	// The go-sdk ties the session GET to the context it is given, and a
	// client's connect context ends when Connect returns; so the GET gets
	// the connection's own context, which follows ctx until then.
	stop := context.AfterFunc(ctx, st.cancel)
	sdk := &mcp.SSEClientTransport{
		Endpoint:   t.f.endpoint,
		HTTPClient: st.client,
		// This package bounds events itself, with a typed error; the
		// go-sdk's own cap stays as a backstop.
		MaxEventSize: int(min(2*t.f.opts.Limits.MaxEventBytes+4096, 1<<40)),
	}
	conn, err := sdk.Connect(st.ctx)
	if !stop() && err == nil {
		conn.Close()
		err = context.Cause(ctx)
	}
	if err != nil {
		st.shutdown()
		if f := st.streamFailure(); f != nil {
			return nil, f
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("sse: connect: %w", context.Cause(ctx))
		}
		return nil, err
	}
	return &Conn{inner: conn, st: st}, nil
}
