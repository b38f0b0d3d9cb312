// Package hostorigin is the Host and Origin rule of every HTTP listener this
// module serves: the server package's handlers, mcprig record and replay
// with --listen, the fake servers over HTTP and the fake authorization
// server. One rule, written once, so that no listener is forgotten.
//
// A web page can make a browser send requests to a server on the user's
// machine under a host name the attacker controls (DNS rebinding), or
// from its own origin (a cross-site request). A [Policy] refuses both
// with 403 Forbidden before the handler behind it sees the request.
//
// "Served on loopback" means the request arrived on a loopback address
// (127.0.0.0/8 or ::1, from http.LocalAddrContextKey), or on an address
// that is not known. A loopback name is localhost, a name under
// .localhost, or a loopback IP address in its usual form; upper case is
// accepted, a trailing dot is not.
//
// Host header:
//   - hosts allowed: the Host must be one of them, on any address.
//   - none allowed, served on loopback: the Host must be a loopback name,
//     with or without a port.
//   - none allowed, served elsewhere: not checked.
//
// Origin header (a request without one is accepted: browsers send it):
//
//   - "null", an empty value, a second Origin header or an Origin that
//     is not scheme://host[:port] is refused.
//
//   - origins allowed: the Origin must be one of them.
//
//   - none allowed, served on loopback: the Origin's host must be a
//     loopback name (http or https, any port).
//
//   - none allowed, served elsewhere: the Origin must be the request's
//     own (its host and port those of the Host header).
//
//     p, err := hostorigin.New(inbound.Config{AllowedOrigins: []string{"https://app.example"}})
//     h = p.Handler(h) // 403 before h for a refused request
package hostorigin

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Config is what a Policy admits beyond its defaults.
type Config struct {
	// AllowedHosts are the Host values accepted, as "name" (any port) or
	// "name:port", compared case-insensitively; IPv6 addresses in
	// brackets. If empty, the defaults of the package documentation.
	AllowedHosts []string
	// AllowedOrigins are the Origin values accepted, as
	// scheme://host[:port]. If empty, the defaults.
	AllowedOrigins []string
	// HostsOption and OriginsOption name, in a refusal's text, where the
	// user admits more ("HTTPOptions.AllowedHosts", "--allow-host").
	HostsOption, OriginsOption string
}

// A Policy checks the Host and Origin of a request. Its methods may be
// called concurrently.
type Policy struct {
	hosts      []string // lower case: name, or name:port
	origins    []origin
	hostsOpt   string
	originsOpt string
}

// Default is the policy with nothing allowed beyond the defaults.
var Default = &Policy{}

// ErrInvalidOrigin is returned (wrapped) by New for an AllowedOrigins
// entry that is not an origin.
var ErrInvalidOrigin = errors.New("not an origin")

// An EntryError is an AllowedOrigins entry New refused.
type EntryError struct {
	Index int    // its index in Config.AllowedOrigins
	Value string // the entry
	Err   error  // wraps ErrInvalidOrigin
}

func (e *EntryError) Error() string {
	return fmt.Sprintf("allowed origin %d %q: %v", e.Index, e.Value, e.Err)
}

func (e *EntryError) Unwrap() error { return e.Err }

// New returns the policy of c. An AllowedOrigins entry that is not an
// origin is an *EntryError.
func New(c Config) (*Policy, error) {
	p := &Policy{hostsOpt: c.HostsOption, originsOpt: c.OriginsOption}
	for _, h := range c.AllowedHosts {
		p.hosts = append(p.hosts, strings.ToLower(strings.TrimSpace(h)))
	}
	for i, s := range c.AllowedOrigins {
		o, err := parseOrigin(s)
		if err != nil {
			return nil, &EntryError{Index: i, Value: s, Err: err}
		}
		p.origins = append(p.origins, o)
	}
	return p, nil
}

// A RefusedError says which header of a request a Policy refused, and
// why. Value is the header as sent; Error quotes it with %q, so that its
// control characters are made visible.
type RefusedError struct {
	Header string // "Host" or "Origin"
	Value  string
	Reason string // what the value is not, and where more is admitted
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s %q %s", e.Header, e.Value, e.Reason)
}

// Check returns nil if r may be served, or a *RefusedError.
func (p *Policy) Check(r *http.Request) error {
	loopback := servedOnLoopback(r)
	if err := p.checkHost(r.Host, loopback); err != nil {
		return err
	}
	return p.checkOrigin(r, loopback)
}

func (p *Policy) checkHost(host string, loopback bool) error {
	switch {
	case len(p.hosts) > 0:
		if !p.hostAllowed(host) {
			return &RefusedError{"Host", host, "is not allowed" + p.hint(p.hostsOpt, "")}
		}
	case loopback:
		if !LoopbackHost(host) {
			return &RefusedError{"Host", host, "is not a loopback name, and the server is served on loopback" + p.hint(p.hostsOpt, "other names")}
		}
	}
	return nil
}

