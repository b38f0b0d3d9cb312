package oauthtest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/dpop"
	"github.com/looprig/mcp/internal/httpserve"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// DefaultTokenTTL is the lifetime of the access tokens a fake
// authorization server issues when AuthServerOptions.TokenTTL is zero.
const DefaultTokenTTL = time.Hour

// AuthServerOptions configure a fake OAuth authorization server
// ([StartAuthServer], [NewAuthServer]). A nil *AuthServerOptions means
// defaults: the scope "mcp", one confidential client (DefaultClientID,
// DefaultClientSecret), hour-long tokens, no faults.
type AuthServerOptions struct {
	// Scopes are the scopes the server supports (scopes_supported). A
	// request for another scope is refused (invalid_scope). Empty means
	// ["mcp"].
	Scopes []string
	// Clients are registered before any request. Confidential ones (with a
	// Secret) are for the client credentials grant. They are also for the
	// authorization code grant with client_secret_basic or
	// client_secret_post. Public ones (no Secret) are for the authorization
	// code grant with PKCE only.
	// Nil means one confidential client, DefaultClientID with
	// DefaultClientSecret, allowed every grant; an empty, non-nil slice
	// registers none (clients then come by dynamic registration).
	Clients []AuthClient
	// TokenTTL is the lifetime of an access token (expires_in). Zero means
	// DefaultTokenTTL. A lifetime under ten seconds makes the
	// golang.org/x/oauth2 token sources of the go-sdk and of auth treat
	// every token as expired already. Each request then refreshes: a way
	// to test refresh without waiting.
	TokenTTL time.Duration
	// Trust are the other fake servers whose JWTs the jwt-bearer grant
	// takes as assertions, besides the server's own (see
	// [AuthServer.IDToken]). One is the CI's or cloud's workload identity
	// issuer of workload identity federation. Another is the IdP of
	// enterprise-managed authorization, whose token exchange issues the
	// ID-JAGs.
	Trust []*AuthServer

	// RequireDPoP refuses a token request without a DPoP proof (400
	// invalid_dpop_proof). Without it, a token request with a valid proof
	// gets a DPoP-bound token (token_type DPoP, bound to the proof's key)
	// and one without a proof a bearer token. Either way a proof that
	// fails its checks is refused. The checks are its signature and key,
	// htm and htu, iat within DPoPProofWindow of now, and a jti not seen
	// before. At the protected resource they add ath and the token's key.
	RequireDPoP bool
	// DPoPNonce makes the token endpoint and the protected resource
	// require a server nonce in every DPoP proof (RFC 9449 §8, §9). A
	// proof without the current one is answered use_dpop_nonce, with a
	// DPoP-Nonce header naming it. That is 400 at the token endpoint and
	// 401 at the resource. Nonces are nonce-1, nonce-2, …; one is current
	// at a time.
	DPoPNonce bool

	// The faults.

	// RefuseGrant refuses every client_credentials, jwt-bearer and token
	// exchange request with this OAuth error code (invalid_grant,
	// invalid_scope, unauthorized_client, …). The status is 400 (401 for
	// invalid_client). A client must surface it, not retry it, and not
	// switch to another grant. Empty means no refusal.
	RefuseGrant string
	// StaleNonces makes every DPoP nonce stale once issued: each proof,
	// even one carrying the nonce the server just gave, is answered
	// use_dpop_nonce with a new one. A client must retry once, then fail.
	// It implies DPoPNonce.
	StaleNonces bool

	// InvalidGrant refuses every refresh_token grant with invalid_grant,
	// as for refresh tokens revoked for good: the client must authorize
	// anew, and fail if it needs to refresh again. (RevokeRefreshTokens
	// revokes those issued so far only.)
	InvalidGrant bool
	// TokenDelay holds every token request this long before answering (a
	// slow token endpoint). A request whose client gives up is answered
	// nothing and issues nothing.
	TokenDelay time.Duration
	// WrongIssuer makes the metadata name another issuer than the
	// server's URL (a mix-up): a client must refuse to use it.
	WrongIssuer bool
	// Loop401 makes the protected resource ([AuthServer.Protect]) answer
	// 401 invalid_token to every request, whatever token it carries: a
	// client must stop authorizing again after a bounded number of tries.
	Loop401 bool
}

