package auth

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// EnterpriseConfig configures [NewEnterprise]: enterprise-managed
// authorization (the MCP extension
// io.modelcontextprotocol/enterprise-managed-authorization, SEP-990). The
// user signed in to the client through the enterprise's identity provider
// (IdP), and the client holds their ID token. The client exchanges it at
// the IdP (RFC 8693 token exchange) for an identity assertion JWT
// authorization grant (ID-JAG). The ID-JAG is for the MCP server's
// authorization server. The client presents it there with the JWT-bearer
// grant (RFC 7523). The IdP's policy decides; nobody is prompted.
type EnterpriseConfig struct {
	// IDTokenFile is the path of a file holding the user's ID token, read
	// afresh for every token request (at most 64 KiB, white space
	// trimmed). Exactly one of IDTokenFile and IDToken must be set.
	IDTokenFile string
	// IDToken returns the user's ID token from the single sign-on, for
	// every token request (an OpenID Connect login, a token cache).
	IDToken func(ctx context.Context) (Token, error)

	// IdPIssuer is the IdP's issuer: its token endpoint is discovered from
	// its metadata (RFC 8414, or OpenID Connect discovery), which must
	// name this issuer. IdPTokenURL, if set, is that token endpoint and no
	// discovery happens. At least one must be set.
	IdPIssuer   string
	IdPTokenURL string
	// IdPClientID is the client's identifier at the IdP. It must not be
	// empty. IdPClientSecret, if set, authenticates the client there
	// (client_secret_post, as the go-sdk's oauthex.ExchangeToken sends
	// it).
	IdPClientID     string
	IdPClientSecret Secret

	// ClientID is the client's identifier at the MCP server's
	// authorization server, which the ID-JAG names. It must not be empty.
	// ClientSecret, if set, authenticates the client there with
	// client_secret_basic (client_secret_post if the server lists only
	// that); empty means a public client, sending its client_id alone.
	ClientID     string
	ClientSecret Secret

	// Scopes, TokenURL, Issuer, Resource: as in [ClientCredentialsConfig],
	// for the MCP server's authorization server. The token exchange asks
	// for an ID-JAG whose audience is that server's issuer and whose
	// resource is the MCP server's. Both are discovered from the server's
	// first 401: the protected resource metadata, then the authorization
	// server's metadata. With TokenURL there is no discovery, and Issuer
	// and Resource must be set.
	Scopes   []string
	TokenURL string
	Issuer   string
	Resource string

	// HTTPClient makes the discovery and token requests, at the IdP and at
	// the authorization server. Nil means a client with a 30-second
	// timeout. A client from [DPoPKey.Client] makes the access tokens
	// DPoP-bound (the token exchange at the IdP goes without proofs). As
	// in [ClientCredentialsConfig], its CheckRedirect is [CheckRedirect].
	HTTPClient *http.Client
}

// Enterprise is a [Source] and [Authorizer] for enterprise-managed
// authorization: ID token → ID-JAG at the IdP → access token at the MCP
// server's authorization server, the whole chain run again when the access
// token expires. A refusal at either step is a [*GrantError] (Grant says
// which step); invalid_grant, invalid_scope and unauthorized_client are
// not sent again for the same ID token, and no other grant is tried.
type Enterprise struct{ s *grantSource }

var (
	_ Source     = (*Enterprise)(nil)
	_ Authorizer = (*Enterprise)(nil)
)

// NewEnterprise validates cfg and returns the source. Nothing is read or
// sent until a transport asks for a credential.
func NewEnterprise(cfg *EnterpriseConfig) (*Enterprise, error) {
	e, err := newEnterprise(cfg)
	return e, invalidConfig(err)
}

