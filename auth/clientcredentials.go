package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
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

	// PrivateKey authenticates the client with private_key_jwt (RFC 7523):
	// each token request carries a JWT assertion, valid for one minute,
	// signed with it: ES256, ES384 or ES512 for an *ecdsa.PrivateKey on
	// P-256, P-384 or P-521, RS256 for an *rsa.PrivateKey, EdDSA for an
	// ed25519.PrivateKey. See [ParsePrivateKey].
	PrivateKey crypto.Signer

	// KeyID, if set, is the assertion's "kid" header.
	KeyID string

	// Scopes are the scopes requested. Nil means the scope of the server's
	// WWW-Authenticate challenge, else its protected resource metadata's
	// scopes_supported. A 403 insufficient_scope challenge adds its scopes.
	Scopes []string

	// TokenURL, if set, is the authorization server's token endpoint: no
	// discovery happens, and the first request already carries a token.
	// Without it, the endpoint is discovered when the server first answers
	// 401: its protected resource metadata (RFC 9728) names the
	// authorization server, whose metadata (RFC 8414) names the endpoint,
	// which must then be https (or on a loopback host).
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
	// with a 30-second timeout.
	HTTPClient *http.Client
}

// Errors of client credentials, matched with errors.Is.
var (
	// ErrClientCredentials is wrapped by every error of a ClientCredentials
	// source: bad configuration (from NewClientCredentials), failed
	// discovery, a refused token request.
	ErrClientCredentials = errors.New("auth: client credentials")
	// ErrIssuerMismatch is returned when discovery leads to an
	// authorization server other than ClientCredentialsConfig.Issuer.
	ErrIssuerMismatch = errors.New("auth: authorization server is not the configured issuer")
)

// ClientCredentials is a [Source] and [Authorizer] that obtains access
// tokens with the client credentials grant, refreshing them as they expire
// (golang.org/x/oauth2/clientcredentials). It never prompts anyone.
type ClientCredentials struct {
	cfg    ClientCredentialsConfig
	client *http.Client
	// fetching holds one token at a time: a caller that finds no valid
	// token takes it, or waits for it as long as its context allows, so
	// concurrent requests share one token request.
	fetching chan struct{}

	mu       sync.Mutex // guards the fields below
	endpoint *tokenEndpoint
	scopes   []string
	usable   bool          // a token may be requested: TokenURL is set, or Authorize succeeded
	tok      *oauth2.Token // the current token, nil until one is obtained
}

// tokenEndpoint is where tokens come from, and what the grant needs of it.
type tokenEndpoint struct {
	url, issuer, resource string
	methods               []string // token_endpoint_auth_methods_supported
}

var (
	_ Source     = (*ClientCredentials)(nil)
	_ Authorizer = (*ClientCredentials)(nil)
)

// NewClientCredentials validates cfg and returns the source. Nothing is
// sent until a transport asks for a credential.
func NewClientCredentials(cfg *ClientCredentialsConfig) (*ClientCredentials, error) {
	if cfg == nil {
		return nil, fmt.Errorf("%w: nil config", ErrClientCredentials)
	}
	c := *cfg
	switch {
	case c.ClientID == "":
		return nil, fmt.Errorf("%w: ClientID is empty", ErrClientCredentials)
	case c.ClientSecret.IsZero() == (c.PrivateKey == nil):
		return nil, fmt.Errorf("%w: set exactly one of ClientSecret and PrivateKey", ErrClientCredentials)
	}
	if c.PrivateKey != nil {
		if _, err := signingMethod(c.PrivateKey); err != nil {
			return nil, err
		}
	}
	for _, u := range []string{c.TokenURL, c.Issuer} {
		if u == "" {
			continue
		}
		if p, err := url.Parse(u); err != nil || p.Scheme == "" || p.Host == "" {
			return nil, fmt.Errorf("%w: %q is not an absolute URL", ErrClientCredentials, u)
		}
	}
	cc := &ClientCredentials{cfg: c, client: c.HTTPClient, scopes: slices.Clone(c.Scopes), fetching: make(chan struct{}, 1)}
	if cc.client == nil {
		cc.client = &http.Client{Timeout: 30 * time.Second}
	}
	if c.TokenURL != "" {
		cc.endpoint = &tokenEndpoint{url: c.TokenURL, issuer: c.Issuer, resource: c.Resource}
		cc.usable = true
	}
	return cc, nil
}