// An AuthClient is a client registered with a fake authorization server.
type AuthClient struct {
	// ID is the client_id.
	ID string
	// Secret is the client_secret; empty for a public client.
	Secret string
	// RedirectURIs are the URIs the authorization endpoint may redirect to;
	// empty allows any loopback http URI and none other.
	RedirectURIs []string
}

// The pre-registered client of a fake authorization server whose options
// register none explicitly.
const (
	DefaultClientID     = "mcptest-client"
	DefaultClientSecret = "mcptest-secret"
)

// AuthCounts are a fake authorization server's counters.
type AuthCounts struct {
	// Registrations counts clients registered dynamically (RFC 7591).
	Registrations int
	// Authorizations counts authorization codes issued.
	Authorizations int
	// TokensIssued counts access tokens issued, by every grant.
	TokensIssued int
	// Refreshes counts refresh_token grants that issued a token.
	Refreshes int
	// Refusals counts error answers of the token, authorization and
	// registration endpoints (invalid_grant, invalid_client, a PKCE
	// verifier that does not match, …).
	Refusals int
	// ResourceRefusals counts the requests the protected resource
	// ([AuthServer.Protect]) answered 401 or 403.
	ResourceRefusals int
	// JWTBearerGrants counts jwt-bearer token requests (RFC 7523 §2.1),
	// answered or refused; TokenExchanges token exchange requests
	// (RFC 8693), answered or refused. A request refused for its DPoP
	// proof alone counts in the DPoP counters only.
	JWTBearerGrants int
	TokenExchanges  int
	// DPoPProofs counts the DPoP proofs checked, at the token endpoint and
	// at the protected resource. DPoPRefusals counts those refused as
	// invalid: signature, key, htm, htu, iat, ath, a replayed jti, a bound
	// token sent as Bearer or without a proof. NoncesIssued counts the
	// use_dpop_nonce answers, each naming a nonce.
	DPoPProofs   int
	DPoPRefusals int
	NoncesIssued int
}

// An AuthServer is a fake OAuth 2.1 authorization server on a loopback
// port, for tests of clients of protected MCP servers. It has:
//   - authorization server metadata (RFC 8414, also as OpenID
//     configuration);
//   - dynamic client registration (RFC 7591);
//   - the authorization code grant with PKCE (S256), and a
//     non-interactive authorization endpoint that redirects at once with
//     the code;
//   - the client credentials grant, refresh tokens, and scopes.
//
// For the clients with no user it has the JWT-bearer grant (RFC 7523). The
// grant takes a workload's token (workload identity federation) or an
// ID-JAG (enterprise-managed authorization). It has the token exchange of
// an ID token for an ID-JAG (RFC 8693, as an enterprise IdP). It has
// [AuthServer.IDToken] to mint the JWTs they take. Its token endpoint
// checks DPoP proofs (RFC 9449) and binds tokens to their keys; nonces on
// request.
//
// [AuthServer.Protect] puts a resource server in front of an MCP handler.
// It serves protected resource metadata (RFC 9728). It answers 401 with a
// challenge for a missing, unknown or expired token. It answers 403
// insufficient_scope for a tool whose scope the token lacks (scope
// step-up). It makes DPoP's checks for a DPoP-bound token.
//
// Everything it issues is deterministic but the signatures of its JWTs:
// clients client-1, client-2, …, codes code-1, …, access tokens access-1,
// …, refresh tokens refresh-1, …, DPoP nonces nonce-1, … It keeps
// everything in memory and never forgets, except the DPoP proofs older
// than DPoPProofWindow. It is for tests.
type AuthServer struct {
	// URL is the issuer: http://127.0.0.1:PORT.
	URL string

	opts AuthServerOptions
	srv  *httpserve.Server
	ln   net.Listener
	done chan struct{}

	// mu guards the fields below.
	mu      sync.Mutex
	clients map[string]*AuthClient
	codes   map[string]*grant
	tokens  map[string]*grant // access tokens
	refresh map[string]*grant // refresh tokens
	counts  AuthCounts
	serial  map[string]int // per prefix: the last number issued
	closed  bool
	nonce   string               // the current DPoP nonce, "" before the first
	jtis    map[string]time.Time // DPoP proofs seen (key thumbprint and jti) → their iat
	signer  *ecdsa.PrivateKey    // signs the JWTs it issues (IDToken, ID-JAGs)
	now     func() time.Time     // the clock of DPoP's iat window
}

