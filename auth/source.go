package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"
)

// A Source supplies the credential for requests to one origin. A remote
// transport asks it only for requests whose origin it has validated (see
// [NewRoundTripper]), so a Source never sees a request to another origin.
//
// Credential may be called concurrently.
type Source interface {
	// Credential returns the bearer token for req, or a zero Token when the
	// request should go without one (the server will then answer 401, which
	// an [Authorizer] can act on). req must not be modified.
	Credential(ctx context.Context, req *http.Request) (Token, error)
}

// An Authorizer is a [Source] that can obtain a new credential when the
// server refuses one with 401 Unauthorized or 403 Forbidden (an OAuth flow,
// a scope step-up). Authorize must close resp.Body. After it returns nil,
// Credential returns the new credential; the refused request itself is not
// re-sent by this module (see transport/streamablehttp).
type Authorizer interface {
	Source
	Authorize(ctx context.Context, req *http.Request, resp *http.Response) error
}

// Bearer returns a Source that attaches the same token to every request.
// It panics if t is zero: a static source with nothing to send is a
// programming error.
func Bearer(t Token) Source {
	if t.IsZero() {
		panic("auth.Bearer: zero token")
	}
	return bearer{t}
}

type bearer struct{ t Token }

func (b bearer) Credential(context.Context, *http.Request) (Token, error) { return b.t, nil }

// OAuth is a [Source] and [Authorizer] backed by a go-sdk
// [sdkauth.OAuthHandler]: the authorization code flow of
// [sdkauth.AuthorizationCodeHandler] (client ID metadata documents,
// pre-registered clients, dynamic client registration, scope step-up on 403
// insufficient_scope), the client credentials flow of the go-sdk's extauth
// package, or any other implementation. Tokens are refreshed by the
// handler's oauth2.TokenSource as they expire.
//
// The handler's own HTTP client (AuthorizationCodeHandlerConfig.Client) is
// used for metadata discovery, registration and token requests; give it the
// SSRF protections your deployment needs.
type OAuth struct {
	h   sdkauth.OAuthHandler
	key *dpopKey // the DPoP key of the handler's client (NewAuthorizationCode), or nil
}

// NewOAuth wraps h. It panics if h is nil.
func NewOAuth(h sdkauth.OAuthHandler) *OAuth {
	if h == nil {
		panic("auth.NewOAuth: nil handler")
	}
	return &OAuth{h: h}
}

// NewAuthorizationCode returns an OAuth source running the go-sdk's
// authorization code flow configured by cfg (see
// [sdkauth.NewAuthorizationCodeHandler] for what it validates). With a
// cfg.Client from [DPoPKey.Client], the token requests carry DPoP proofs
// and a token issued as DPoP-bound is sent with proofs of that key.
func NewAuthorizationCode(cfg *sdkauth.AuthorizationCodeHandlerConfig) (*OAuth, error) {
	var key *dpopKey
	if cfg != nil {
		key = dpopKeyOf(cfg.Client)
	}
	h, err := sdkauth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return nil, fmt.Errorf("auth: authorization code handler: %w", err)
	}
	o := NewOAuth(h)
	o.key = key
	return o, nil
}

// Handler returns the wrapped go-sdk handler.
func (o *OAuth) Handler() sdkauth.OAuthHandler { return o.h }

// Credential returns the handler's current access token, refreshing it if it
// has expired. It returns a zero Token when the handler has none yet, or when
// the refresh token was refused (invalid_grant): the request then goes
// without a credential, the server answers 401, and Authorize runs the flow
// again.
func (o *OAuth) Credential(ctx context.Context, _ *http.Request) (Token, error) {
	ts, err := o.h.TokenSource(ctx)
	if err != nil {
		return Token{}, fmt.Errorf("auth: token source: %w", err)
	}
	if ts == nil {
		return Token{}, nil
	}
	tok, err := ts.Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
			return Token{}, nil
		}
		return Token{}, fmt.Errorf("auth: token: %w", err)
	}
	if tok == nil || tok.AccessToken == "" {
		return Token{}, nil
	}
	if o.key != nil && strings.EqualFold(tok.TokenType, "DPoP") {
		return boundToken(tok.AccessToken, o.key), nil
	}
	return NewToken(tok.AccessToken), nil
}

// Authorize runs the handler's flow for a refused request; not for a
// refusal for want of a DPoP nonce that the retry with the nonce got
// again, which fails with [ErrDPoP] (see [NewRoundTripper]).
func (o *OAuth) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	if err := nonceRefused(req, resp); err != nil {
		return err
	}
	if err := o.h.Authorize(ctx, req, resp); err != nil {
		return fmt.Errorf("auth: authorization: %w", err)
	}
	return nil
}