func newEnterprise(cfg *EnterpriseConfig) (*Enterprise, error) {
	if cfg == nil {
		return nil, fmt.Errorf("%w: nil config", kindEnterprise)
	}
	c := *cfg
	idToken, err := newAssertion(kindEnterprise, "IDTokenFile", "IDToken", c.IDTokenFile, c.IDToken)
	if err != nil {
		return nil, err
	}
	switch {
	case c.IdPClientID == "":
		return nil, fmt.Errorf("%w: IdPClientID is empty", kindEnterprise)
	case c.ClientID == "":
		return nil, fmt.Errorf("%w: ClientID is empty", kindEnterprise)
	case c.IdPIssuer == "" && c.IdPTokenURL == "":
		return nil, fmt.Errorf("%w: set IdPIssuer or IdPTokenURL", kindEnterprise)
	case c.TokenURL != "" && (c.Issuer == "" || c.Resource == ""):
		return nil, fmt.Errorf("%w: TokenURL needs Issuer and Resource (the ID-JAG's audience and resource)", kindEnterprise)
	}
	for _, u := range []string{c.IdPIssuer, c.IdPTokenURL} {
		if err := checkAbsolute(kindEnterprise, u); err != nil {
			return nil, err
		}
	}
	ec := endpointConfig{Scopes: c.Scopes, TokenURL: c.TokenURL, Issuer: c.Issuer, Resource: c.Resource, HTTPClient: c.HTTPClient}
	if err := ec.check(kindEnterprise); err != nil {
		return nil, err
	}
	g := &enterpriseGrant{cfg: c, idToken: idToken, idpToken: c.IdPTokenURL}
	return &Enterprise{s: newGrantSource(kindEnterprise, ec, g)}, nil
}

// Credential returns the current access token, obtaining or renewing it
// as needed (see [ClientCredentials.Credential]).
func (e *Enterprise) Credential(ctx context.Context, _ *http.Request) (Token, error) {
	return e.s.credential(ctx)
}

// Authorize is called when the server refused a request with 401 or 403:
// it discovers the authorization server and obtains a token (see
// [ClientCredentials.Authorize]). It closes resp.Body.
func (e *Enterprise) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	return e.s.authorize(ctx, req, resp)
}

type enterpriseGrant struct {
	cfg     EnterpriseConfig
	idToken *assertion

	mu       sync.Mutex // guards idpToken
	idpToken string     // the IdP's token endpoint, once known
}

func (g *enterpriseGrant) present(ctx context.Context) (string, error) { return g.idToken.read(ctx) }

func (g *enterpriseGrant) request(ctx context.Context, e *tokenEndpoint, scopes []string, idToken string) (*oauth2.Token, error) {
	hc, _ := ctx.Value(oauth2.HTTPClient).(*http.Client)
	hc = withoutDPoP(hc)
	idp, err := g.idpEndpoint(ctx, hc)
	if err != nil {
		return nil, err
	}
	creds := &oauthex.ClientCredentials{ClientID: g.cfg.IdPClientID}
	if !g.cfg.IdPClientSecret.IsZero() {
		creds.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: g.cfg.IdPClientSecret.Reveal()}
	}
	jag, err := oauthex.ExchangeToken(ctx, idp, &oauthex.TokenExchangeRequest{
		RequestedTokenType: oauthex.TokenTypeIDJAG,
		Audience:           audience(g.cfg.Issuer, e),
		Resource:           e.resource,
		Scope:              scopes,
		SubjectToken:       idToken,
		SubjectTokenType:   oauthex.TokenTypeIDToken,
	}, creds, hc)
	if err != nil {
		return nil, grantError(grantTokenExchange, idp, err)
	}
	if typ, _ := jag.Extra("issued_token_type").(string); typ != oauthex.TokenTypeIDJAG {
		return nil, fmt.Errorf("the IdP issued a %q, want an ID-JAG (%s)", typ, oauthex.TokenTypeIDJAG)
	}
	return jwtBearer(ctx, e, scopes, jag.AccessToken, g.cfg.ClientID, g.cfg.ClientSecret)
}

// idpEndpoint returns the IdP's token endpoint, discovering it once.
func (g *enterpriseGrant) idpEndpoint(ctx context.Context, hc *http.Client) (string, error) {
	g.mu.Lock()
	u := g.idpToken
	g.mu.Unlock()
	if u != "" {
		return u, nil
	}
	asm, err := authServerMetadata(ctx, g.cfg.IdPIssuer, hc)
	if err != nil {
		return "", fmt.Errorf("IdP metadata: %w", err)
	}
	if asm == nil || asm.TokenEndpoint == "" {
		return "", fmt.Errorf("the IdP %s publishes no token endpoint", g.cfg.IdPIssuer)
	}
	if err := checkTokenEndpoint(asm.TokenEndpoint); err != nil {
		return "", fmt.Errorf("the IdP %s: %w", g.cfg.IdPIssuer, err)
	}
	g.mu.Lock()
	g.idpToken = asm.TokenEndpoint
	g.mu.Unlock()
	return asm.TokenEndpoint, nil
}