// Credential returns the current access token, obtaining or refreshing it
// as needed. Before discovery (no TokenURL, no 401 yet) it returns a zero
// Token, so that the server's 401 tells Authorize where to go. A token
// request is bounded by ctx (the request's context, so the client's
// ConnectTimeout or CallTimeout) as well as by the source's HTTP client.
func (cc *ClientCredentials) Credential(ctx context.Context, _ *http.Request) (Token, error) {
	cc.mu.Lock()
	usable := cc.usable
	cc.mu.Unlock()
	if !usable {
		return Token{}, nil
	}
	tok, err := cc.token(ctx)
	if err != nil {
		return Token{}, fmt.Errorf("%w: token request: %w", ErrClientCredentials, err)
	}
	return NewToken(tok.AccessToken), nil
}

// token returns the current token if it is still valid, else requests a
// new one for the current endpoint and scopes, within ctx.
func (cc *ClientCredentials) token(ctx context.Context) (*oauth2.Token, error) {
	select {
	case cc.fetching <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-cc.fetching }()
	cc.mu.Lock()
	if cc.tok.Valid() {
		tok := cc.tok
		cc.mu.Unlock()
		return tok, nil
	}
	req := cc.tokenRequest()
	cc.mu.Unlock()
	tok, err := req.do(context.WithValue(ctx, oauth2.HTTPClient, cc.client))
	if err != nil {
		return nil, err
	}
	cc.mu.Lock()
	cc.tok = tok
	cc.mu.Unlock()
	return tok, nil
}

// Authorize is called when the server refused a request with 401 or 403.
// It discovers the token endpoint (unless TokenURL is set), adds the
// challenge's scopes and obtains a new token, so that Credential returns it.
// It closes resp.Body.
func (cc *ClientCredentials) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	defer io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	cc.mu.Lock()
	endpoint := cc.endpoint
	cc.mu.Unlock()
	var prmScopes []string
	if endpoint == nil {
		var err error
		endpoint, prmScopes, err = cc.discover(ctx, challenges, req.URL)
		if err != nil {
			return err
		}
	}
	cc.mu.Lock()
	cc.endpoint = endpoint
	add := challengeScopes(challenges)
	if len(cc.scopes) == 0 && len(add) == 0 {
		add = prmScopes
	}
	for _, s := range add {
		if !slices.Contains(cc.scopes, s) {
			cc.scopes = append(cc.scopes, s)
		}
	}
	// The refused token is dropped; until a new one comes, requests go
	// without a credential (or, with TokenURL, ask for one themselves).
	cc.tok = nil
	cc.usable = cc.cfg.TokenURL != ""
	cc.mu.Unlock()
	if _, err := cc.token(ctx); err != nil {
		return fmt.Errorf("%w: token request: %w", ErrClientCredentials, err)
	}
	cc.mu.Lock()
	cc.usable = true
	cc.mu.Unlock()
	return nil
}

// discover finds the token endpoint from the server's protected resource
// metadata and its authorization server's metadata.
func (cc *ClientCredentials) discover(ctx context.Context, challenges []oauthex.Challenge, server *url.URL) (*tokenEndpoint, []string, error) {
	var prm *oauthex.ProtectedResourceMetadata
	for _, u := range prmURLs(challenges, server) {
		m, err := oauthex.GetProtectedResourceMetadata(ctx, u.url, u.resource, cc.client)
		if err == nil && m != nil {
			prm = m
			break
		}
	}
	if prm == nil || len(prm.AuthorizationServers) == 0 {
		return nil, nil, fmt.Errorf("%w: no protected resource metadata naming an authorization server for %s", ErrClientCredentials, server.Redacted())
	}
	issuer := prm.AuthorizationServers[0]
	if cc.cfg.Issuer != "" && !sameIssuer(cc.cfg.Issuer, issuer) {
		return nil, nil, fmt.Errorf("%w: %w: the server names %s, want %s", ErrClientCredentials, ErrIssuerMismatch, issuer, cc.cfg.Issuer)
	}
	asm, err := authServerMetadata(ctx, issuer, cc.client)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: authorization server metadata: %w", ErrClientCredentials, err)
	}
	if asm == nil || asm.TokenEndpoint == "" {
		return nil, nil, fmt.Errorf("%w: authorization server %s publishes no token endpoint", ErrClientCredentials, issuer)
	}
	if cc.cfg.Issuer != "" && !sameIssuer(cc.cfg.Issuer, asm.Issuer) {
		return nil, nil, fmt.Errorf("%w: %w: metadata issuer %s, want %s", ErrClientCredentials, ErrIssuerMismatch, asm.Issuer, cc.cfg.Issuer)
	}
	if err := checkTokenEndpoint(asm.TokenEndpoint); err != nil {
		return nil, nil, fmt.Errorf("%w: authorization server %s: %w", ErrClientCredentials, issuer, err)
	}
	resource := cc.cfg.Resource
	if resource == "" {
		resource = prm.Resource
	}
	return &tokenEndpoint{url: asm.TokenEndpoint, issuer: asm.Issuer, resource: resource, methods: asm.TokenEndpointAuthMethodsSupported}, prm.ScopesSupported, nil
}

