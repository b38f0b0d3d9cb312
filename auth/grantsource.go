package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// endpointConfig is what every source without a user knows of the
// authorization server (the fields of the same names in
// ClientCredentialsConfig, WorkloadIdentityConfig and EnterpriseConfig).
type endpointConfig struct {
	Scopes                     []string
	TokenURL, Issuer, Resource string
	HTTPClient                 *http.Client
}

// check refuses URLs that name no origin (see checkAbsolute).
func (c *endpointConfig) check(kind error) error {
	for _, u := range []string{c.TokenURL, c.Issuer} {
		if err := checkAbsolute(kind, u); err != nil {
			return err
		}
	}
	return nil
}

// checkAbsolute refuses a configured endpoint or issuer that names no
// origin: not absolute, not http or https, with user information, or a
// bad port. "" is not set, and passes.
func checkAbsolute(kind error, u string) error {
	if u == "" {
		return nil
	}
	if _, err := ParseOrigin(u); err != nil {
		return fmt.Errorf("%w: %q is not an absolute http or https URL: %w", kind, u, err)
	}
	return nil
}

// A grant obtains access tokens at a token endpoint: the client
// credentials grant, the JWT-bearer grant with a workload's token, token
// exchange then the JWT-bearer grant.
type grant interface {
	// present reads what the next token request presents (a workload's
	// token, an ID token), or "" for a grant that reads nothing.
	present(ctx context.Context) (string, error)
	// request obtains a token from e for scopes, presenting p. ctx
	// carries the HTTP client (oauth2.HTTPClient).
	request(ctx context.Context, e *tokenEndpoint, scopes []string, p string) (*oauth2.Token, error)
}

// tokenEndpoint is where tokens come from, and what the grant needs of it.
type tokenEndpoint struct {
	url, issuer, resource string
	methods               []string // token_endpoint_auth_methods_supported
}

// grantSource is the engine of the sources without a user. It discovers
// the token endpoint from the server's first 401, unless TokenURL is set.
// It pins the issuer. It obtains tokens with its grant, and keeps the
// current one until it expires. It binds the token to the DPoP key of its
// HTTP client. It remembers a final refusal (GrantError), so as not to
// present the same thing again.
type grantSource struct {
	kind   error // wrapped by every error: kindClientCredentials, …
	cfg    endpointConfig
	client *http.Client
	key    *dpopKey // the DPoP key of client, or nil
	grant  grant
	// fetching holds one token request at a time: a caller that finds no
	// valid token takes it, or waits for it as long as its context
	// allows, so concurrent requests share one token request.
	fetching chan struct{}

	mu       sync.Mutex // guards the fields below
	endpoint *tokenEndpoint
	scopes   []string
	usable   bool          // a token may be requested: TokenURL is set, or Authorize succeeded
	tok      *oauth2.Token // the current token, nil until one is obtained
	refused  *refusal      // the last final refusal, nil after a token
}

// A refusal is a final refusal and what it refused: the hash of what was
// presented (invalid_grant refuses that; invalid_scope and
// unauthorized_client refuse the client and its scopes, whatever it
// presents), and the scopes.
type refusal struct {
	presented [sha256.Size]byte
	any       bool // refused whatever is presented
	scopes    []string
	err       error
}

// holds reports whether the refusal stands for presenting p for scopes.
func (r *refusal) holds(p [sha256.Size]byte, scopes []string) bool {
	return r != nil && (r.any || r.presented == p) && slices.Equal(r.scopes, scopes)
}

func newGrantSource(kind error, cfg endpointConfig, g grant) *grantSource {
	s := &grantSource{kind: kind, cfg: cfg, client: guardClient(cfg.HTTPClient), grant: g, scopes: slices.Clone(cfg.Scopes), fetching: make(chan struct{}, 1)}
	s.key = dpopKeyOf(s.client)
	if cfg.TokenURL != "" {
		s.endpoint = &tokenEndpoint{url: cfg.TokenURL, issuer: cfg.Issuer, resource: cfg.Resource}
		s.usable = true
	}
	return s
}

// credential returns the current access token, obtaining or renewing it
// as needed, or a zero Token before discovery.
func (s *grantSource) credential(ctx context.Context) (Token, error) {
	s.mu.Lock()
	usable := s.usable
	s.mu.Unlock()
	if !usable {
		return Token{}, nil
	}
	tok, err := s.token(ctx)
	if err != nil {
		return Token{}, fmt.Errorf("%w: token request: %w", s.kind, err)
	}
	t, err := issued(tok, s.key)
	if err != nil {
		return Token{}, fmt.Errorf("%w: %w", s.kind, err)
	}
	return t, nil
}

