// Package httpguard holds the HTTP policy the remote transports
// (transport/streamablehttp and transport/sse) share: endpoint and TLS
// validation, the per-connection http.Transport under the credential
// ([Carrier]), the origin and redirect rules and the naming of timeout
// phases. The errors they return are package transport's (PolicyError,
// RedirectError, TimeoutError, …), and [Unauthorized]. Functions take the
// transport's package name, which prefixes the errors they make.
//
//	ep, err := httpguard.ParseEndpoint("sse", endpoint, httpguard.Config{})
//	carrier := httpguard.NewCarrier(ep, nil, nil, creds, httpguard.Timeouts{Dial: 10 * time.Second}, 4)
//	// policy's RoundTrip calls httpguard.CheckOrigin, then carrier.RoundTrip.
//	client := &http.Client{Transport: policy, CheckRedirect: httpguard.RedirectPolicy("sse")}
package httpguard

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/transport"
)

// Config is what New of a remote transport validates besides the endpoint.
type Config struct {
	TLSConfig         *tls.Config    // cloned; nil means the system roots
	RootCAs           *x509.CertPool // replaces TLSConfig.RootCAs if non-nil
	AllowInsecureHTTP bool           // permits plain http to a host that is not loopback
}

// An Endpoint is a validated endpoint: its URL, pinned origin and the TLS
// configuration for it.
type Endpoint struct {
	URL    *url.URL
	Origin auth.Origin
	TLS    *tls.Config // MinVersion at least TLS 1.2
}

// ParseEndpoint validates endpoint and c. Errors are prefixed with pkg (the
// transport's package name); an insecure endpoint or TLS version wraps
// [transport.RuleInsecure], and an endpoint that names no origin matches
// auth.ErrInvalidArgument.
func ParseEndpoint(pkg, endpoint string, c Config) (*Endpoint, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, fmt.Errorf("%s: endpoint: %w", pkg, err)
	}
	origin, err := auth.OriginOf(u)
	if err != nil {
		return nil, fmt.Errorf("%s: endpoint: %w", pkg, err)
	}
	if u.Fragment != "" {
		return nil, fmt.Errorf("%s: endpoint %q has a fragment", pkg, endpoint)
	}
	if origin.Scheme == "http" && !origin.IsLoopback() && !c.AllowInsecureHTTP {
		return nil, fmt.Errorf("%s: %w: plain http to %s (set AllowInsecureHTTP to permit it)", pkg, &transport.PolicyError{Rule: transport.RuleInsecure}, origin)
	}
	var tc *tls.Config
	if c.TLSConfig != nil {
		tc = c.TLSConfig.Clone()
	} else {
		tc = &tls.Config{}
	}
	switch {
	case tc.MinVersion == 0:
		tc.MinVersion = tls.VersionTLS12
	case tc.MinVersion < tls.VersionTLS12:
		return nil, fmt.Errorf("%s: %w: TLS MinVersion below 1.2", pkg, &transport.PolicyError{Rule: transport.RuleInsecure})
	}
	if c.RootCAs != nil {
		tc.RootCAs = c.RootCAs
	}
	return &Endpoint{URL: u, Origin: origin, TLS: tc}, nil
}

// Timeouts are the phases an http.Transport bounds.
type Timeouts struct {
	Dial           time.Duration
	TLSHandshake   time.Duration
	ResponseHeader time.Duration
	IdleConn       time.Duration // how long an idle pooled connection is kept
}

// NewTransport returns one connection's own pool: no proxy (a proxy would be
// another origin to trust), TLS from tc, and the phase timeouts of t. It has
// no overall request timeout, which would cut streams.
func NewTransport(tc *tls.Config, t Timeouts, maxIdlePerHost int) *http.Transport {
	d := &net.Dialer{Timeout: t.Dial}
	return &http.Transport{
		DialContext:           d.DialContext,
		TLSClientConfig:       tc.Clone(),
		TLSHandshakeTimeout:   t.TLSHandshake,
		ResponseHeaderTimeout: t.ResponseHeader,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   maxIdlePerHost,
		IdleConnTimeout:       t.IdleConn,
		Proxy:                 nil,
	}
}

// CheckOrigin refuses a request to another origin than origin's: it closes
// the request's body and returns an error wrapping
// [transport.RuleCrossOrigin], prefixed with pkg. It returns nil for a
// request to origin.
func CheckOrigin(pkg string, origin auth.Origin, req *http.Request) error {
	if origin.Matches(req.URL) {
		return nil
	}
	if req.Body != nil {
		req.Body.Close()
	}
	return fmt.Errorf("%s: %w: %s", pkg, &transport.PolicyError{Rule: transport.RuleCrossOrigin}, req.URL.Redacted())
}

