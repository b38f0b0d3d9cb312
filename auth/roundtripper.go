package auth

import (
	"errors"
	"fmt"
	"io"
	"net/http"
)

// ErrNoCredential is wrapped by the error of a request that went nowhere
// because its Source could not supply a credential (Source.Credential
// failed: a token endpoint refused the client, a refresh failed). The
// transports classify it as an authorization failure.
var ErrNoCredential = errors.New("auth: no credential")

// NewRoundTripper returns an http.RoundTripper that attaches the credential
// from src, as "Authorization: Bearer …", to a request only if the request's
// own URL has origin o. It checks every request it carries. So a request
// an http.Client makes to follow a redirect is checked like any other. One
// to another origin goes without a credential. Any Authorization or DPoP
// header it carries (copied by the client from the original request) is
// removed.
//
// A DPoP-bound token (see [DPoPKey]) goes as "Authorization: DPoP …", with a
// fresh proof of the key in the DPoP header (htm, htu, iat, jti, ath, and the
// nonce the server last gave). The server may refuse the request with 401
// and a DPoP challenge use_dpop_nonce naming a new nonce (DPoP-Nonce). The
// request is then sent again, once, with a proof carrying that nonce. The
// server refused it before acting on it. So even a POST of a tools/call is
// sent again then, and only then. A second refusal is handed back as it is; an
// Authorizer of this package then fails with [ErrDPoP] rather than authorize
// again. A request whose body cannot be read again (no GetBody) is not sent
// again.
//
// base nil means http.DefaultTransport. If src is nil or o is the zero
// Origin, the round tripper sends nothing: it fails every request, to any
// origin, with [ErrInvalidArgument].
func NewRoundTripper(base http.RoundTripper, o Origin, src Source) http.RoundTripper {
	if src == nil {
		return invalidTransport{fmt.Errorf("%w: auth.NewRoundTripper: src is nil", ErrInvalidArgument)}
	}
	if o == (Origin{}) {
		return invalidTransport{fmt.Errorf("%w: auth.NewRoundTripper: o is the zero Origin", ErrInvalidArgument)}
	}
	if base == nil {
		base = http.DefaultTransport
	}
	return &roundTripper{base: base, origin: o, src: src}
}

// invalidTransport is the round tripper of a constructor given an invalid
// argument: it sends nothing and fails every request with err.
type invalidTransport struct{ err error }

func (t invalidTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	return nil, t.err
}

type roundTripper struct {
	base   http.RoundTripper
	origin Origin
	src    Source
}

func (rt *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if !rt.origin.Matches(req.URL) {
		_, a := req.Header["Authorization"]
		_, d := req.Header["Dpop"]
		if a || d {
			req = req.Clone(req.Context())
			req.Header.Del("Authorization")
			req.Header.Del("DPoP")
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
	if tok.key != nil {
		return rt.dpop(req, tok)
	}
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+tok.Reveal())
	return rt.base.RoundTrip(req)
}

// dpop sends req with a DPoP-bound token and a proof, and once more with
// the server's nonce if the server refused it for want of one.
func (rt *roundTripper) dpop(req *http.Request, tok Token) (*http.Response, error) {
	resp, used, err := rt.sendDPoP(req, tok, req.Body)
	if err != nil {
		return nil, err
	}
	fresh := tok.key.noteNonce(req.URL, resp)
	if fresh == "" || fresh == used || !nonceChallenge(resp) || (req.Body != nil && req.Body != http.NoBody && req.GetBody == nil) {
		return resp, nil
	}
	var body io.ReadCloser
	if req.GetBody != nil {
		if body, err = req.GetBody(); err != nil {
			return resp, nil // the refusal stands
		}
	}
	drain(resp)
	resp, _, err = rt.sendDPoP(req, tok, body)
	if err != nil {
		return nil, err
	}
	tok.key.noteNonce(req.URL, resp)
	return resp, nil
}

// sendDPoP sends a copy of req with body, tok and a fresh proof; it
// returns the nonce the proof carried.
func (rt *roundTripper) sendDPoP(req *http.Request, tok Token, body io.ReadCloser) (*http.Response, string, error) {
	proof, nonce, err := tok.key.proof(req.Method, req.URL, tok.Reveal())
	if err != nil {
		if body != nil {
			body.Close()
		}
		return nil, "", fmt.Errorf("%w for %s: %w", ErrNoCredential, rt.origin, err)
	}
	r := req.Clone(req.Context())
	r.Body = body
	r.Header.Set("Authorization", "DPoP "+tok.Reveal())
	r.Header.Set("DPoP", proof)
	resp, err := rt.base.RoundTrip(r)
	return resp, nonce, err
}
