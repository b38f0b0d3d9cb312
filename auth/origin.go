package auth

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// errInvalidOrigin starts the error of a URL that names no origin: its
// scheme is not http or https, it has no host, it carries user information,
// or its port is not a number in 1–65535. It matches ErrInvalidArgument.
var errInvalidOrigin error = configError{errors.New("auth: invalid origin")}

// An Origin is the scheme, host and port of a URL (RFC 6454), normalised.
// The scheme and host are lower case. A trailing dot on the host is
// dropped. An IPv6 host has no brackets. The port is always explicit: 80
// for http, 443 for https when the URL names none. Two URLs have the same origin
// exactly when their Origins are ==.
type Origin struct {
	Scheme string // "http" or "https"
	Host   string // host name or IP address, lower case, no brackets
	Port   int    // 1–65535
}

// ParseOrigin returns the origin of the absolute URL rawURL. A URL that
// names no origin is an error matching [ErrInvalidArgument].
func ParseOrigin(rawURL string) (Origin, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return Origin{}, fmt.Errorf("%w: %w", errInvalidOrigin, err)
	}
	return OriginOf(u)
}

// OriginOf returns the origin of u, or an error matching
// [ErrInvalidArgument] if u names no origin.
func OriginOf(u *url.URL) (Origin, error) {
	if u == nil {
		return Origin{}, fmt.Errorf("%w: nil URL", errInvalidOrigin)
	}
	o := Origin{Scheme: strings.ToLower(u.Scheme)}
	var defaultPort int
	switch o.Scheme {
	case "http":
		defaultPort = 80
	case "https":
		defaultPort = 443
	default:
		return Origin{}, fmt.Errorf("%w: scheme %q is not http or https", errInvalidOrigin, u.Scheme)
	}
	if u.User != nil {
		return Origin{}, fmt.Errorf("%w: URL carries user information", errInvalidOrigin)
	}
	o.Host = strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if o.Host == "" {
		return Origin{}, fmt.Errorf("%w: no host", errInvalidOrigin)
	}
	o.Port = defaultPort
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Origin{}, fmt.Errorf("%w: port %q", errInvalidOrigin, p)
		}
		o.Port = n
	}
	return o, nil
}

// String returns the origin in its serialised form, scheme://host[:port],
// omitting the scheme's default port.
func (o Origin) String() string {
	if o == (Origin{}) {
		return "null"
	}
	host := o.Host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if (o.Scheme == "http" && o.Port == 80) || (o.Scheme == "https" && o.Port == 443) {
		return o.Scheme + "://" + host
	}
	return o.Scheme + "://" + net.JoinHostPort(o.Host, strconv.Itoa(o.Port))
}

// Equal reports whether o and p are the same origin (the same as o == p).
func (o Origin) Equal(p Origin) bool { return o == p }

// Matches reports whether u has origin o. A URL that names no valid origin
// matches nothing.
func (o Origin) Matches(u *url.URL) bool {
	p, err := OriginOf(u)
	return err == nil && p == o
}

// IsLoopback reports whether the host is "localhost" (or a name under
// .localhost) or a loopback IP address.
func (o Origin) IsLoopback() bool {
	if o.Host == "localhost" || strings.HasSuffix(o.Host, ".localhost") {
		return true
	}
	ip := net.ParseIP(o.Host)
	return ip != nil && ip.IsLoopback()
}