// tokenRequest describes a token request for the current endpoint and
// scopes. cc.mu is held.
func (cc *ClientCredentials) tokenRequest() *tokenRequest {
	e := cc.endpoint
	conf := &clientcredentials.Config{
		ClientID: cc.cfg.ClientID,
		TokenURL: e.url,
		Scopes:   slices.Clone(cc.scopes),
	}
	if e.resource != "" {
		conf.EndpointParams = url.Values{"resource": {e.resource}}
	}
	if cc.cfg.PrivateKey == nil {
		conf.ClientSecret = cc.cfg.ClientSecret.Reveal()
		conf.AuthStyle = secretStyle(e.methods)
		return &tokenRequest{conf: conf}
	}
	conf.AuthStyle = oauth2.AuthStyleInParams
	audience := cc.cfg.Issuer
	if audience == "" {
		audience = e.issuer
	}
	if audience == "" {
		audience = e.url
	}
	return &tokenRequest{conf: conf, key: cc.cfg.PrivateKey, kid: cc.cfg.KeyID, aud: audience}
}

// secretStyle is client_secret_basic unless the server lists only
// client_secret_post.
func secretStyle(methods []string) oauth2.AuthStyle {
	if !slices.Contains(methods, "client_secret_basic") && slices.Contains(methods, "client_secret_post") {
		return oauth2.AuthStyleInParams
	}
	return oauth2.AuthStyleInHeader
}

// A tokenRequest is one client credentials grant: with the client secret,
// or, when key is set, with a fresh private_key_jwt assertion.
type tokenRequest struct {
	conf *clientcredentials.Config
	key  crypto.Signer
	kid  string
	aud  string
}

// do sends the request within ctx, which carries the HTTP client.
func (a *tokenRequest) do(ctx context.Context) (*oauth2.Token, error) {
	if a.key == nil {
		return a.conf.Token(ctx)
	}
	method, err := signingMethod(a.key)
	if err != nil {
		return nil, err
	}
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return nil, err
	}
	now := time.Now()
	t := jwt.NewWithClaims(method, jwt.RegisteredClaims{
		Issuer:    a.conf.ClientID,
		Subject:   a.conf.ClientID,
		Audience:  jwt.ClaimStrings{a.aud},
		IssuedAt:  jwt.NewNumericDate(now),
		NotBefore: jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(time.Minute)),
		ID:        hex.EncodeToString(jti),
	})
	if a.kid != "" {
		t.Header["kid"] = a.kid
	}
	assertion, err := t.SignedString(a.key)
	if err != nil {
		return nil, fmt.Errorf("%w: signing the assertion: %w", ErrClientCredentials, err)
	}
	conf := *a.conf
	conf.EndpointParams = url.Values{}
	for k, v := range a.conf.EndpointParams {
		conf.EndpointParams[k] = v
	}
	conf.EndpointParams.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
	conf.EndpointParams.Set("client_assertion", assertion)
	return conf.Token(ctx)
}

func signingMethod(key crypto.Signer) (jwt.SigningMethod, error) {
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return jwt.SigningMethodES256, nil
		case elliptic.P384():
			return jwt.SigningMethodES384, nil
		case elliptic.P521():
			return jwt.SigningMethodES512, nil
		}
	case *rsa.PrivateKey:
		return jwt.SigningMethodRS256, nil
	case ed25519.PrivateKey:
		return jwt.SigningMethodEdDSA, nil
	}
	return nil, fmt.Errorf("%w: unsupported private key %T", ErrClientCredentials, key)
}