// grant is what a code or token stands for.
type grant struct {
	client    string
	scopes    []string
	resource  string
	redirect  string // codes only
	challenge string // codes only: the PKCE S256 challenge
	expires   time.Time
	used      bool   // codes only
	jkt       string // the thumbprint of the DPoP key a token is bound to; "" for a bearer token
}

// StartAuthServer starts a fake authorization server on a loopback port.
// Close stops it. opts is checked: a client without an ID, or two with
// one, is an error. Like every listener of this module, it answers 403 to
// a request whose Host is not a loopback name or whose Origin is not a
// loopback origin. It does so before any endpoint runs.
// (server.HTTPOptions describes the rule.)
func StartAuthServer(opts *AuthServerOptions) (*AuthServer, error) {
	var o AuthServerOptions
	if opts != nil {
		o = *opts
	}
	if len(o.Scopes) == 0 {
		o.Scopes = []string{"mcp"}
	}
	if o.TokenTTL == 0 {
		o.TokenTTL = DefaultTokenTTL
	}
	if o.TokenTTL < 0 || o.TokenDelay < 0 {
		return nil, errors.New("oauthtest: AuthServerOptions: negative TokenTTL or TokenDelay")
	}
	if o.Clients == nil {
		o.Clients = []AuthClient{{ID: DefaultClientID, Secret: DefaultClientSecret}}
	}
	if slices.Contains(o.Trust, nil) {
		return nil, errors.New("oauthtest: AuthServerOptions: nil server in Trust")
	}
	o.DPoPNonce = o.DPoPNonce || o.StaleNonces
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("oauthtest: auth server key: %w", err)
	}
	a := &AuthServer{
		opts: o, done: make(chan struct{}),
		clients: map[string]*AuthClient{}, codes: map[string]*grant{},
		tokens: map[string]*grant{}, refresh: map[string]*grant{}, serial: map[string]int{},
		jtis: map[string]time.Time{}, signer: key, now: time.Now,
	}
	for _, c := range o.Clients {
		if c.ID == "" || a.clients[c.ID] != nil {
			return nil, fmt.Errorf("oauthtest: AuthServerOptions: client ID %q empty or registered twice", c.ID)
		}
		a.clients[c.ID] = &c
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("oauthtest: auth server: %w", err)
	}
	a.ln, a.URL = ln, "http://"+ln.Addr().String()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", a.metadata)
	mux.HandleFunc("GET /.well-known/openid-configuration", a.metadata)
	mux.HandleFunc("POST /register", a.register)
	mux.HandleFunc("GET /authorize", a.authorize)
	mux.HandleFunc("POST /token", a.token)
	a.srv = httpserve.New(mux, nil, nil, discardLogger)
	go a.srv.Serve(ln)
	return a, nil
}

// NewAuthServer starts a fake authorization server for t, closed at
// cleanup; bad options fail t.
func NewAuthServer(t testing.TB, opts *AuthServerOptions) *AuthServer {
	t.Helper()
	a, err := StartAuthServer(opts)
	if err != nil {
		t.Fatalf("oauthtest.NewAuthServer: %v", err)
	}
	t.Cleanup(func() {
		if err := a.Close(); err != nil {
			t.Errorf("oauthtest: closing the auth server: %v", err)
		}
	})
	return a
}

// Close stops the server and waits for its requests. It may be called more
// than once.
func (a *AuthServer) Close() error {
	a.mu.Lock()
	closed := a.closed
	a.closed = true
	a.mu.Unlock()
	if closed {
		return nil
	}
	close(a.done) // releases delayed token requests
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return a.srv.Shutdown(ctx)
}

