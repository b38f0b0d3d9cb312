package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
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

// ErrInvalidArgument is returned when a constructor of this package was
// given a nil or zero argument it cannot work with. These are [Bearer]'s
// zero Token, [NewOAuth]'s nil handler, [NewRoundTripper]'s nil Source or
// zero Origin, and [DPoPKey.Client] on the zero DPoPKey. These
// constructors have no error result. So what they return carries the
// error, and returns it on first use, before anything is sent. The Source
// returns it from every Credential. So a request through [NewRoundTripper]
// fails with [ErrNoCredential] and this error, and never goes without its
// credential. The round tripper and the client return it from every
// request. The HTTP transports classify it as a refusal by policy (a
// configuration error), not as an authorization failure. The error of
// [NewClientCredentials], [NewWorkloadIdentity], [NewEnterprise],
// [ParsePrivateKey], [ParseOrigin] and [OriginOf] for an input they cannot
// use matches it too.
var ErrInvalidArgument = errors.New("auth: invalid argument")

// sourceKind starts the text of every error of one kind of source, which
// wraps it: "auth: client credentials: …".
type sourceKind string

func (k sourceKind) Error() string { return string(k) }

// The kinds of source.
const (
	kindClientCredentials = sourceKind("auth: client credentials")
	kindWorkloadIdentity  = sourceKind("auth: workload identity")
	kindEnterprise        = sourceKind("auth: enterprise-managed authorization")
)

// configError is a constructor's error for a configuration it cannot
// use: its text is err's, and it matches ErrInvalidArgument too.
type configError struct{ err error }

func (e configError) Error() string   { return e.err.Error() }
func (e configError) Unwrap() []error { return []error{e.err, ErrInvalidArgument} }

// invalidConfig returns err as a configError, or nil.
func invalidConfig(err error) error {
	if err == nil {
		return nil
	}
	return configError{err}
}

// Bearer returns a Source that attaches the same token to every request.
// If t is zero, the Source's Credential fails every request with
// [ErrInvalidArgument]: a static source with nothing to send is a
// configuration error, and no request goes without the token.
func Bearer(t Token) Source {
	if t.IsZero() {
		return invalidSource{fmt.Errorf("%w: auth.Bearer: t is the zero Token", ErrInvalidArgument)}
	}
	return bearer{t}
}

type bearer struct{ t Token }

func (b bearer) Credential(context.Context, *http.Request) (Token, error) { return b.t, nil }

// invalidSource is the Source of a constructor given an invalid argument:
// its Credential returns err.
type invalidSource struct{ err error }

func (s invalidSource) Credential(context.Context, *http.Request) (Token, error) {
	return Token{}, s.err
}

// OAuth is a [Source] and [Authorizer] backed by a go-sdk
// [sdkauth.OAuthHandler]. The handler may be the authorization code flow
// of [sdkauth.AuthorizationCodeHandler]. That flow has client ID metadata
// documents, pre-registered clients, dynamic client registration, and
// scope step-up on 403 insufficient_scope. It may be the client
// credentials flow of the go-sdk's extauth package, or any other
// implementation. Tokens are refreshed by the handler's
// oauth2.TokenSource as they expire.
//
// The handler's own HTTP client (AuthorizationCodeHandlerConfig.Client) is
// used for metadata discovery, registration and token requests; give it the
// SSRF protections your deployment needs. [NewAuthorizationCode] gives the
// handler a copy of it whose CheckRedirect is [CheckRedirect]. A handler
// given to NewOAuth keeps its client as it is. The go-sdk's handlers keep
// their client in a field this package cannot reach. So only the client
// given to [NewAuthorizationCode] is held to the rule by this package. For another
// handler, set its client's CheckRedirect to [CheckRedirect] yourself.
//
// The scopes the server's challenges ask for are counted across Authorize
// calls. Those are the 401 challenges, and the 403 insufficient_scope
// step-ups, which the go-sdk's handler adds to those it was granted. A
// challenge that would bring them past [MaxScopes] is refused with
// a [*PolicyError] (RuleScopes) before the handler runs. Scopes the handler adds by itself (scopes_supported of
// the metadata when a challenge names none, offline_access) are its own.
type OAuth struct {
	h   sdkauth.OAuthHandler
	key *dpopKey // the DPoP key of the handler's client (NewAuthorizationCode), or nil

	mu     sync.Mutex
	scopes []string // every scope a challenge asked for, in order of first appearance
}

// errNoHandler is the error of an OAuth without a handler.
var errNoHandler = fmt.Errorf("%w: auth.NewOAuth: h is nil", ErrInvalidArgument)

