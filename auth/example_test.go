package auth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/transport/streamablehttp"
)

func ExampleToken() {
	tok := auth.NewToken("ghp_example")
	cfg := struct {
		Server string
		Token  auth.Token
	}{"docs", tok}

	fmt.Println(tok)
	fmt.Printf("%+v\n", cfg)
	_, err := json.Marshal(cfg)
	fmt.Println(errors.Is(err, auth.ErrNotMarshalable))
	fmt.Println(len(tok.Reveal()))
	// Output:
	// auth.Token(REDACTED)
	// {Server:docs Token:auth.Token(REDACTED)}
	// true
	// 11
}

func ExampleParseOrigin() {
	a, _ := auth.ParseOrigin("https://MCP.example.com:443/mcp")
	b, _ := auth.ParseOrigin("https://mcp.example.com/other")
	c, _ := auth.ParseOrigin("http://mcp.example.com/mcp")
	fmt.Println(a, a == b, a == c)
	// Output: https://mcp.example.com true false
}

func ExampleNewRoundTripper() {
	var got []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, "other: "+r.Header.Get("Authorization"))
	}))
	defer other.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, "home: "+r.Header.Get("Authorization"))
		http.Redirect(w, r, other.URL, http.StatusTemporaryRedirect)
	}))
	defer home.Close()

	origin, _ := auth.ParseOrigin(home.URL)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: auth.NewRoundTripper(tr, origin, auth.Bearer(auth.NewToken("t0k")))}
	resp, err := c.Get(home.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Printf("%q\n", got)
	// Output: ["home: Bearer t0k" "other: "]
}

// A CI job records against a protected server with no browser: its client
// credentials come from the job's secrets, the token endpoint is discovered
// from the server's 401, and the token is refreshed as it expires. (Not
// run: it needs the server and the secrets.)
func ExampleNewClientCredentials() {
	src, err := auth.NewClientCredentials(&auth.ClientCredentialsConfig{
		ClientID:     os.Getenv("MCP_CLIENT_ID"),
		ClientSecret: auth.NewSecret(os.Getenv("MCP_CLIENT_SECRET")), // client_secret_basic
		Issuer:       "https://login.example.com",                    // the secret goes to this authorization server only
	})
	if err != nil {
		log.Fatal(err)
	}
	f, err := streamablehttp.New("https://mcp.example.com/mcp", &streamablehttp.Options{Credentials: src})
	if err != nil {
		log.Fatal(err)
	}
	c, err := client.Connect(context.Background(), client.Definition{Name: "docs", Transport: f}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
}

// private_key_jwt: the client proves itself with a JWT signed by a key
// whose public half the authorization server holds; no shared secret.
func ExampleParsePrivateKey() {
	key, err := auth.ParsePrivateKey([]byte(os.Getenv("MCP_CLIENT_KEY_PEM")))
	if err != nil {
		log.Fatal(err)
	}
	src, err := auth.NewClientCredentials(&auth.ClientCredentialsConfig{
		ClientID:   os.Getenv("MCP_CLIENT_ID"),
		PrivateKey: key,
		KeyID:      "ci-2026",
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = src // streamablehttp.Options{Credentials: src}
}

// DPoP binds the access tokens to a key the client holds: a token that
// leaks is useless without it. Give the source's token requests the key's
// HTTP client; the rest is automatic (a proof per request, the servers'
// nonces, the validated origin only). The key never prints nor encodes.
func ExampleNewDPoPKey() {
	key, err := auth.NewDPoPKey(nil) // a fresh P-256 key, in memory only
	if err != nil {
		log.Fatal(err)
	}
	src, err := auth.NewClientCredentials(&auth.ClientCredentialsConfig{
		ClientID:     "ci-recorder",
		ClientSecret: auth.NewSecret("from-the-job's-secrets"),
		HTTPClient:   key.Client(nil), // token requests carry proofs: the tokens are DPoP-bound
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = src // streamablehttp.Options{Credentials: src}

	fmt.Println(key)
	_, err = json.Marshal(map[string]any{"key": key})
	fmt.Println(errors.Is(err, auth.ErrNotMarshalable))
	// Output:
	// auth.DPoPKey(REDACTED)
	// true
}

// Workload identity federation: a CI job authenticates as itself with the
// OIDC token its platform gives it, presented with the JWT-bearer grant.
// No client secret exists to leak. The file is read again for every token
// request, so a rotated token is picked up. (Not run: it needs the CI's
// token and a server that trusts its issuer.)
func ExampleNewWorkloadIdentity() {
	src, err := auth.NewWorkloadIdentity(&auth.WorkloadIdentityConfig{
		TokenFile: os.Getenv("MCP_OIDC_TOKEN_FILE"), // e.g. written by the job's OIDC step
		Issuer:    "https://login.example.com",      // the token goes to this authorization server only
	})
	if err != nil {
		log.Fatal(err)
	}
	f, err := streamablehttp.New("https://mcp.example.com/mcp", &streamablehttp.Options{Credentials: src})
	if err != nil {
		log.Fatal(err)
	}
	c, err := client.Connect(context.Background(), client.Definition{Name: "docs", Transport: f}, nil)
	var ge *auth.GrantError
	if errors.As(err, &ge) {
		log.Fatalf("refused: %s", ge.Code) // invalid_grant: the token's audience or issuer is not trusted
	}
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
}

// Enterprise-managed authorization: the user signed in to the client
// through the company's IdP; the IdP's token exchange turns their ID token
// into an ID-JAG for the MCP server's authorization server, which issues
// the access token. Nobody is prompted. (Not run: it needs the IdP.)
func ExampleNewEnterprise() {
	src, err := auth.NewEnterprise(&auth.EnterpriseConfig{
		IDToken: func(ctx context.Context) (auth.Token, error) {
			return auth.NewToken(os.Getenv("SSO_ID_TOKEN")), nil // from the client's single sign-on
		},
		IdPIssuer:    "https://acme.okta.example",
		IdPClientID:  "agent-at-idp",
		ClientID:     "agent-at-mcp",
		ClientSecret: auth.NewSecret(os.Getenv("MCP_CLIENT_SECRET")),
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = src // streamablehttp.Options{Credentials: src}
}
