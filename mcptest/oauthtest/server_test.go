package oauthtest_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/mcptest/oauthtest"
	"github.com/looprig/mcp/transport/streamablehttp"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// clientCredentials is this module's client credentials source for the
// fake authorization server's default client, discovering everything.
func clientCredentials(t testing.TB, cfg *auth.ClientCredentialsConfig) *auth.ClientCredentials {
	t.Helper()
	c := auth.ClientCredentialsConfig{ClientID: oauthtest.DefaultClientID, ClientSecret: auth.NewSecret(oauthtest.DefaultClientSecret)}
	if cfg != nil {
		c = *cfg
	}
	cc, err := auth.NewClientCredentials(&c)
	if err != nil {
		t.Fatal(err)
	}
	return cc
}

// protectedFake is the docs fake behind as, reached with creds.
func protectedFake(t testing.TB, as *oauthtest.AuthServer, p *oauthtest.Protection, creds auth.Source) *mcptest.Fake {
	t.Helper()
	if p == nil {
		p = &oauthtest.Protection{}
	}
	p.Server = as
	return mcptest.HTTP(t, &mcptest.HTTPOptions{Auth: p, Transport: &streamablehttp.Options{Credentials: creds}})
}

// A client with client credentials discovers the authorization server
// from the fake's 401, gets one token, and calls: one token issued, one
// refusal at the resource (the first, tokenless request).
func TestAuthServerClientCredentials(t *testing.T) {
	mcptest.LeakCheck(t)
	as := oauthtest.NewAuthServer(t, nil)
	fake := protectedFake(t, as, &oauthtest.Protection{Scopes: []string{"mcp"}}, clientCredentials(t, nil))
	c := fake.Client(nil)
	for range 3 {
		if _, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "x"}); err != nil {
			t.Fatal(err)
		}
	}
	want := oauthtest.AuthCounts{TokensIssued: 1, ResourceRefusals: 1}
	if diff := cmp.Diff(want, as.Counts()); diff != "" {
		t.Errorf("AuthCounts mismatch (-want +got):\n%s", diff)
	}
	if n := fake.Counts().Executions["lookup"]; n != 3 {
		t.Errorf("Executions = %d, want 3", n)
	}
}

// goSDKClient connects the go-sdk's own client to url, authorizing with the
// go-sdk's authorization code handler: dynamic registration, PKCE and the
// fake's non-interactive redirect.
func goSDKClient(t testing.TB, url string) (*mcp.ClientSession, error) {
	t.Helper()
	h, err := sdkauth.NewAuthorizationCodeHandler(&sdkauth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &sdkauth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{"http://127.0.0.1/callback"}, ClientName: "go-sdk test", GrantTypes: []string{"authorization_code", "refresh_token"},
		}},
		RedirectURL:              "http://127.0.0.1/callback",
		AuthorizationCodeFetcher: oauthtest.FetchAuthorizationCode,
	})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "go-sdk", Version: "v0"}, nil).
		Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, OAuthHandler: h}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// The go-sdk's own client registers, authorizes with PKCE through the
// non-interactive redirect, and steps up its scope when a tool needs more:
// two authorizations, two tokens (and two registrations: the go-sdk's
// handler registers again when it steps up).
func TestAuthServerGoSDKAuthorizationCode(t *testing.T) {
	mcptest.LeakCheck(t)
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{Scopes: []string{"mcp", "docs:write"}})
	fake := protectedFake(t, as, &oauthtest.Protection{Scopes: []string{"mcp"}, ToolScopes: map[string][]string{"lookup": {"docs:write"}}}, nil)
	cs, err := goSDKClient(t, fake.HTTP().URL)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"query": "step up"}})
	if err != nil || res.IsError {
		t.Fatalf("lookup after step-up = %v, %v", res, err)
	}
	got := as.Counts()
	want := oauthtest.AuthCounts{Registrations: 2, Authorizations: 2, TokensIssued: 2, ResourceRefusals: 2}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("AuthCounts mismatch (-want +got):\n%s", diff)
	}
	if n := fake.Counts().Executions["lookup"]; n != 1 {
		t.Errorf("Executions = %d, want 1: the refused call never reached the tool", n)
	}
}

// With tokens that a client sees as expired at once, each request
// refreshes: refreshes are counted, and a revoked refresh token
// (invalid_grant) sends the client back through the whole flow.
func TestAuthServerRefresh(t *testing.T) {
	mcptest.LeakCheck(t)
	t.Run("refresh", func(t *testing.T) {
		as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{TokenTTL: time.Second})
		fake := protectedFake(t, as, nil, nil)
		cs, err := goSDKClient(t, fake.HTTP().URL)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"query": "x"}}); err != nil {
			t.Fatal(err)
		}
		got := as.Counts()
		if got.Refreshes == 0 || got.TokensIssued != got.Refreshes+1 || got.Authorizations != 1 {
			t.Errorf("AuthCounts = %+v, want one authorization and every later token a refresh", got)
		}
	})
	t.Run("revoked", func(t *testing.T) {
		// A revoked refresh token is refused (invalid_grant); the client
		// authorizes again and goes on refreshing with the new one.
		as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{TokenTTL: time.Second})
		fake := protectedFake(t, as, nil, nil)
		cs, err := goSDKClient(t, fake.HTTP().URL)
		if err != nil {
			t.Fatal(err)
		}
		before := as.Counts()
		as.RevokeRefreshTokens()
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"query": "x"}}); err != nil {
			t.Fatalf("call after the revocation: %v", err)
		}
		got := as.Counts()
		if got.Refusals != before.Refusals+1 || got.Authorizations != before.Authorizations+1 || got.Refreshes <= before.Refreshes {
			t.Errorf("AuthCounts %+v -> %+v: want one invalid_grant, one new authorization, and refreshes after it", before, got)
		}
	})
	t.Run("invalid_grant for good", func(t *testing.T) {
		// Every refresh refused: the client authorizes once more, then
		// fails with the grant's error rather than authorizing forever.
		as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{TokenTTL: time.Second, InvalidGrant: true})
		fake := protectedFake(t, as, nil, nil)
		_, err := goSDKClient(t, fake.HTTP().URL)
		got := as.Counts()
		if err == nil || !strings.Contains(err.Error(), "invalid_grant") || got.Refreshes != 0 || got.Authorizations != 2 {
			t.Errorf("connect = %v, AuthCounts %+v; want invalid_grant after two authorizations and no refresh", err, got)
		}
	})
}

