package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/client"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// authScenarios all play oauthFlow; what differs is the server's metadata,
// challenges and registration methods, which the go-sdk's authorization code
// handler (behind auth.OAuth) works out.
var authScenarios = []string{
	"auth/2025-03-26-oauth-endpoint-fallback",
	"auth/2025-03-26-oauth-metadata-backcompat",
	"auth/authorization-server-migration",
	"auth/basic-cimd",
	"auth/iss-normalized",
	"auth/iss-not-advertised",
	"auth/iss-supported",
	"auth/iss-supported-missing",
	"auth/iss-unexpected",
	"auth/iss-wrong-issuer",
	"auth/metadata-default",
	"auth/metadata-issuer-mismatch",
	"auth/metadata-var1",
	"auth/metadata-var2",
	"auth/metadata-var3",
	"auth/offline-access-not-supported",
	"auth/offline-access-scope",
	"auth/pre-registration",
	"auth/resource-mismatch",
	"auth/scope-from-scopes-supported",
	"auth/scope-from-www-authenticate",
	"auth/scope-omitted-when-undefined",
	"auth/scope-retry-limit",
	"auth/scope-step-up",
	"auth/token-endpoint-auth-basic",
	"auth/token-endpoint-auth-none",
	"auth/token-endpoint-auth-post",
}

// authProfiles are the auth scenarios of an older specification revision,
// played at that revision. The rest use the default profile.
var authProfiles = map[string]client.Profile{
	"auth/2025-03-26-oauth-endpoint-fallback":   client.Profile20250326,
	"auth/2025-03-26-oauth-metadata-backcompat": client.Profile20250326,
}

// The client's registration, as the suite's authorization servers expect
// it: a redirect URL they redirect to at once, and the URL of a client ID
// metadata document they accept without fetching it.
const (
	redirectURL       = "http://localhost:3000/callback"
	clientMetadataURL = "https://conformance-test.local/client-metadata.json"
)

// oauthFlow connects with OAuth credentials (authorization code flow, with
// whichever registration the server supports: client ID metadata document,
// the pre-registered client the suite names in its context, or dynamic
// registration), lists tools and calls test-tool.
func oauthFlow(ctx context.Context, r *runner) error { return authorizationCode(ctx, r, nil) }

// authorizationCode plays oauthFlow with hc as the handler's HTTP client
// (nil: the go-sdk's default).
func authorizationCode(ctx context.Context, r *runner, hc *http.Client) error {
	cfg := &sdkauth.AuthorizationCodeHandlerConfig{
		Client:                         hc,
		RedirectURL:                    redirectURL,
		AuthorizationCodeFetcher:       fetchAuthorizationCode,
		ClientIDMetadataDocumentConfig: &sdkauth.ClientIDMetadataDocumentConfig{URL: clientMetadataURL},
		DynamicClientRegistrationConfig: &sdkauth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{RedirectURIs: []string{redirectURL}},
		},
	}
	id, _ := r.context["client_id"].(string)
	secret, _ := r.context["client_secret"].(string)
	if id != "" && secret != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{
			ClientID:         id,
			ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: secret},
		}
	}
	src, err := auth.NewAuthorizationCode(cfg)
	if err != nil {
		return err
	}
	r.creds = src
	return callOnce(ctx, r, nil, "test-tool", map[string]any{})
}

// clientCredentials plays the suite's client credentials extension
// scenarios (io.modelcontextprotocol/oauth-client-credentials):
// auth/client-credentials-basic gives client_id and client_secret in its
// context, auth/client-credentials-jwt client_id and private_key_pem (and
// signing_algorithm, which the key's type decides). The token endpoint is
// discovered from the server's 401; there is no browser and no user.
func clientCredentials(ctx context.Context, r *runner) error {
	cfg := &auth.ClientCredentialsConfig{}
	cfg.ClientID, _ = r.context["client_id"].(string)
	if secret, _ := r.context["client_secret"].(string); secret != "" {
		cfg.ClientSecret = auth.NewSecret(secret)
	}
	if pemKey, _ := r.context["private_key_pem"].(string); pemKey != "" {
		key, err := auth.ParsePrivateKey([]byte(pemKey))
		if err != nil {
			return err
		}
		cfg.PrivateKey = key
	}
	src, err := auth.NewClientCredentials(cfg)
	if err != nil {
		return err
	}
	r.creds = src
	return callOnce(ctx, r, nil, "test-tool", map[string]any{})
}

// authorizationTimeout bounds the request to the authorization endpoint.
const authorizationTimeout = 10 * time.Second

// fetchAuthorizationCode plays the user at the authorization endpoint: the
// suite's authorization server redirects at once to the redirect URL with
// the code, the state and (RFC 9207) the issuer, which are read from the
// redirect without following it.
func fetchAuthorizationCode(ctx context.Context, args *sdkauth.AuthorizationArgs) (*sdkauth.AuthorizationResult, error) {
	ctx, cancel := context.WithTimeout(ctx, authorizationTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, args.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("authorization request: %w", err)
	}
	hc := &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("authorization request: %w", err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if loc == "" {
		return nil, fmt.Errorf("authorization response: status %d, no redirect", resp.StatusCode)
	}
	u, err := url.Parse(loc)
	if err != nil {
		return nil, fmt.Errorf("authorization redirect: %w", err)
	}
	q := u.Query()
	if e := q.Get("error"); e != "" {
		return nil, fmt.Errorf("authorization redirect: %w", errors.New(e))
	}
	return &sdkauth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
}