// Counts returns the counters.
func (a *AuthServer) Counts() AuthCounts {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.counts
}

// ExpireTokens makes every access token issued so far expired: the
// protected resource refuses them with 401 invalid_token from now on.
// Refresh tokens stay valid.
func (a *AuthServer) ExpireTokens() {
	a.mu.Lock()
	defer a.mu.Unlock()
	past := time.Now().Add(-time.Second)
	for _, g := range a.tokens {
		g.expires = past
	}
}

// RevokeRefreshTokens revokes every refresh token issued so far: a
// refresh_token grant with one of them is refused with invalid_grant, so
// that the client must authorize anew. Later refresh tokens are good.
func (a *AuthServer) RevokeRefreshTokens() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.refresh)
}

// next returns the next deterministic value with prefix ("client",
// "code", "access", "refresh"). a.mu must be held.
func (a *AuthServer) next(prefix string) string {
	a.serial[prefix]++
	return fmt.Sprintf("%s-%d", prefix, a.serial[prefix])
}

func (a *AuthServer) issuer() string {
	if a.opts.WrongIssuer {
		return "http://issuer.invalid"
	}
	return a.URL
}

func (a *AuthServer) metadata(w http.ResponseWriter, _ *http.Request) {
	type withDPoP struct {
		*oauthex.AuthServerMeta
		DPoPAlgs []string `json:"dpop_signing_alg_values_supported"`
	}
	writeJSON(w, http.StatusOK, withDPoP{&oauthex.AuthServerMeta{
		Issuer:                            a.issuer(),
		AuthorizationEndpoint:             a.URL + "/authorize",
		TokenEndpoint:                     a.URL + "/token",
		RegistrationEndpoint:              a.URL + "/register",
		ScopesSupported:                   a.opts.Scopes,
		ResponseTypesSupported:            []string{"code"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token", "client_credentials", grantJWTBearer, grantTokenExchange},
		TokenEndpointAuthMethodsSupported: []string{"client_secret_basic", "client_secret_post", "none"},
		CodeChallengeMethodsSupported:     []string{"S256"},
		// The authorization endpoint sends iss (RFC 9207).
		AuthorizationResponseIssParameterSupported: true,
	}, dpop.Algorithms})
}

// register is dynamic client registration (RFC 7591).
func (a *AuthServer) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
		a.refuse(w, http.StatusBadRequest, "invalid_client_metadata", "the body is not a JSON object")
		return
	}
	for _, u := range req.RedirectURIs {
		if !loopbackHTTP(u) {
			a.refuse(w, http.StatusBadRequest, "invalid_redirect_uri", "a fake registers loopback redirect URIs only: "+u)
			return
		}
	}
	a.mu.Lock()
	c := &AuthClient{ID: a.next("client"), RedirectURIs: req.RedirectURIs}
	if req.AuthMethod != "none" {
		c.Secret = "secret-" + strings.TrimPrefix(c.ID, "client-")
	}
	a.clients[c.ID] = c
	a.counts.Registrations++
	a.mu.Unlock()
	method := req.AuthMethod
	if method == "" {
		method = "client_secret_basic"
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id":                  c.ID,
		"client_secret":              c.Secret,
		"redirect_uris":              c.RedirectURIs,
		"token_endpoint_auth_method": method,
		"grant_types":                []string{"authorization_code", "refresh_token", "client_credentials"},
	})
}

