package auth

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/looprig/mcp/internal/dpop"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// ClientCredentialsConfig configures [NewClientCredentials]: a confidential
// client that obtains its access token with the OAuth 2.0 client
// credentials grant (RFC 6749 §4.4; the MCP extension
// io.modelcontextprotocol/oauth-client-credentials, SEP-1046), with no
// user and no browser. It is what a CI job uses to record against a
// protected server.
type ClientCredentialsConfig struct {
	// ClientID is the client's registered identifier. It must not be empty.
	ClientID string

	// ClientSecret authenticates the client with client_secret_basic (or
	// client_secret_post, when the authorization server's metadata lists
	// only that). Exactly one of ClientSecret and PrivateKey must be set.
	ClientSecret Secret

	// PrivateKey authenticates the client with private_key_jwt (RFC 7523).
	// Each token request carries a JWT assertion, valid for one minute,
	// signed with it. The algorithm is ES256, ES384 or ES512 for an
	// *ecdsa.PrivateKey on P-256, P-384 or P-521. It is RS256 for an
	// *rsa.PrivateKey, and EdDSA for an ed25519.PrivateKey. See
	// [ParsePrivateKey].
	PrivateKey crypto.Signer

	// KeyID, if set, is the assertion's "kid" header.
	KeyID string

	// Scopes are the scopes requested. Nil means the scope of the server's
	// WWW-Authenticate challenge, else its protected resource metadata's
	// scopes_supported. A 403 insufficient_scope challenge adds its scopes,
	// up to [MaxScopes] in all.
	Scopes []string

	// TokenURL, if set, is the authorization server's token endpoint: no
	// discovery happens, and the first request already carries a token.
	// Without it, the endpoint is discovered when the server first answers
	// 401. The server's protected resource metadata (RFC 9728) names the
	// authorization server. That server's metadata (RFC 8414) names the
	// endpoint, which must then be https (or on a loopback host).
	TokenURL string

	// Issuer, if set, pins the authorization server: discovery that leads
	// to another issuer fails, and neither the secret nor an assertion is
	// sent there. Without it the client trusts the authorization server
	// the MCP server names, as an OAuth client following the MCP
	// specification does. With PrivateKey it is the assertion's audience
	// (default: the discovered issuer, or TokenURL).
	Issuer string

	// Resource is the RFC 8707 resource parameter of token requests. Empty
	// means the resource of the server's protected resource metadata, or
	// none when TokenURL skips discovery.
	Resource string

	// HTTPClient makes the discovery and token requests. Nil means a client
	// with a 30-second timeout. A client from [DPoPKey.Client] makes the
	// access tokens DPoP-bound. The source sends through a copy whose
	// CheckRedirect is [CheckRedirect]: a token request follows no
	// redirect, metadata none to another origin.
	HTTPClient *http.Client
}

// ClientCredentials is a [Source] and [Authorizer] that obtains access
// tokens with the client credentials grant, renewing them as they expire
// (golang.org/x/oauth2/clientcredentials). It never prompts anyone.
type ClientCredentials struct{ s *grantSource }

var (
	_ Source     = (*ClientCredentials)(nil)
	_ Authorizer = (*ClientCredentials)(nil)
)

// NewClientCredentials validates cfg and returns the source. Nothing is
// sent until a transport asks for a credential. A cfg it cannot use is an
// error matching [ErrInvalidArgument].
func NewClientCredentials(cfg *ClientCredentialsConfig) (*ClientCredentials, error) {
	c, err := newClientCredentials(cfg)
	return c, invalidConfig(err)
}

func newClientCredentials(cfg *ClientCredentialsConfig) (*ClientCredentials, error) {
	if cfg == nil {
		return nil, fmt.Errorf("%w: nil config", kindClientCredentials)
	}
	c := *cfg
	switch {
	case c.ClientID == "":
		return nil, fmt.Errorf("%w: ClientID is empty", kindClientCredentials)
	case c.ClientSecret.IsZero() == (c.PrivateKey == nil):
		return nil, fmt.Errorf("%w: set exactly one of ClientSecret and PrivateKey", kindClientCredentials)
	}
	if c.PrivateKey != nil {
		if _, err := dpop.Method(c.PrivateKey); err != nil {
			return nil, fmt.Errorf("%w: %w", kindClientCredentials, err)
		}
	}
	ec := endpointConfig{Scopes: c.Scopes, TokenURL: c.TokenURL, Issuer: c.Issuer, Resource: c.Resource, HTTPClient: c.HTTPClient}
	if err := ec.check(kindClientCredentials); err != nil {
		return nil, err
	}
	return &ClientCredentials{s: newGrantSource(kindClientCredentials, ec, &clientGrant{cfg: c})}, nil
}

// Credential returns the current access token, obtaining or renewing it
// as needed. Before discovery (no TokenURL, no 401 yet) it returns a zero
// Token, so that the server's 401 tells Authorize where to go. A token
// request is bounded by ctx (the request's context, so the client's
// ConnectTimeout or CallTimeout) as well as by the source's HTTP client.
func (cc *ClientCredentials) Credential(ctx context.Context, _ *http.Request) (Token, error) {
	return cc.s.credential(ctx)
}

