package sse

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"time"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/transport/internal/httpguard"
)

// Options configures [New]. The zero value (or nil) is valid: no
// credential, system roots, TLS 1.2 minimum, default limits and timeouts.
type Options struct {
	// Credentials supplies the Authorization header. It is consulted only
	// for requests to the endpoint's origin. If nil, no credential is sent.
	// A 401 or 403 fails with [transport.ErrAuth]; this transport runs
	// no authorization flow and re-sends nothing.
	Credentials auth.Source

	// TLSConfig is cloned and used for https. If nil, the system roots are
	// used. MinVersion 0 means TLS 1.2; a lower MinVersion makes New fail
	// with a transport.PolicyError of Rule RuleInsecure.
	TLSConfig *tls.Config
	// RootCAs, if non-nil, replaces TLSConfig.RootCAs: the certificate
	// authorities the server's certificate must chain to.
	RootCAs *x509.CertPool

	// AllowInsecureHTTP permits a plain http endpoint on a host that is not
	// loopback. Plain http to localhost and loopback addresses is always
	// permitted.
	AllowInsecureHTTP bool

	// Limits bounds what the server can make the client read.
	Limits Limits
	// Timeouts bounds how long each phase of a request may take.
	Timeouts Timeouts

	// Base, if non-nil, carries the requests that pass every check of this
	// package, instead of the package's own http.Transport (a cassette
	// recorder or replayer goes here). It sees the Authorization header.
	// TLSConfig, RootCAs and the dial, TLS and response header timeouts are
	// then its business. It should hand back a redirect as it came, for
	// this package's redirect rule (auth.CheckRedirect) to judge. One that
	// follows redirects itself (a round tripper over an http.Client) is
	// held to the rule anyway. A body is not given to it to send again. A
	// connection it opens to another address within a request cancels the
	// request before it is written. A response to another request than the
	// one sent is refused with a *transport.RedirectError. After
	// one refusal, the factory sends nothing more through Base.
	Base http.RoundTripper
}

// Limits bounds what the server can make the client read. Zero fields take
// the documented defaults; there is no "unlimited".
type Limits struct {
	// MaxEventBytes bounds one server-sent event on the session stream,
	// field names and line ends included. If zero, 16 MiB. The endpoint
	// event is held (up to this bound) until its origin is checked; later
	// events stream through.
	MaxEventBytes int64
	// MaxStreamBytes bounds the total bytes of the session stream: every
	// message the server sends during the session. If zero, 1 GiB.
	MaxStreamBytes int64
	// MaxBodyBytes bounds the body of a response to a POST, and of any
	// error response. If zero, 1 MiB.
	MaxBodyBytes int64
}

// Default limits.
const (
	DefaultMaxEventBytes  = 16 << 20
	DefaultMaxStreamBytes = 1 << 30
	DefaultMaxBodyBytes   = 1 << 20
)

// Timeouts bounds each phase of a request. There is deliberately no bound on
// a whole request: the session stream lasts as long as the session. Zero
// fields take the documented defaults.
type Timeouts struct {
	// Dial bounds establishing the TCP connection. If zero, 10s.
	Dial time.Duration
	// TLSHandshake bounds the TLS handshake. If zero, 10s.
	TLSHandshake time.Duration
	// ResponseHeader bounds the wait for the response headers after the
	// request is written, for the session GET and for each POST. If zero,
	// 60s.
	ResponseHeader time.Duration
	// IdleRead bounds the silence of the session stream while something is
	// awaited on it: the endpoint event, or the answer to a call. A stream
	// silent this long fails every call in flight with transport.ErrTimeout
	// and ends the session (2024-11-05 has no resumption). An idle session
	// with no call in flight is not timed out. If zero, 5m.
	IdleRead time.Duration
}

// Default timeouts.
const (
	DefaultDialTimeout           = 10 * time.Second
	DefaultTLSHandshakeTimeout   = 10 * time.Second
	DefaultResponseHeaderTimeout = 60 * time.Second
	DefaultIdleReadTimeout       = 5 * time.Minute
)

func (l Limits) withDefaults() Limits {
	def := func(v *int64, d int64) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxEventBytes, DefaultMaxEventBytes)
	def(&l.MaxStreamBytes, DefaultMaxStreamBytes)
	def(&l.MaxBodyBytes, DefaultMaxBodyBytes)
	return l
}

// phases returns the bounds the connection's http.Transport enforces. An
// idle pooled connection is kept as long as a stream may be silent.
func (t Timeouts) phases() httpguard.Timeouts {
	return httpguard.Timeouts{
		Dial:           t.Dial,
		TLSHandshake:   t.TLSHandshake,
		ResponseHeader: t.ResponseHeader,
		IdleConn:       t.IdleRead,
	}
}

func (t Timeouts) withDefaults() Timeouts {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&t.Dial, DefaultDialTimeout)
	def(&t.TLSHandshake, DefaultTLSHandshakeTimeout)
	def(&t.ResponseHeader, DefaultResponseHeaderTimeout)
	def(&t.IdleRead, DefaultIdleReadTimeout)
	return t
}