// authorize is the authorization endpoint, without a user: it checks the
// request and redirects at once with a code (or the error).
func (a *AuthServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.mu.Lock()
	c := a.clients[q.Get("client_id")]
	a.mu.Unlock()
	redirect := q.Get("redirect_uri")
	if c == nil || !c.allows(redirect) {
		// Never redirect to a URI not known to belong to the client.
		a.refuse(w, http.StatusBadRequest, "invalid_request", "unknown client or redirect_uri")
		return
	}
	back := func(v url.Values) {
		u, _ := url.Parse(redirect) // allows parsed it
		rq := u.Query()
		for k, vs := range v {
			rq[k] = vs
		}
		if s := q.Get("state"); s != "" {
			rq.Set("state", s)
		}
		rq.Set("iss", a.issuer())
		u.RawQuery = rq.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	}
	scopes, bad := a.scopes(q.Get("scope"))
	switch {
	case q.Get("response_type") != "code":
		a.count(func(c *AuthCounts) { c.Refusals++ })
		back(url.Values{"error": {"unsupported_response_type"}})
		return
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		a.count(func(c *AuthCounts) { c.Refusals++ })
		back(url.Values{"error": {"invalid_request"}, "error_description": {"PKCE with S256 is required"}})
		return
	case bad != "":
		a.count(func(c *AuthCounts) { c.Refusals++ })
		back(url.Values{"error": {"invalid_scope"}, "error_description": {bad}})
		return
	}
	a.mu.Lock()
	code := a.next("code")
	a.codes[code] = &grant{client: c.ID, scopes: scopes, resource: q.Get("resource"), redirect: redirect, challenge: q.Get("code_challenge")}
	a.counts.Authorizations++
	a.mu.Unlock()
	back(url.Values{"code": {code}})
}

// scopes parses a scope parameter; bad names the first unsupported one.
func (a *AuthServer) scopes(s string) (scopes []string, bad string) {
	for _, sc := range strings.Fields(s) {
		if sc == "offline_access" {
			continue // refresh tokens are always issued
		}
		if !slices.Contains(a.opts.Scopes, sc) {
			return nil, "unsupported scope " + sc
		}
		if !slices.Contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	slices.Sort(scopes)
	return scopes, ""
}

func (c *AuthClient) allows(redirect string) bool {
	if _, err := url.Parse(redirect); err != nil || redirect == "" {
		return false
	}
	if len(c.RedirectURIs) == 0 {
		return loopbackHTTP(redirect)
	}
	return slices.Contains(c.RedirectURIs, redirect)
}

func loopbackHTTP(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "http" {
		return false
	}
	h := u.Hostname()
	ip := net.ParseIP(h)
	return h == "localhost" || ip != nil && ip.IsLoopback()
}

// token is the token endpoint.
func (a *AuthServer) token(w http.ResponseWriter, r *http.Request) {
	if d := a.opts.TokenDelay; d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return // the client gave up: nothing is issued
		case <-a.done:
			t.Stop()
			return
		}
	}
	if err := r.ParseForm(); err != nil {
		a.refuse(w, http.StatusBadRequest, "invalid_request", "the body is not a form")
		return
	}
	jkt, ok := a.tokenProof(w, r)
	if !ok {
		return
	}
	f := r.PostForm
	gt := f.Get("grant_type")
	switch gt {
	case grantJWTBearer:
		a.count(func(c *AuthCounts) { c.JWTBearerGrants++ })
	case grantTokenExchange:
		a.count(func(c *AuthCounts) { c.TokenExchanges++ })
	}
	var c *AuthClient
	if gt != grantJWTBearer || presentsClient(r) {
		if c, ok = a.authenticate(r); !ok {
			w.Header().Set("WWW-Authenticate", `Basic realm="mcptest"`)
			a.refuse(w, http.StatusUnauthorized, "invalid_client", "unknown client or wrong secret")
			return
		}
	}
	if code := a.opts.RefuseGrant; code != "" && (gt == "client_credentials" || gt == grantJWTBearer || gt == grantTokenExchange) {
		status := http.StatusBadRequest
		if code == "invalid_client" {
			status = http.StatusUnauthorized
		}
		a.refuse(w, status, code, "refused (scripted)")
		return
	}
	switch gt {
	case "authorization_code":
		a.codeGrant(w, c, f, jkt)
	case "refresh_token":
		a.refreshGrant(w, c, f, jkt)
	case "client_credentials":
		a.clientGrant(w, c, f, jkt)
	case grantJWTBearer:
		a.jwtBearerGrant(w, c, f, jkt)
	case grantTokenExchange:
		a.tokenExchange(w, c, f)
	default:
		a.refuse(w, http.StatusBadRequest, "unsupported_grant_type", "grant_type "+gt)
	}
}