// Authorize is called when the server refused a request with 401 or 403.
// It discovers the token endpoint (unless TokenURL is set), adds the
// challenge's scopes and obtains a new token, so that Credential returns it.
// It closes resp.Body.
func (cc *ClientCredentials) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	return cc.s.authorize(ctx, req, resp)
}

// clientGrant is the client credentials grant, with the client secret or
// a private_key_jwt assertion.
type clientGrant struct{ cfg ClientCredentialsConfig }

func (*clientGrant) present(context.Context) (string, error) { return "", nil }

func (g *clientGrant) request(ctx context.Context, e *tokenEndpoint, scopes []string, _ string) (*oauth2.Token, error) {
	conf := &clientcredentials.Config{
		ClientID: g.cfg.ClientID,
		TokenURL: e.url,
		Scopes:   scopes,
	}
	if e.resource != "" {
		conf.EndpointParams = url.Values{"resource": {e.resource}}
	}
	if g.cfg.PrivateKey == nil {
		conf.ClientSecret = g.cfg.ClientSecret.Reveal()
		conf.AuthStyle = secretStyle(e.methods)
		tok, err := conf.Token(ctx)
		return tok, grantError(grantClientCredentials, e.url, err)
	}
	assertion, err := clientAssertion(g.cfg.PrivateKey, g.cfg.KeyID, g.cfg.ClientID, audience(g.cfg.Issuer, e))
	if err != nil {
		return nil, err
	}
	conf.AuthStyle = oauth2.AuthStyleInParams
	conf.EndpointParams = withParams(conf.EndpointParams, assertionParams(assertion))
	tok, err := conf.Token(ctx)
	return tok, grantError(grantClientCredentials, e.url, err)
}

// audience is the audience of a private_key_jwt assertion: the pinned
// issuer, else the discovered one, else the token endpoint.
func audience(issuer string, e *tokenEndpoint) string {
	switch {
	case issuer != "":
		return issuer
	case e.issuer != "":
		return e.issuer
	}
	return e.url
}

// secretStyle is client_secret_basic unless the server lists only
// client_secret_post.
func secretStyle(methods []string) oauth2.AuthStyle {
	if !slices.Contains(methods, "client_secret_basic") && slices.Contains(methods, "client_secret_post") {
		return oauth2.AuthStyleInParams
	}
	return oauth2.AuthStyleInHeader
}

// clientAssertion returns a private_key_jwt client assertion (RFC 7523
// §2.2): iss and sub the client, aud the authorization server, valid one
// minute, with a fresh jti, signed with key.
func clientAssertion(key crypto.Signer, kid, clientID, aud string) (string, error) {
	method, err := dpop.Method(key)
	if err != nil {
		return "", err
	}
	jti, err := dpop.NewID()
	if err != nil {
		return "", err
	}
	now := time.Now()
	t := jwt.NewWithClaims(method, jwt.RegisteredClaims{
		Issuer:    clientID,
		Subject:   clientID,
		Audience:  jwt.ClaimStrings{aud},
		IssuedAt:  jwt.NewNumericDate(now),
		NotBefore: jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(time.Minute)),
		ID:        jti,
	})
	if kid != "" {
		t.Header["kid"] = kid
	}
	assertion, err := t.SignedString(key)
	if err != nil {
		return "", fmt.Errorf("signing the client assertion: %w", err)
	}
	return assertion, nil
}

// assertionParams are the form parameters of a private_key_jwt assertion.
func assertionParams(assertion string) url.Values {
	return url.Values{
		"client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"},
		"client_assertion":      {assertion},
	}
}

// withParams returns a copy of base with add's parameters set.
func withParams(base, add url.Values) url.Values {
	out := url.Values{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range add {
		out[k] = v
	}
	return out
}

// ParsePrivateKey parses a PEM private key for
// ClientCredentialsConfig.PrivateKey: PKCS #8 ("PRIVATE KEY"), SEC 1 ("EC
// PRIVATE KEY") or PKCS #1 ("RSA PRIVATE KEY"). A key it cannot use is an
// error matching [ErrInvalidArgument].
func ParsePrivateKey(pemBytes []byte) (crypto.Signer, error) {
	s, err := parsePrivateKey(pemBytes)
	return s, invalidConfig(err)
}

func parsePrivateKey(pemBytes []byte) (crypto.Signer, error) {
	b, _ := pem.Decode(pemBytes)
	if b == nil {
		return nil, fmt.Errorf("%w: no PEM block in the private key", kindClientCredentials)
	}
	var key any
	var err error
	switch b.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(b.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(b.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(b.Bytes)
	default:
		return nil, fmt.Errorf("%w: PEM block %q is not a private key", kindClientCredentials, b.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: private key: %w", kindClientCredentials, err)
	}
	s, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%w: unsupported private key %T", kindClientCredentials, key)
	}
	if _, err := dpop.Method(s); err != nil {
		return nil, fmt.Errorf("%w: %w", kindClientCredentials, err)
	}
	return s, nil
}
