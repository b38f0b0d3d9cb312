package streamablehttp

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
	// for requests to the endpoint's origin. If it is an auth.Authorizer
	// (auth.OAuth is), a 401 or 403 runs its flow. If nil, no credential is
	// sent.
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

	// MaxResumeAttempts bounds how many times in a row the GET that resumes
	// a dropped response stream (Last-Event-ID) is tried when it fails
	// before any response. It also bounds how many times the standalone
	// stream is reconnected without a new event. It is the go-sdk's
	// StreamableClientTransport.MaxRetries. If zero, defaults to 5. A
	// resumed stream that ends again with no new event id is not resumed
	// again: its call fails with CodeStreamDropped. A negative value
	// disables resumption: a dropped call stream then fails its call with
	// CodeStreamDropped even if it carried event ids.
	MaxResumeAttempts int

	// DisableStandaloneSSE stops the client from opening the GET stream on
	// which the server sends requests and notifications outside any call.
	DisableStandaloneSSE bool

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
	// MaxJSONBytes bounds an application/json response body, and any error
	// body. If zero, 16 MiB.
	MaxJSONBytes int64
	// MaxEventBytes bounds one server-sent event, field names and line ends
	// included. If zero, 16 MiB. The client holds at most this much of an
	// event in memory.
	MaxEventBytes int64
	// MaxStreamBytes bounds the total bytes of one response stream (one HTTP
	// response; a resumed stream starts a new count). If zero, 256 MiB.
	MaxStreamBytes int64
	// MaxConcurrentStreams bounds the requests in flight at once on one
	// connection, each counted until its response body is closed (the
	// standalone stream counts as one for as long as it is open). A request
	// over the bound waits for a slot; if its context ends first, it is not
	// sent and fails with transport.ErrLimit. If zero, 32.
	MaxConcurrentStreams int
}

// Default limits.
const (
	DefaultMaxJSONBytes         = 16 << 20
	DefaultMaxEventBytes        = 16 << 20
	DefaultMaxStreamBytes       = 256 << 20
	DefaultMaxConcurrentStreams = 32
)

// Timeouts bounds each phase of a request. There is deliberately no bound on
// a whole request: a response stream legitimately lasts as long as the
// call, and the standalone stream as long as the session. Zero fields take
// the documented defaults.
type Timeouts struct {
	// Dial bounds establishing the TCP connection. If zero, 10s.
	Dial time.Duration
	// TLSHandshake bounds the TLS handshake. If zero, 10s.
	TLSHandshake time.Duration
	// ResponseHeader bounds the wait for the response headers after the
	// request is written. A server that answers a call with
	// application/json sends its headers only when the call is done, so
	// this also bounds such calls. If zero, 60s.
	ResponseHeader time.Duration
	// IdleRead bounds the wait for the next bytes of a response body. A call
	// stream idle this long is treated as dropped (resumed if it carried an
	// event id, else failed with transport.ErrTimeout); the standalone
	// stream is reconnected. If zero, 5m.
	IdleRead time.Duration
	// Close bounds the DELETE that ends the session. If zero, 5s.
	Close time.Duration
}

// Default timeouts.
const (
	DefaultDialTimeout           = 10 * time.Second
	DefaultTLSHandshakeTimeout   = 10 * time.Second
	DefaultResponseHeaderTimeout = 60 * time.Second
	DefaultIdleReadTimeout       = 5 * time.Minute
	DefaultCloseTimeout          = 5 * time.Second
)

func (l Limits) withDefaults() Limits {
	if l.MaxJSONBytes <= 0 {
		l.MaxJSONBytes = DefaultMaxJSONBytes
	}
	if l.MaxEventBytes <= 0 {
		l.MaxEventBytes = DefaultMaxEventBytes
	}
	if l.MaxStreamBytes <= 0 {
		l.MaxStreamBytes = DefaultMaxStreamBytes
	}
	if l.MaxConcurrentStreams <= 0 {
		l.MaxConcurrentStreams = DefaultMaxConcurrentStreams
	}
	return l
}

// phases returns the bounds of a connection's phases that net/http reports
// (httpguard.PhaseTimeout). An idle pooled connection is kept as long as a
// stream may be silent. The connection's own pool enforces the dial and
// TLS bounds; the connection enforces the others itself (newConnState).
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
	def(&t.Close, DefaultCloseTimeout)
	return t
}
