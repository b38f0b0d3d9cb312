package streamablehttp

import (
	"context"
	"net/http"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/clientseam"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/internal/httpguard"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Factory makes Streamable HTTP transports to one endpoint. It is a
// transport.Factory; it is safe for concurrent use, and each transport it
// makes has its own connection pool, closed when the connection closes.
type Factory struct {
	endpoint string
	ep       *httpguard.Endpoint
	opts     Options            // with defaults applied
	phases   httpguard.Timeouts // the http.Transport's share of opts.Timeouts
	wrap     func(http.RoundTripper) http.RoundTripper
}

// pkg prefixes this package's errors.
const pkg = "streamablehttp"

var _ transport.Factory = (*Factory)(nil)

// New validates endpoint and opts and returns a Factory. Nothing is sent
// until a transport it makes is connected.
//
// The endpoint's origin (scheme, host, port) is pinned: no request goes
// anywhere else. It must be https, or http on a loopback host (or any host
// with Options.AllowInsecureHTTP); otherwise New fails with
// a transport.PolicyError of Rule RuleInsecure.
func New(endpoint string, opts *Options) (*Factory, error) {
	var o Options
	if opts != nil {
		o = *opts
		o.Base = httpguard.GuardBase("streamablehttp", o.Base) // see Options.Base
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

// Kind returns transport.KindStreamableHTTP.
func (*Factory) Kind() transport.Kind { return transport.KindStreamableHTTP }

// Origin returns the pinned origin.
func (f *Factory) Origin() auth.Origin { return f.ep.Origin }

// WithBase returns a copy of f whose connections carry their requests
// through wrap(base), base being what would have carried them
// (Options.Base, or the connection's own pool), below the credentials and
// this package's policy. It is how a cassette records and replays a
// session (cassette.HTTPFactory): it sees every request as sent and every
// response before this package bounds it.
func (f *Factory) WithBase(wrap func(base http.RoundTripper) http.RoundTripper) transport.Factory {
	g := *f
	g.wrap = httpguard.Rewrap(f.wrap, wrap)
	return &g
}

// WithoutCredentials returns a copy of f that sends no credentials
// (Options.Credentials is left out, DPoP proofs with it); everything else
// is f's. A cassette replays through it: a replayed session asks no
// authorization server for anything.
func (f *Factory) WithoutCredentials() transport.Factory {
	g := *f
	g.opts.Credentials = nil
	return &g
}

// Transport returns a new transport for one connection.
func (f *Factory) Transport() (mcp.Transport, error) { return &Transport{f: f}, nil }

// A Transport is one connection's go-sdk mcp.StreamableClientTransport,
// driven through this package's http.Client.
type Transport struct {
	f      *Factory
	admit  func(ctx context.Context, method string)             // set by SetPacer
	divert func(ctx context.Context, msg *jsonrpc.Request) bool // set by SetDiverter
	tap    func(ctx context.Context, msg []byte)                // set by SetTap
}

// The client's hooks (internal/clientseam), which it finds with
// transport.As. Other transports need not implement them.
var (
	_ clientseam.Pacer    = (*Transport)(nil)
	_ clientseam.Diverter = (*Transport)(nil)
	_ clientseam.Tapper   = (*Transport)(nil)
)

// SetPacer makes the connection call admit with the method of each
// notification its response streams carry, before the go-sdk reads it.
// Call it before Connect. The client uses it to pace reading.
func (t *Transport) SetPacer(admit func(ctx context.Context, method string)) { t.admit = admit }

// SetDiverter makes the connection offer divert each notification its
// response streams carry that the go-sdk would read. For one divert takes,
// the go-sdk gets the event without its data: its id, so that a
// resumption starts after it. Call it before Connect.
func (t *Transport) SetDiverter(divert func(ctx context.Context, msg *jsonrpc.Request) bool) {
	t.divert = divert
}

// SetTap makes the connection call tap with the context of each request
// and the response that answers it, before the go-sdk reads it. Call it
// before Connect.
func (t *Transport) SetTap(tap func(ctx context.Context, msg []byte)) { t.tap = tap }

// resumeAttempts is how many GETs in a row the go-sdk sends to resume a
// dropped stream: MaxResumeAttempts, its MaxRetries (0 is its default, 5).
func (f *Factory) resumeAttempts() int {
	if f.opts.MaxResumeAttempts == 0 {
		return 5
	}
	return f.opts.MaxResumeAttempts
}

// Connect implements mcp.Transport. It returns the go-sdk's own connection
// (the go-sdk client needs its private hooks), configured so that no POST
// is re-sent: see the package documentation.
func (t *Transport) Connect(ctx context.Context) (mcp.Connection, error) {
	st := newConnState(t.f)
	st.admit = t.admit
	st.divert = t.divert
	st.tap = t.tap
	maxRetries := t.f.opts.MaxResumeAttempts
	if maxRetries < 0 {
		maxRetries = -1 // the go-sdk's "no retries"
	}
	sdk := &mcp.StreamableClientTransport{
		Endpoint:             t.f.endpoint,
		HTTPClient:           st.client,
		MaxRetries:           maxRetries,
		DisableStandaloneSSE: t.f.opts.DisableStandaloneSSE,
		OAuthHandler:         &oauthAdapter{st: st},
		// This package bounds events itself, with a typed error, and hands
		// the go-sdk only whole events; its own cap stays as a backstop.
		MaxEventSize: int(2*t.f.opts.Limits.MaxEventBytes) + 4096,
	}
	conn, err := sdk.Connect(ctx)
	if err != nil {
		st.shutdown()
		return nil, err
	}
	return conn, nil
}