// A token the server expires is refused with 401; the client gets a new
// one (client credentials: a second token) and goes on.
func TestAuthServerExpiry(t *testing.T) {
	mcptest.LeakCheck(t)
	as := oauthtest.NewAuthServer(t, nil)
	fake := protectedFake(t, as, nil, clientCredentials(t, nil))
	c := fake.Client(nil)
	if _, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "x"}); err != nil {
		t.Fatal(err)
	}
	as.ExpireTokens()
	// The call is refused with 401 and, a tools/call, not re-sent; the
	// source has a new token for the next one.
	_, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "y"})
	if !errors.Is(err, streamablehttp.ErrReauthorized) {
		t.Fatalf("call with an expired token = %v, want ErrReauthorized", err)
	}
	if _, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "z"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(oauthtest.AuthCounts{TokensIssued: 2, ResourceRefusals: 2}, as.Counts()); diff != "" {
		t.Errorf("AuthCounts mismatch (-want +got):\n%s", diff)
	}
	if n := fake.Counts().Executions["lookup"]; n != 2 {
		t.Errorf("Executions = %d, want 2", n)
	}
}

// The faults: each is a failure the client must survive cleanly.
func TestAuthServerFaults(t *testing.T) {
	mcptest.LeakCheck(t)
	connect := func(t *testing.T, opts *oauthtest.AuthServerOptions, cfg *auth.ClientCredentialsConfig) (*oauthtest.AuthServer, error) {
		as := oauthtest.NewAuthServer(t, opts)
		if cfg != nil {
			cfg.ClientID, cfg.ClientSecret = oauthtest.DefaultClientID, auth.NewSecret(oauthtest.DefaultClientSecret)
		}
		fake := protectedFake(t, as, nil, clientCredentials(t, cfg))
		def := fake.Definition()
		def.Limits.ConnectTimeout = 2 * time.Second
		c, err := client.Connect(t.Context(), def, nil)
		if err == nil {
			c.Close()
		}
		return as, err
	}
	t.Run("wrong issuer", func(t *testing.T) {
		as, err := connect(t, &oauthtest.AuthServerOptions{WrongIssuer: true}, &auth.ClientCredentialsConfig{})
		if err == nil {
			t.Fatal("connected through an authorization server whose metadata names another issuer")
		}
		if n := as.Counts().TokensIssued; n != 0 {
			t.Errorf("TokensIssued = %d, want 0: the secret must not reach a mixed-up issuer", n)
		}
	})
	t.Run("slow token endpoint", func(t *testing.T) {
		// The token request is bounded by the request's context, so by
		// Connect's 2 s ConnectTimeout, not by the source's HTTP client
		// (30 s by default): Connect fails by its deadline with no token
		// issued. (auth's TestClientCredentialsTokenRequestFollowsContext
		// is the proof that fails when the request ignores the context.)
		as, err := connect(t, &oauthtest.AuthServerOptions{TokenDelay: time.Hour}, &auth.ClientCredentialsConfig{})
		if err == nil {
			t.Fatal("connected though the token endpoint never answers")
		}
		if n := as.Counts().TokensIssued; n != 0 {
			t.Errorf("TokensIssued = %d, want 0", n)
		}
	})
	t.Run("slow token endpoint, short HTTP client", func(t *testing.T) {
		// The source's own HTTP client bounds the token request too.
		hc := &http.Client{Timeout: 200 * time.Millisecond}
		as, err := connect(t, &oauthtest.AuthServerOptions{TokenDelay: time.Hour}, &auth.ClientCredentialsConfig{HTTPClient: hc})
		if err == nil {
			t.Fatal("connected though the token endpoint never answers")
		}
		if n := as.Counts().TokensIssued; n != 0 {
			t.Errorf("TokensIssued = %d, want 0", n)
		}
	})
	t.Run("401 loop", func(t *testing.T) {
		as, err := connect(t, &oauthtest.AuthServerOptions{Loop401: true}, &auth.ClientCredentialsConfig{})
		if err == nil {
			t.Fatal("connected though every request is refused")
		}
		// Each request that executes nothing is re-sent once after a new
		// token (server/discover, then initialize): two tokens, four
		// refusals, and the client stops.
		if diff := cmp.Diff(oauthtest.AuthCounts{TokensIssued: 2, ResourceRefusals: 4}, as.Counts()); diff != "" {
			t.Errorf("AuthCounts mismatch (-want +got):\n%s", diff)
		}
	})
}
