package auth

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// WorkloadIdentityConfig configures [NewWorkloadIdentity]. A workload (a
// CI job, a Kubernetes pod, a SPIFFE workload) authenticates as itself
// with the JWT its platform issued it. The JWT is presented as an RFC 7523
// JWT-bearer grant (the MCP extension io.modelcontextprotocol/auth/wif,
// SEP-1933). There is no client secret, no key, no registration.
type WorkloadIdentityConfig struct {
	// TokenFile is the path of a file holding the workload's JWT (a
	// Kubernetes projected service account token, a JWT-SVID, a CI OIDC
	// token written to disk). It is read afresh for every token request,
	// so a token the platform rotates is picked up at the next one. At
	// most 64 KiB; surrounding white space is ignored. Exactly one of
	// TokenFile and Token must be set.
	TokenFile string

	// Token returns the workload's JWT, for every token request: a CI
	// OIDC token fetcher (GitHub Actions' ACTIONS_ID_TOKEN_REQUEST_URL,
	// GitLab's id_tokens, …), with the audience the authorization server
	// expects. It is called within the request's context.
	Token func(ctx context.Context) (Token, error)

	// ClientID, if set, is sent as client_id, for an authorization server
	// that knows workloads as clients; no client secret is ever sent.
	// Empty means none: the workload's JWT identifies it.
	ClientID string

	// Scopes, TokenURL, Issuer, Resource: as in [ClientCredentialsConfig].
	// Nil Scopes means the challenge's or the metadata's. Without
	// TokenURL, the token endpoint is discovered from the server's first
	// 401. Issuer pins the authorization server the workload's JWT may be
	// sent to.
	Scopes   []string
	TokenURL string
	Issuer   string
	Resource string

	// HTTPClient makes the discovery and token requests. Nil means a
	// client with a 30-second timeout. A client from [DPoPKey.Client]
	// makes the access tokens DPoP-bound. As in [ClientCredentialsConfig],
	// its CheckRedirect is [CheckRedirect].
	HTTPClient *http.Client
}

// WorkloadIdentity is a [Source] and [Authorizer] that obtains access
// tokens with the JWT-bearer grant, the workload's own token as the
// assertion, renewing them as they expire with the token read again. It
// never switches to another grant: a refusal is a [*GrantError], and an
// invalid_grant, invalid_scope or unauthorized_client refusal is not sent
// again for the same workload token.
type WorkloadIdentity struct{ s *grantSource }

var (
	_ Source     = (*WorkloadIdentity)(nil)
	_ Authorizer = (*WorkloadIdentity)(nil)
)

// NewWorkloadIdentity validates cfg and returns the source. Nothing is
// read or sent until a transport asks for a credential.
func NewWorkloadIdentity(cfg *WorkloadIdentityConfig) (*WorkloadIdentity, error) {
	w, err := newWorkloadIdentity(cfg)
	return w, invalidConfig(err)
}

func newWorkloadIdentity(cfg *WorkloadIdentityConfig) (*WorkloadIdentity, error) {
	if cfg == nil {
		return nil, fmt.Errorf("%w: nil config", kindWorkloadIdentity)
	}
	c := *cfg
	a, err := newAssertion(kindWorkloadIdentity, "TokenFile", "Token", c.TokenFile, c.Token)
	if err != nil {
		return nil, err
	}
	ec := endpointConfig{Scopes: c.Scopes, TokenURL: c.TokenURL, Issuer: c.Issuer, Resource: c.Resource, HTTPClient: c.HTTPClient}
	if err := ec.check(kindWorkloadIdentity); err != nil {
		return nil, err
	}
	return &WorkloadIdentity{s: newGrantSource(kindWorkloadIdentity, ec, &workloadGrant{clientID: c.ClientID, token: a})}, nil
}

// Credential returns the current access token, obtaining or renewing it
// as needed (see [ClientCredentials.Credential]).
func (w *WorkloadIdentity) Credential(ctx context.Context, _ *http.Request) (Token, error) {
	return w.s.credential(ctx)
}

// Authorize is called when the server refused a request with 401 or 403:
// it discovers the token endpoint and obtains a token (see
// [ClientCredentials.Authorize]). It closes resp.Body.
func (w *WorkloadIdentity) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	return w.s.authorize(ctx, req, resp)
}

type workloadGrant struct {
	clientID string
	token    *assertion
}

func (g *workloadGrant) present(ctx context.Context) (string, error) { return g.token.read(ctx) }

func (g *workloadGrant) request(ctx context.Context, e *tokenEndpoint, scopes []string, token string) (*oauth2.Token, error) {
	return jwtBearer(ctx, e, scopes, token, g.clientID, Secret{})
}

// jwtBearer requests a token from e with the JWT-bearer grant (RFC 7523
// §2.1), presenting jwt; with secret, the client authenticates with
// client_secret_basic (client_secret_post if the server lists only that),
// else it sends its client_id, if any, alone.
func jwtBearer(ctx context.Context, e *tokenEndpoint, scopes []string, jwt, clientID string, secret Secret) (*oauth2.Token, error) {
	params := url.Values{"grant_type": {grantJWTBearer}, "assertion": {jwt}}
	if e.resource != "" {
		params.Set("resource", e.resource)
	}
	conf := &clientcredentials.Config{ClientID: clientID, TokenURL: e.url, Scopes: scopes, EndpointParams: params, AuthStyle: oauth2.AuthStyleInParams}
	if !secret.IsZero() {
		conf.ClientSecret = secret.Reveal()
		conf.AuthStyle = secretStyle(e.methods)
	}
	tok, err := conf.Token(ctx)
	return tok, grantError(grantJWTBearer, e.url, err)
}

// maxAssertionBytes bounds a token read from a file.
const maxAssertionBytes = 64 << 10

// An assertion is a JWT read from a file or a function, each time.
type assertion struct {
	kind error
	file string
	fn   func(ctx context.Context) (Token, error)
}

// newAssertion checks that exactly one of file (the option fileName) and
// fn (fnName) is set.
func newAssertion(kind error, fileName, fnName, file string, fn func(context.Context) (Token, error)) (*assertion, error) {
	if (file == "") == (fn == nil) {
		return nil, fmt.Errorf("%w: set exactly one of %s and %s", kind, fileName, fnName)
	}
	return &assertion{kind: kind, file: file, fn: fn}, nil
}

// read returns the assertion as it is now.
func (a *assertion) read(ctx context.Context) (string, error) {
	if a.fn != nil {
		tok, err := a.fn(ctx)
		if err != nil {
			return "", fmt.Errorf("%w: token: %w", a.kind, err)
		}
		if tok.IsZero() {
			return "", fmt.Errorf("%w: the token function returned an empty token", a.kind)
		}
		return tok.Reveal(), nil
	}
	f, err := os.Open(a.file)
	if err != nil {
		return "", fmt.Errorf("%w: token file: %w", a.kind, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxAssertionBytes+1))
	if err != nil {
		return "", fmt.Errorf("%w: token file %s: %w", a.kind, a.file, err)
	}
	if len(data) > maxAssertionBytes {
		return "", fmt.Errorf("%w: token file %s is larger than %d bytes", a.kind, a.file, maxAssertionBytes)
	}
	s := strings.TrimSpace(string(data))
	if s == "" {
		return "", fmt.Errorf("%w: token file %s is empty", a.kind, a.file)
	}
	return s, nil
}
