package auth

import (
	"errors"
	"fmt"
	"net/http"
)

// ErrNoCredential is wrapped by the error of a request that went nowhere
// because its Source could not supply a credential (Source.Credential
// failed: a token endpoint refused the client, a refresh failed). The
// transports classify it as an authorization failure.
var ErrNoCredential = errors.New("auth: no credential")

// NewRoundTripper returns an http.RoundTripper that attaches the credential
// from src, as "Authorization: Bearer …", to a request only if the request's
// own URL has origin o. It checks every request it carries, so a request an
// http.Client makes to follow a redirect is checked like any other: one to
// another origin goes without a credential, and any Authorization header it
// carries (copied by the client from the original request) is removed.
//
// base nil means http.DefaultTransport. It panics if src is nil or o is the
// zero Origin.
func NewRoundTripper(base http.RoundTripper, o Origin, src Source) http.RoundTripper {
	if src == nil {
		panic("auth.NewRoundTripper: nil source")
	}
	if o == (Origin{}) {
		panic("auth.NewRoundTripper: zero origin")
	}
	if base == nil {
		base = http.DefaultTransport
	}
	return &roundTripper{base: base, origin: o, src: src}
}

type roundTripper struct {
	base   http.RoundTripper
	origin Origin
	src    Source
}

func (rt *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if !rt.origin.Matches(req.URL) {
		if _, ok := req.Header["Authorization"]; ok {
			req = req.Clone(req.Context())
			req.Header.Del("Authorization")
		}
		return rt.base.RoundTrip(req)
	}
	tok, err := rt.src.Credential(req.Context(), req)
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("%w for %s: %w", ErrNoCredential, rt.origin, err)
	}
	if tok.IsZero() {
		return rt.base.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+tok.Reveal())
	return rt.base.RoundTrip(req)
}