func (a *AuthServer) clientGrant(w http.ResponseWriter, c *AuthClient, f url.Values, jkt string) {
	if c.Secret == "" {
		a.refuse(w, http.StatusUnauthorized, "unauthorized_client", "a public client has no client credentials")
		return
	}
	scopes, bad := a.scopes(f.Get("scope"))
	if bad != "" {
		a.refuse(w, http.StatusBadRequest, "invalid_scope", bad)
		return
	}
	a.issue(w, &grant{client: c.ID, scopes: scopes, resource: f.Get("resource"), jkt: jkt}, false)
}

// presentsClient reports whether a token request names a client: Basic
// credentials or a client_id.
func presentsClient(r *http.Request) bool {
	_, _, basic := r.BasicAuth()
	return basic || r.PostForm.Get("client_id") != ""
}

// authenticate finds the client of a token request: client_secret_basic,
// client_secret_post, or a public client's client_id alone.
func (a *AuthServer) authenticate(r *http.Request) (*AuthClient, bool) {
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	a.mu.Lock()
	c := a.clients[id]
	a.mu.Unlock()
	if c == nil || subtle.ConstantTimeCompare([]byte(c.Secret), []byte(secret)) != 1 {
		return nil, false
	}
	return c, true
}

func (a *AuthServer) codeGrant(w http.ResponseWriter, c *AuthClient, f url.Values, jkt string) {
	a.mu.Lock()
	g := a.codes[f.Get("code")]
	valid := g != nil && !g.used && g.client == c.ID && g.redirect == f.Get("redirect_uri")
	if g != nil {
		g.used = true // a code is good once, even when the exchange fails
	}
	a.mu.Unlock()
	switch {
	case !valid:
		a.refuse(w, http.StatusBadRequest, "invalid_grant", "unknown, used or misdirected code")
	case s256(f.Get("code_verifier")) != g.challenge:
		a.refuse(w, http.StatusBadRequest, "invalid_grant", "code_verifier does not match the code_challenge")
	default:
		a.issue(w, &grant{client: c.ID, scopes: g.scopes, resource: g.resource, jkt: jkt}, false)
	}
}

func (a *AuthServer) refreshGrant(w http.ResponseWriter, c *AuthClient, f url.Values, jkt string) {
	a.mu.Lock()
	g := a.refresh[f.Get("refresh_token")]
	a.mu.Unlock()
	switch {
	case a.opts.InvalidGrant:
		a.refuse(w, http.StatusBadRequest, "invalid_grant", "refresh token revoked (scripted)")
	case g == nil || g.client != c.ID:
		a.refuse(w, http.StatusBadRequest, "invalid_grant", "unknown refresh token")
	default:
		a.issue(w, &grant{client: c.ID, scopes: g.scopes, resource: g.resource, jkt: jkt}, true)
	}
}

func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// issue writes a new access token (and a refresh token) for g.
func (a *AuthServer) issue(w http.ResponseWriter, g *grant, refreshed bool) {
	a.mu.Lock()
	access, refresh := a.next("access"), a.next("refresh")
	g.expires = time.Now().Add(a.opts.TokenTTL)
	a.tokens[access] = g
	a.refresh[refresh] = g
	a.counts.TokensIssued++
	if refreshed {
		a.counts.Refreshes++
	}
	a.mu.Unlock()
	typ := "Bearer"
	if g.jkt != "" {
		typ = "DPoP"
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token":  access,
		"token_type":    typ,
		"expires_in":    int(a.opts.TokenTTL / time.Second),
		"refresh_token": refresh,
		"scope":         strings.Join(g.scopes, " "),
	})
}

// refuse writes an OAuth error response and counts it.
func (a *AuthServer) refuse(w http.ResponseWriter, status int, code, description string) {
	a.count(func(c *AuthCounts) { c.Refusals++ })
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}

func (a *AuthServer) count(f func(*AuthCounts)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f(&a.counts)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
