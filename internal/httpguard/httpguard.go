// Package httpguard holds the HTTP policy the remote transports
// (transport/streamablehttp and transport/sse) share: endpoint and TLS
// validation, the per-connection http.Transport, the redirect rules and the
// naming of timeout phases. Each transport keeps its own error values; this
// package only decides, and says which rule applied.
//
//	ep, err := httpguard.ParseEndpoint("sse", endpoint, httpguard.Config{}, sse.ErrInsecure)
//	pool := httpguard.NewTransport(ep.TLS, httpguard.Timeouts{Dial: 10 * time.Second}, 4)
//	client := &http.Client{Transport: pool, CheckRedirect: func(req *http.Request, via []*http.Request) error {
//		if r := httpguard.CheckRedirect(ep.Origin, req, via); r.Rule != httpguard.RedirectAllowed { … }
//		return nil
//	}}
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
// errInsecure, and an endpoint that names no origin wraps
// auth.ErrInvalidOrigin.
func ParseEndpoint(pkg, endpoint string, c Config, errInsecure error) (*Endpoint, error) {
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
		return nil, fmt.Errorf("%w: plain http to %s (set AllowInsecureHTTP to permit it)", errInsecure, origin)
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
		return nil, fmt.Errorf("%w: TLS MinVersion below 1.2", errInsecure)
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

// MaxRedirects is how many redirects within the origin a GET or DELETE may
// follow.
const MaxRedirects = 5

// A RedirectRule says which rule decided a redirect.
type RedirectRule int

const (
	RedirectAllowed     RedirectRule = iota // within the origin, not a POST, not too many
	RedirectPOST                            // a POST was redirected: never followed
	RedirectCrossOrigin                     // the target is another origin
	RedirectTooMany                         // more than MaxRedirects
)

// A Redirect describes a redirect the http.Client is about to follow.
type Redirect struct {
	Rule   RedirectRule
	Method string // the method of the redirected request
	Status int    // the redirect's status code
	To     string // the origin of the target, or "null"
}

// CheckRedirect applies the redirect policy, for an http.Client's
// CheckRedirect: any redirect of a POST is refused (a 307 or 308 would send
// the body and credential again), any redirect to another origin is
// refused, and so is a chain longer than MaxRedirects.
func CheckRedirect(origin auth.Origin, req *http.Request, via []*http.Request) Redirect {
	prev := via[len(via)-1]
	r := Redirect{Method: prev.Method, To: "null"}
	if req.Response != nil {
		r.Status = req.Response.StatusCode
	}
	if o, err := auth.OriginOf(req.URL); err == nil {
		r.To = o.String()
	}
	switch {
	case prev.Method == http.MethodPost:
		r.Rule = RedirectPOST
	case !origin.Matches(req.URL):
		r.Rule = RedirectCrossOrigin
	case len(via) > MaxRedirects:
		r.Rule = RedirectTooMany
	}
	return r
}

// TimeoutPhase names the phase of the http.Transport timeout err reports:
// "dial", "tls handshake" or "response header"; "" if err is not one.
func TimeoutPhase(err error) string {
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
