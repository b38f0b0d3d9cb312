package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"net/http"
	"net/url"
	"testing"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/transport/streamablehttp"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// A credKind is one kind of credential a request carries, and how a case
// attacks it: the path of the authorization server (or, for the MCP
// request, of the MCP server) that answers with the attack, and how the
// client is driven.
type credKind struct {
	name string
	path string // the attacked path
	mcp  bool   // path is the MCP server's
	// source returns the source under test, its requests made through hc.
	source func(t *testing.T, r *asRig, hc *http.Client) (auth.Source, error)
}

// permissive follows every redirect: the CheckRedirect of a caller who
// did not think about it.
func permissive(*http.Request, []*http.Request) error { return nil }

// A clientKind is whose http.Client a source's requests go through.
type clientKind struct {
	name string
	make func(t *testing.T) *http.Client
}

var clientKinds = []clientKind{
	{"default", func(*testing.T) *http.Client { return nil }},
	{"caller's client", func(t *testing.T) *http.Client {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		t.Cleanup(tr.CloseIdleConnections)
		return &http.Client{Transport: tr, CheckRedirect: permissive}
	}},
	{"DPoP client", func(t *testing.T) *http.Client {
		c := newKey(t).Client(&http.Client{CheckRedirect: permissive})
		c.CheckRedirect = permissive // given after: the key's transport holds
		return c
	}},
}

var credKinds = []credKind{
	{name: "client_secret_basic", path: "/token", source: func(_ *testing.T, r *asRig, hc *http.Client) (auth.Source, error) {
		return auth.NewClientCredentials(&auth.ClientCredentialsConfig{ClientID: ccClientID, ClientSecret: auth.NewSecret(ccSecret),
			TokenURL: r.as.srv.URL + "/token", HTTPClient: hc})
	}},
	{name: "client_secret_basic, Issuer pinned", path: "/token", source: func(_ *testing.T, r *asRig, hc *http.Client) (auth.Source, error) {
		return auth.NewClientCredentials(&auth.ClientCredentialsConfig{ClientID: ccClientID, ClientSecret: auth.NewSecret(ccSecret),
			Issuer: r.as.srv.URL, HTTPClient: hc})
	}},
	{name: "client_secret_post", path: "/token", source: func(_ *testing.T, r *asRig, hc *http.Client) (auth.Source, error) {
		r.methods = []string{"client_secret_post"}
		return auth.NewClientCredentials(&auth.ClientCredentialsConfig{ClientID: ccClientID, ClientSecret: auth.NewSecret(ccSecret), HTTPClient: hc})
	}},
	{name: "private_key_jwt", path: "/token", source: func(t *testing.T, r *asRig, hc *http.Client) (auth.Source, error) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return auth.NewClientCredentials(&auth.ClientCredentialsConfig{ClientID: ccClientID, PrivateKey: key,
			TokenURL: r.as.srv.URL + "/token", HTTPClient: hc})
	}},
	{name: "workload identity JWT", path: "/token", source: func(_ *testing.T, r *asRig, hc *http.Client) (auth.Source, error) {
		return auth.NewWorkloadIdentity(&auth.WorkloadIdentityConfig{
			Token:    func(context.Context) (auth.Token, error) { return auth.NewToken(wifJWT), nil },
			TokenURL: r.as.srv.URL + "/token", HTTPClient: hc})
	}},
	{name: "enterprise exchange", path: "/idp-token", source: func(_ *testing.T, r *asRig, hc *http.Client) (auth.Source, error) {
		return auth.NewEnterprise(&auth.EnterpriseConfig{
			IDToken:     func(context.Context) (auth.Token, error) { return auth.NewToken(idToken), nil },
			IdPTokenURL: r.as.srv.URL + "/idp-token", IdPClientID: "idp-client", IdPClientSecret: auth.NewSecret(idpSecret),
			ClientID: ccClientID, TokenURL: r.as.srv.URL + "/issue", Issuer: r.as.srv.URL, Resource: r.mcp.srv.URL + "/mcp", HTTPClient: hc})
	}},
	{name: "authorization code", path: "/token", source: func(_ *testing.T, r *asRig, hc *http.Client) (auth.Source, error) {
		return auth.NewAuthorizationCode(&sdkauth.AuthorizationCodeHandlerConfig{
			PreregisteredClient:      &oauthex.ClientCredentials{ClientID: ccClientID, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: ccSecret}},
			RedirectURL:              "http://localhost:1/callback",
			AuthorizationCodeFetcher: fetchCode,
			Client:                   hc,
		})
	}},
	{name: "dynamic registration", path: "/register", source: func(_ *testing.T, r *asRig, hc *http.Client) (auth.Source, error) {
		return auth.NewAuthorizationCode(&sdkauth.AuthorizationCodeHandlerConfig{
			DynamicClientRegistrationConfig: &sdkauth.DynamicClientRegistrationConfig{
				Metadata: &oauthex.ClientRegistrationMetadata{RedirectURIs: []string{"http://localhost:1/callback"}},
			},
			AuthorizationCodeFetcher: fetchCode,
			Client:                   hc,
		})
	}},
	{name: "MCP request bearer", path: "/mcp", mcp: true},
}

// fetchCode is a browser that the authorization server answers at once
// with code-1.
func fetchCode(_ context.Context, a *sdkauth.AuthorizationArgs) (*sdkauth.AuthorizationResult, error) {
	u, err := url.Parse(a.URL)
	if err != nil {
		return nil, err
	}
	return &sdkauth.AuthorizationResult{Code: "code-1", State: u.Query().Get("state")}, nil
}

// mcpConnect connects to the rig's MCP server over Streamable HTTP with a
// static bearer token, its requests through the caller's transport
// (Options.Base) for the caller's client, or with a DPoP-bound token for
// the DPoP client, and returns what failed.
func mcpConnect(ctx context.Context, t *testing.T, r *asRig, ck string, hc *http.Client) error {
	opts := &streamablehttp.Options{Credentials: auth.Bearer(auth.NewToken("good-static"))}
	switch ck {
	case "caller's client":
		// A base over the caller's client, which follows every redirect
		// itself (Options.Base): the transport's rule never sees them.
		opts.Base = roundTripFunc(func(req *http.Request) (*http.Response, error) { return hc.Do(req) })
	case "DPoP client":
		src, err := auth.NewClientCredentials(&auth.ClientCredentialsConfig{ClientID: ccClientID, ClientSecret: auth.NewSecret(ccSecret),
			TokenURL: r.as.srv.URL + "/issue", HTTPClient: hc})
		if err != nil {
			t.Fatal(err)
		}
		opts.Credentials = src
	}
	f, err := streamablehttp.New(r.mcp.srv.URL+"/mcp", opts)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(ctx, client.Definition{Name: "rig", Transport: f}, nil)
	if err != nil {
		return err
	}
	c.Close()
	return errors.New("connected through a redirected POST")
}