// NewOAuth wraps h. If h is nil, the OAuth's Credential and Authorize fail
// with [ErrInvalidArgument], so that no request is sent without a
// credential. Handler then returns nil. A nil *OAuth (a source declared
// and never set) behaves the same.
func NewOAuth(h sdkauth.OAuthHandler) *OAuth { return &OAuth{h: h} }

// NewAuthorizationCode returns an OAuth source running the go-sdk's
// authorization code flow configured by cfg (see
// [sdkauth.NewAuthorizationCodeHandler] for what it validates). With a
// cfg.Client from [DPoPKey.Client], the token requests carry DPoP proofs
// and a token issued as DPoP-bound is sent with proofs of that key.
//
// The handler is given a copy of cfg.Client (nil means a client with a
// 30-second timeout) whose CheckRedirect is [CheckRedirect]: its token and
// registration requests follow no redirect, its metadata requests none to
// another origin. cfg.Client's own CheckRedirect is not used.
func NewAuthorizationCode(cfg *sdkauth.AuthorizationCodeHandlerConfig) (*OAuth, error) {
	var key *dpopKey
	if cfg != nil {
		c := *cfg
		key = dpopKeyOf(c.Client)
		c.Client = guardClient(c.Client)
		cfg = &c
	}
	h, err := sdkauth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return nil, fmt.Errorf("auth: authorization code handler: %w", err)
	}
	o := NewOAuth(h)
	o.key = key
	return o, nil
}

// Handler returns the wrapped go-sdk handler (nil for NewOAuth(nil)).
func (o *OAuth) Handler() sdkauth.OAuthHandler {
	if o == nil {
		return nil
	}
	return o.h
}

// Credential returns the handler's current access token, refreshing it if it
// has expired. It returns a zero Token when the handler has none yet, or
// when the refresh token was refused (invalid_grant). The request then
// goes without a credential, the server answers 401, and Authorize runs
// the flow again. It fails with [ErrInvalidArgument] when the OAuth has no handler
// (NewOAuth(nil)).
func (o *OAuth) Credential(ctx context.Context, _ *http.Request) (Token, error) {
	if o == nil || o.h == nil {
		return Token{}, errNoHandler
	}
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
	return issued(tok, o.key)
}

// issued returns the access token tok as a Token: DPoP-bound when the
// authorization server issued it so to a client holding key, a bearer
// token when it issued it as Bearer, else a *PolicyError (RuleTokenType).
func issued(tok *oauth2.Token, key *dpopKey) (Token, error) {
	switch {
	case tok.TokenType == "" || strings.EqualFold(tok.TokenType, "Bearer"):
		return NewToken(tok.AccessToken), nil
	case key != nil && strings.EqualFold(tok.TokenType, "DPoP"):
		return boundToken(tok.AccessToken, key), nil
	case strings.EqualFold(tok.TokenType, "DPoP"):
		return Token{}, refused(RuleTokenType, "DPoP, and the client holds no DPoP key")
	}
	t := tok.TokenType
	if len(t) > 64 {
		t = t[:64] + "…"
	}
	return Token{}, refused(RuleTokenType, "%q", t)
}

// Authorize runs the handler's flow for a refused request; not for a
// refusal for want of a DPoP nonce that the retry with the nonce got
// again, which fails with [ErrDPoP] (see [NewRoundTripper]). It fails
// with [ErrInvalidArgument] when the OAuth has no handler (NewOAuth(nil)).
func (o *OAuth) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	if o == nil || o.h == nil {
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		return errNoHandler
	}
	if err := nonceRefused(req, resp); err != nil {
		return err
	}
	scopes, err := o.stepUp(resp)
	if err != nil {
		if resp != nil && resp.Body != nil {
			drain(resp)
		}
		return err
	}
	if err := o.h.Authorize(ctx, req, resp); err != nil {
		return fmt.Errorf("auth: authorization: %w", err)
	}
	o.mu.Lock()
	o.scopes = scopes
	o.mu.Unlock()
	return nil
}

// stepUp returns the scopes asked for so far with those of resp's
// challenge, or a *PolicyError (RuleScopes) past MaxScopes.
func (o *OAuth) stepUp(resp *http.Response) ([]string, error) {
	var add []string
	if resp != nil {
		challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
		add = challengeScopes(challenges)
	}
	o.mu.Lock()
	scopes := slices.Clone(o.scopes)
	o.mu.Unlock()
	for _, sc := range add {
		if !slices.Contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	if len(scopes) > MaxScopes {
		return nil, fmt.Errorf("auth: authorization: %w", refused(RuleScopes, "the server asks for %d scopes, more than %d", len(scopes), MaxScopes))
	}
	return scopes, nil
}
