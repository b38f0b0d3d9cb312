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