func (p *Policy) checkOrigin(r *http.Request, loopback bool) error {
	values := r.Header.Values("Origin")
	switch len(values) {
	case 0:
		return nil
	case 1:
	default:
		return &RefusedError{"Origin", strings.Join(values, ", "), "is sent more than once"}
	}
	raw := values[0]
	o, err := parseOrigin(raw)
	if err != nil {
		return &RefusedError{"Origin", raw, "is not a valid origin"}
	}
	switch {
	case len(p.origins) > 0:
		if !slices.Contains(p.origins, o) {
			return &RefusedError{"Origin", raw, "is not allowed" + p.hint(p.originsOpt, "")}
		}
	case loopback:
		if !loopbackName(o.host) {
			return &RefusedError{"Origin", raw, "is not a loopback origin, and the server is served on loopback" + p.hint(p.originsOpt, "other origins")}
		}
	default:
		if !o.sameHost(r.Host) {
			return &RefusedError{"Origin", raw, fmt.Sprintf("is not the server's own (Host %q)", r.Host) + p.hint(p.originsOpt, "other origins")}
		}
	}
	return nil
}

// hint names the option that admits what was refused.
func (p *Policy) hint(option, what string) string {
	switch {
	case option == "":
		return ""
	case what == "":
		return " (" + option + ")"
	}
	return " (" + option + " admits " + what + ")"
}

func (p *Policy) hostAllowed(host string) bool {
	host = strings.ToLower(host)
	name, _ := splitHost(host)
	for _, h := range p.hosts {
		if h == host || h == name || strings.Trim(h, "[]") == name {
			return true
		}
	}
	return false
}

// Handler returns h behind p: a refused request is answered 403 with a
// plain text body that says why, and h never sees it.
func (p *Policy) Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.Admit(w, r) {
			h.ServeHTTP(w, r)
		}
	})
}

// Admit reports whether r may be served; if not, it has answered w with
// 403 Forbidden and the reason. The connection is closed after the
// answer: its unread body is not read.
func (p *Policy) Admit(w http.ResponseWriter, r *http.Request) bool {
	err := p.Check(r)
	if err == nil {
		return true
	}
	w.Header().Set("Connection", "close")
	http.Error(w, "mcp: forbidden: "+err.Error(), http.StatusForbidden)
	return false
}

// LoopbackHost reports whether a Host header names a loopback name, with
// or without a port.
func LoopbackHost(host string) bool {
	name, port := splitHost(host)
	if port == "" && strings.HasSuffix(host, ":") {
		return false // an empty port
	}
	if port != "" && !validPort(port) {
		return false
	}
	return loopbackName(name)
}

// loopbackName reports whether name (without brackets or port) is
// localhost, a name under .localhost, or a loopback IP address.
func loopbackName(name string) bool {
	name = strings.ToLower(name)
	if name == "localhost" || strings.HasSuffix(name, ".localhost") && validLabels(name) {
		return true
	}
	ip, err := netip.ParseAddr(name)
	return err == nil && ip.Zone() == "" && ip.IsLoopback()
}

// validLabels reports whether name is dot-separated labels of letters,
// digits and hyphens, none empty.
func validLabels(name string) bool {
	for l := range strings.SplitSeq(name, ".") {
		if l == "" || strings.Trim(l, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return false
		}
	}
	return true
}

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535 && strconv.Itoa(n) == p
}

// splitHost returns the name (without brackets) and port of a Host
// header; a Host that is neither name nor name:port gives "".
func splitHost(host string) (name, port string) {
	if n, p, err := net.SplitHostPort(host); err == nil {
		return strings.ToLower(n), p
	}
	if strings.HasPrefix(host, "[") != strings.HasSuffix(host, "]") || !strings.HasPrefix(host, "[") && strings.Contains(host, ":") {
		return "", "" // a half bracket, an IPv6 address without them, a bad port
	}
	return strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")), ""
}

// servedOnLoopback reports whether r arrived on a loopback address, or on
// an address that is not known.
func servedOnLoopback(r *http.Request) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || addr == nil {
		return true
	}
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return true
	}
	return ap.Addr().Unmap().IsLoopback()
}

// An origin is a parsed Origin: scheme, lower-case host and port.
type origin struct {
	scheme, host string
	port         int
}

// parseOrigin parses scheme://host[:port], http or https, with nothing
// after it but an optional "/".
func parseOrigin(s string) (origin, error) {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return origin{}, fmt.Errorf("%w: %w", ErrInvalidOrigin, err)
	case u.Scheme != "http" && u.Scheme != "https": // url.Parse lowers it
		return origin{}, fmt.Errorf("%w: scheme %q is not http or https", ErrInvalidOrigin, u.Scheme)
	case u.User != nil:
		return origin{}, fmt.Errorf("%w: it carries user information", ErrInvalidOrigin)
	case u.Opaque != "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return origin{}, fmt.Errorf("%w: it has a path, query or fragment", ErrInvalidOrigin)
	case u.Hostname() == "":
		return origin{}, fmt.Errorf("%w: no host", ErrInvalidOrigin)
	}
	o := origin{scheme: u.Scheme, host: strings.ToLower(u.Hostname()), port: 80}
	if o.scheme == "https" {
		o.port = 443
	}
	if p := u.Port(); p != "" {
		if !validPort(p) {
			return origin{}, fmt.Errorf("%w: port %q", ErrInvalidOrigin, p)
		}
		o.port, _ = strconv.Atoi(p)
	} else if strings.HasSuffix(u.Host, ":") {
		return origin{}, fmt.Errorf("%w: an empty port", ErrInvalidOrigin)
	}
	return o, nil
}

// sameHost reports whether o names the host and port of a Host header
// (whose port defaults to o's scheme's).
func (o origin) sameHost(host string) bool {
	name, port := splitHost(host)
	if port == "" {
		port = strconv.Itoa(map[string]int{"http": 80, "https": 443}[o.scheme])
	}
	return name == o.host && port == strconv.Itoa(o.port)
}