// A Carrier carries the requests of one connection that passed the
// transport's policy: the caller's base round tripper, or else the
// connection's own pool, under auth.NewRoundTripper when there is a
// credential. It is safe for concurrent use.
type Carrier struct {
	rt   http.RoundTripper
	pool *http.Transport // nil when a base was given
}

// Rewrap returns what a transport's WithBase keeps when it is given wrap
// over an earlier wrap (nil for none): wrap(prev(base)), so that the last
// wrap given sees the requests first.
func Rewrap(prev, wrap func(http.RoundTripper) http.RoundTripper) func(http.RoundTripper) http.RoundTripper {
	if prev == nil {
		return wrap
	}
	return func(base http.RoundTripper) http.RoundTripper { return wrap(prev(base)) }
}

// NewCarrier returns the carrier of one connection to ep. If base is nil it
// makes the connection's own pool with NewTransport(ep.TLS, t,
// maxIdlePerHost). If wrap is non-nil, what carries the requests is
// wrap(base or pool) (a cassette recorder or replayer). If creds is non-nil,
// requests to ep's origin carry its credential, above all that.
func NewCarrier(ep *Endpoint, base http.RoundTripper, wrap func(http.RoundTripper) http.RoundTripper, creds auth.Source, t Timeouts, maxIdlePerHost int) *Carrier {
	c := &Carrier{rt: base}
	if base == nil {
		c.pool = NewTransport(ep.TLS, t, maxIdlePerHost)
		c.rt = c.pool
	}
	if wrap != nil {
		c.rt = wrap(c.rt)
	}
	if creds != nil {
		c.rt = auth.NewRoundTripper(c.rt, ep.Origin, creds)
	}
	return c
}

// RoundTrip sends req.
func (c *Carrier) RoundTrip(req *http.Request) (*http.Response, error) { return c.rt.RoundTrip(req) }

// CloseIdleConnections closes the idle connections of the carrier's own
// pool; a base round tripper is its owner's business.
func (c *Carrier) CloseIdleConnections() {
	if c.pool != nil {
		c.pool.CloseIdleConnections()
	}
}

// RedirectPolicy returns the redirect policy of a transport, for an
// http.Client's CheckRedirect: auth.CheckRedirect, the one rule of every
// request that carries a credential, its refusals naming pkg. Any
// redirect of a POST is refused (a 307 or 308 would send the body and
// credential again), any redirect to another origin than the first
// request's (the pinned one: the transport sends no other) is refused,
// and so is a chain longer than [transport.MaxRedirects]. A refusal is a
// [transport.RedirectError].
func RedirectPolicy(pkg string) func(req *http.Request, via []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		err := auth.CheckRedirect(req, via)
		var e *transport.RedirectError
		if errors.As(err, &e) {
			e.Transport = pkg
		}
		return err
	}
}

// PhaseTimeout returns a [transport.TimeoutError] naming pkg if err is a
// dial, TLS handshake or response header timeout of an http.Transport made
// with t, and err itself otherwise.
func PhaseTimeout(pkg string, t Timeouts, err error) error {
	var limit time.Duration
	phase := timeoutPhase(err)
	switch phase {
	case "dial":
		limit = t.Dial
	case "tls handshake":
		limit = t.TLSHandshake
	case "response header":
		limit = t.ResponseHeader
	default:
		return err
	}
	return &transport.TimeoutError{Transport: pkg, Phase: phase, Limit: limit, Err: err}
}

// timeoutPhase names the phase of the http.Transport timeout err reports:
// "dial", "tls handshake" or "response header"; "" if err is not one.
func timeoutPhase(err error) string {
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		return ""
	}
	var op *net.OpError
	switch {
	case errors.As(err, &op) && op.Op == "dial":
		return "dial"
	case strings.Contains(err.Error(), "TLS handshake"):
		return "tls handshake"
	case strings.Contains(err.Error(), "response headers"):
		return "response header"
	}
	return ""
}

// Unauthorized is what a 401 or 403 fails with when the request is not
// sent again. Its text is "unauthorized"; it matches transport.ErrAuth.
var Unauthorized error = &Classed{Text: "unauthorized", Class: transport.ErrAuth}

// A Classed error has a text of its own and matches one of package
// transport's class sentinels, such as transport.ErrProtocol.
type Classed struct {
	Text  string
	Class error
}

func (e *Classed) Error() string { return e.Text }

// Unwrap returns Class.
func (e *Classed) Unwrap() error { return e.Class }