// token returns the current token if it is still valid, else requests a
// new one for the current endpoint and scopes, within ctx.
func (s *grantSource) token(ctx context.Context) (*oauth2.Token, error) {
	select {
	case s.fetching <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.fetching }()
	s.mu.Lock()
	if s.tok.Valid() {
		tok := s.tok
		s.mu.Unlock()
		return tok, nil
	}
	e, scopes, refused := s.endpoint, slices.Clone(s.scopes), s.refused
	s.mu.Unlock()
	ctx = untraced{ctx}
	p, err := s.grant.present(ctx)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(p))
	if refused.holds(sum, scopes) {
		return nil, refused.err // refused for good: not sent again
	}
	tok, err := s.grant.request(context.WithValue(ctx, oauth2.HTTPClient, s.client), e, scopes, p)
	if err != nil {
		var ge *GrantError
		if errors.As(err, &ge) && ge.final() {
			s.mu.Lock()
			s.refused = &refusal{presented: sum, any: ge.Code != "invalid_grant", scopes: scopes, err: err}
			s.mu.Unlock()
		}
		return nil, err
	}
	if tok == nil || tok.AccessToken == "" {
		return nil, errors.New("the token endpoint issued no access token")
	}
	if _, err := issued(tok, s.key); err != nil {
		return nil, err // not kept: it would be refused at every use
	}
	s.mu.Lock()
	s.tok, s.refused = tok, nil
	s.mu.Unlock()
	return tok, nil
}

// authorize is called when the server refused a request with 401 or 403.
// It discovers the token endpoint (unless TokenURL is set), adds the
// challenge's scopes and obtains a new token. It closes resp.Body.
func (s *grantSource) authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	defer io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if err := nonceRefused(req, resp); err != nil {
		return err
	}
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	s.mu.Lock()
	endpoint := s.endpoint
	s.mu.Unlock()
	var prmScopes []string
	if endpoint == nil {
		var err error
		endpoint, prmScopes, err = s.discover(ctx, challenges, req.URL)
		if err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.endpoint = endpoint
	add := challengeScopes(challenges)
	if len(s.scopes) == 0 && len(add) == 0 {
		add = prmScopes
	}
	scopes := slices.Clone(s.scopes)
	for _, sc := range add {
		if !slices.Contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	if len(scopes) > MaxScopes {
		s.mu.Unlock()
		return fmt.Errorf("%w: %w", s.kind, refused(RuleScopes, "the server asks for %d scopes, more than %d", len(scopes), MaxScopes))
	}
	s.scopes = scopes
	// The refused token is dropped; until a new one comes, requests go
	// without a credential (or, with TokenURL, ask for one themselves).
	s.tok = nil
	s.usable = s.cfg.TokenURL != ""
	s.mu.Unlock()
	if _, err := s.token(ctx); err != nil {
		return fmt.Errorf("%w: token request: %w", s.kind, err)
	}
	s.mu.Lock()
	s.usable = true
	s.mu.Unlock()
	return nil
}

// discover finds the token endpoint from the server's protected resource
// metadata and its authorization server's metadata.
func (s *grantSource) discover(ctx context.Context, challenges []oauthex.Challenge, server *url.URL) (*tokenEndpoint, []string, error) {
	var prm *oauthex.ProtectedResourceMetadata
	for _, u := range prmURLs(challenges, server) {
		m, err := oauthex.GetProtectedResourceMetadata(ctx, u.url, u.resource, s.client)
		if err == nil && m != nil {
			prm = m
			break
		}
	}
	if prm == nil || len(prm.AuthorizationServers) == 0 {
		return nil, nil, fmt.Errorf("%w: no protected resource metadata naming an authorization server for %s", s.kind, server.Redacted())
	}
	issuer := prm.AuthorizationServers[0]
	if s.cfg.Issuer != "" && !sameIssuer(s.cfg.Issuer, issuer) {
		return nil, nil, fmt.Errorf("%w: %w", s.kind, refused(RuleIssuer, "the server names %s, want %s", issuer, s.cfg.Issuer))
	}
	asm, err := authServerMetadata(ctx, issuer, s.client)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: authorization server metadata: %w", s.kind, err)
	}
	if asm == nil || asm.TokenEndpoint == "" {
		return nil, nil, fmt.Errorf("%w: authorization server %s publishes no token endpoint", s.kind, issuer)
	}
	if s.cfg.Issuer != "" && !sameIssuer(s.cfg.Issuer, asm.Issuer) {
		return nil, nil, fmt.Errorf("%w: %w", s.kind, refused(RuleIssuer, "metadata issuer %s, want %s", asm.Issuer, s.cfg.Issuer))
	}
	if err := checkTokenEndpoint(asm.TokenEndpoint); err != nil {
		return nil, nil, fmt.Errorf("%w: authorization server %s: %w", s.kind, issuer, err)
	}
	resource := s.cfg.Resource
	if resource == "" {
		resource = prm.Resource
	}
	return &tokenEndpoint{url: asm.TokenEndpoint, issuer: asm.Issuer, resource: resource, methods: asm.TokenEndpointAuthMethodsSupported}, prm.ScopesSupported, nil
}

// MaxScopes bounds the scopes a source without a user asks for: its
// Scopes, and those that the server's challenges (a 403
// insufficient_scope step-up) or its metadata's scopes_supported add,
// which accumulate. A challenge that
// would bring more is refused with a [*PolicyError] (RuleScopes), and no token
// request is made for it.
const MaxScopes = 64

// untraced is a request's context without its httptrace.ClientTrace: the
// token requests a source makes within it are not the request, and a
// transport that traces its requests (to know whether one was written)
// must not see them.
type untraced struct{ context.Context }

func (c untraced) Value(key any) any {
	v := c.Context.Value(key)
	if _, ok := v.(*httptrace.ClientTrace); ok {
		return nil
	}
	return v
}