// ParsePrivateKey parses a PEM private key for
// ClientCredentialsConfig.PrivateKey: PKCS #8 ("PRIVATE KEY"), SEC 1 ("EC
// PRIVATE KEY") or PKCS #1 ("RSA PRIVATE KEY").
func ParsePrivateKey(pemBytes []byte) (crypto.Signer, error) {
	b, _ := pem.Decode(pemBytes)
	if b == nil {
		return nil, fmt.Errorf("%w: no PEM block in the private key", ErrClientCredentials)
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
		return nil, fmt.Errorf("%w: PEM block %q is not a private key", ErrClientCredentials, b.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: private key: %w", ErrClientCredentials, err)
	}
	s, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%w: unsupported private key %T", ErrClientCredentials, key)
	}
	if _, err := signingMethod(s); err != nil {
		return nil, err
	}
	return s, nil
}

// prmURL is a place protected resource metadata may be, and the resource
// it must name.
type prmURL struct{ url, resource string }

// prmURLs are the places to look for the server's protected resource
// metadata, in the order the MCP specification gives: the challenge's
// resource_metadata, then the well-known URIs at the endpoint's path and at
// the root.
func prmURLs(challenges []oauthex.Challenge, server *url.URL) []prmURL {
	resource := *server
	resource.RawQuery, resource.Fragment = "", ""
	var out []prmURL
	for _, c := range challenges {
		if u := c.Params["resource_metadata"]; u != "" {
			out = append(out, prmURL{u, resource.String()})
			break
		}
	}
	at := resource
	at.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(server.Path, "/")
	out = append(out, prmURL{at.String(), resource.String()})
	root := resource
	root.Path = "/.well-known/oauth-protected-resource"
	origin := resource
	origin.Path = ""
	out = append(out, prmURL{root.String(), origin.String()})
	return out
}

func challengeScopes(challenges []oauthex.Challenge) []string {
	for _, c := range challenges {
		if c.Scheme == "bearer" && c.Params["scope"] != "" {
			return strings.Fields(c.Params["scope"])
		}
	}
	return nil
}

func sameIssuer(a, b string) bool { return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/") }

// checkTokenEndpoint refuses a discovered token endpoint that the secret or
// assertion would reach in the clear: plain http to a host that is not
// loopback, as the go-sdk's metadata checks refuse it (the metadata is
// fetched here, without them).
func checkTokenEndpoint(u string) error {
	o, err := ParseOrigin(u)
	if err != nil {
		return fmt.Errorf("token endpoint: %w", err)
	}
	if o.Scheme != "https" && !o.IsLoopback() {
		return fmt.Errorf("token endpoint %s is neither https nor loopback", o)
	}
	return nil
}

// maxMetadataBytes bounds an authorization server's metadata document.
const maxMetadataBytes = 1 << 20

// authServerMetadata fetches the RFC 8414 metadata of issuer from the
// well-known URIs the MCP specification lists, and checks that it names
// issuer (RFC 8414 §3.3). It does not require PKCE, which the go-sdk's
// authorization code discovery does and the client credentials grant
// does not use.
func authServerMetadata(ctx context.Context, issuer string, hc *http.Client) (*oauthex.AuthServerMeta, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("issuer %q is not an absolute URL", issuer)
	}
	path := strings.TrimSuffix(u.Path, "/")
	var candidates []string
	for _, wk := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		c := *u
		c.Path = wk + path
		candidates = append(candidates, c.String())
	}
	if path != "" {
		c := *u
		c.Path = path + "/.well-known/openid-configuration"
		candidates = append(candidates, c.String())
	}
	for _, mu := range candidates {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, mu, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 400 && resp.StatusCode < 500 {
			continue // not here; try the next URI
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s: status %d", mu, resp.StatusCode)
		}
		if len(data) > maxMetadataBytes {
			return nil, fmt.Errorf("%s: metadata larger than %d bytes", mu, maxMetadataBytes)
		}
		var m oauthex.AuthServerMeta
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("%s: %w", mu, err)
		}
		if !sameIssuer(m.Issuer, issuer) {
			return nil, fmt.Errorf("%w: %s names issuer %q, want %q", ErrIssuerMismatch, mu, m.Issuer, issuer)
		}
		return &m, nil
	}
	return nil, nil
}
