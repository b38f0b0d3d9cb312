package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/streamablehttp"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

const (
	ccClientID = "ci-recorder"
	ccSecret   = "s3cret-never-at-the-mcp-server"
)

// tokenRequest is one request the fake authorization server's token
// endpoint received.
type tokenRequest struct {
	Basic string     // the Authorization header, decoded, if Basic
	Form  url.Values // the form
}

// authServer is a fake OAuth authorization server for the client
// credentials grant: metadata at the RFC 8414 well-known URI, and a token
// endpoint that checks the client with check and issues a token that
// expires in ttl seconds.
type authServer struct {
	srv   *httptest.Server
	check func(r tokenRequest) error
	ttl   int

	mu       sync.Mutex // guards requests, issued
	requests []tokenRequest
	issued   int
	methods  []string
	tokenURL string // the token endpoint the metadata names; "" is its own
}

func newAuthServer(t *testing.T, methods []string, check func(tokenRequest) error) *authServer {
	t.Helper()
	as := &authServer{check: check, ttl: 3600, methods: methods}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		token := as.srv.URL + "/token"
		if as.tokenURL != "" {
			token = as.tokenURL
		}
		json.NewEncoder(w).Encode(map[string]any{
			"issuer":                                as.srv.URL,
			"token_endpoint":                        token,
			"authorization_endpoint":                as.srv.URL + "/authorize",
			"response_types_supported":              []string{"code"},
			"grant_types_supported":                 []string{"client_credentials"},
			"token_endpoint_auth_methods_supported": as.methods,
		})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		req := tokenRequest{Form: r.PostForm}
		if u, p, ok := r.BasicAuth(); ok {
			req.Basic = u + ":" + p
		}
		as.mu.Lock()
		as.requests = append(as.requests, req)
		as.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.PostForm.Get("grant_type") != "client_credentials" {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]string{"error": "unsupported_grant_type"})
			return
		}
		if err := as.check(req); err != nil {
			w.WriteHeader(http.StatusUnauthorized)
			json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client", "error_description": err.Error()})
			return
		}
		as.mu.Lock()
		as.issued++
		tok := fmt.Sprintf("tok-%d", as.issued)
		as.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": as.ttl})
	})
	as.srv = httptest.NewServer(mux)
	t.Cleanup(as.srv.Close)
	return as
}

func (as *authServer) seen() []tokenRequest {
	as.mu.Lock()
	defer as.mu.Unlock()
	return append([]tokenRequest(nil), as.requests...)
}

// protected is a go-sdk MCP server behind RequireBearerToken, accepting the
// tokens the authorization server issued, with its protected resource
// metadata naming that server. It records every request's Authorization
// header and body.
type protected struct {
	srv   *httptest.Server
	calls int
	mu    sync.Mutex // guards seen, calls
	seen  []string   // "Authorization header | body" of every request
}

func newProtected(t *testing.T, as *authServer) *protected {
	t.Helper()
	p := &protected{}
	s := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "whoami"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		p.mu.Lock()
		p.calls++
		p.mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ci"}}}, nil, nil
	})
	verify := func(_ context.Context, tok string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		if !strings.HasPrefix(tok, "tok-") {
			return nil, sdkauth.ErrInvalidToken
		}
		return &sdkauth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	mux := http.NewServeMux()
	var prmURL string
	mux.Handle("/.well-known/oauth-protected-resource/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sdkauth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource:             p.srv.URL + "/mcp",
			AuthorizationServers: []string{as.srv.URL},
			ScopesSupported:      []string{"mcp:read"},
		}).ServeHTTP(w, r)
	}))
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		p.mu.Lock()
		p.seen = append(p.seen, r.Header.Get("Authorization")+" | "+string(body))
		p.mu.Unlock()
		sdkauth.RequireBearerToken(verify, &sdkauth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL})(mcpHandler).ServeHTTP(w, r)
	}))
	p.srv = httptest.NewServer(mux)
	prmURL = p.srv.URL + "/.well-known/oauth-protected-resource/mcp"
	t.Cleanup(p.srv.Close)
	return p
}

func (p *protected) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// callWhoami connects with src and calls whoami once.
func callWhoami(t *testing.T, p *protected, src auth.Source) error {
	t.Helper()
	f, err := streamablehttp.New(p.srv.URL+"/mcp", &streamablehttp.Options{Credentials: src})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(context.Background(), client.Definition{Name: "protected", Transport: f}, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.CallTool(context.Background(), "whoami", map[string]any{})
	return err
}

func checkBasic(r tokenRequest) error {
	if r.Basic != ccClientID+":"+ccSecret {
		return errors.New("bad basic credentials")
	}
	return nil
}

// The client secret goes to the token endpoint with client_secret_basic,
// once; every MCP request after the first 401 carries the issued token, and
// the secret reaches the MCP server in no header and no body.
func TestClientCredentialsBasic(t *testing.T) {
	leakcheck.Check(t)
	as := newAuthServer(t, []string{"client_secret_basic"}, checkBasic)
	p := newProtected(t, as)
	src, err := auth.NewClientCredentials(&auth.ClientCredentialsConfig{ClientID: ccClientID, ClientSecret: auth.NewSecret(ccSecret)})
	if err != nil {
		t.Fatal(err)
	}
	if err := callWhoami(t, p, src); err != nil {
		t.Fatalf("call: %v", err)
	}
	reqs := as.seen()
	if len(reqs) != 1 {
		t.Fatalf("token endpoint saw %d requests, want 1", len(reqs))
	}
	if got := reqs[0].Form.Get("resource"); got != p.srv.URL+"/mcp" {
		t.Errorf("resource parameter %q, want the server's resource", got)
	}
	if got := reqs[0].Form.Get("scope"); got != "mcp:read" {
		t.Errorf("scope %q, want the metadata's mcp:read", got)
	}
	if reqs[0].Form.Has("client_secret") {
		t.Error("the secret went in the form as well as the Basic header")
	}
	for i, r := range p.requests() {
		if strings.Contains(r, ccSecret) {
			t.Errorf("MCP request %d carries the client secret: %s", i, r)
		}
		if i > 0 && !strings.HasPrefix(r, "Bearer tok-1 |") {
			t.Errorf("MCP request %d after the 401 went without the token: %.60s", i, r)
		}
	}
	if p.calls != 1 {
		t.Errorf("whoami ran %d times, want 1", p.calls)
	}
}

// An authorization server that lists only client_secret_post gets the
// secret in the form.
func TestClientCredentialsPost(t *testing.T) {
	leakcheck.Check(t)
	as := newAuthServer(t, []string{"client_secret_post"}, func(r tokenRequest) error {
		if r.Basic != "" || r.Form.Get("client_id") != ccClientID || r.Form.Get("client_secret") != ccSecret {
			return errors.New("want client_secret_post")
		}
		return nil
	})
	p := newProtected(t, as)
	src, _ := auth.NewClientCredentials(&auth.ClientCredentialsConfig{ClientID: ccClientID, ClientSecret: auth.NewSecret(ccSecret)})
	if err := callWhoami(t, p, src); err != nil {
		t.Fatalf("call: %v", err)
	}
}

// private_key_jwt: each token request carries a fresh assertion signed
// with the key, iss and sub the client id, aud the issuer, valid one
// minute, with a new jti each time; no secret is involved.
func TestClientCredentialsJWT(t *testing.T) {
	leakcheck.Check(t)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	var as *authServer
	var jtis []string
	as = newAuthServer(t, []string{"private_key_jwt"}, func(r tokenRequest) error {
		if r.Form.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
			return errors.New("no jwt-bearer assertion")
		}
		var claims jwt.RegisteredClaims
		_, err := jwt.ParseWithClaims(r.Form.Get("client_assertion"), &claims, func(*jwt.Token) (any, error) { return &key.PublicKey, nil },
			jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(as.srv.URL), jwt.WithIssuer(ccClientID), jwt.WithSubject(ccClientID), jwt.WithExpirationRequired())
		if err != nil {
			return err
		}
		if d := claims.ExpiresAt.Sub(claims.IssuedAt.Time); d > time.Minute {
			return fmt.Errorf("assertion valid for %v", d)
		}
		jtis = append(jtis, claims.ID)
		return nil
	})
	as.ttl = 1 // expires at once: every credential needs a new token
	p := newProtected(t, as)
	pemKey := pemEC(t, key)
	signer, err := auth.ParsePrivateKey(pemKey)
	if err != nil {
		t.Fatal(err)
	}
	src, err := auth.NewClientCredentials(&auth.ClientCredentialsConfig{ClientID: ccClientID, PrivateKey: signer, KeyID: "k1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := callWhoami(t, p, src); err != nil {
		t.Fatalf("call: %v", err)
	}
	if len(jtis) < 2 {
		t.Fatalf("token endpoint verified %d assertions, want one per token (at least 2)", len(jtis))
	}
	seen := map[string]bool{}
	for _, j := range jtis {
		if j == "" || seen[j] {
			t.Errorf("assertion id %q empty or reused: %v", j, jtis)
		}
		seen[j] = true
	}
}

// With Issuer pinned, discovery that leads to another authorization server
// fails before anything is sent to it: its token endpoint sees no request,
// so the secret never leaves.
func TestClientCredentialsIssuerPinned(t *testing.T) {
	leakcheck.Check(t)
	as := newAuthServer(t, []string{"client_secret_basic"}, checkBasic)
	p := newProtected(t, as)
	src, _ := auth.NewClientCredentials(&auth.ClientCredentialsConfig{
		ClientID: ccClientID, ClientSecret: auth.NewSecret(ccSecret), Issuer: "https://login.example.com",
	})
	err := callWhoami(t, p, src)
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Class != client.ClassAuth || !refusedBy(err, auth.RuleIssuer) {
		t.Fatalf("error = %v, want a ClassAuth error refused by RuleIssuer", err)
	}
	if n := len(as.seen()); n != 0 {
		t.Errorf("the other authorization server's token endpoint saw %d requests", n)
	}
	if p.calls != 0 {
		t.Errorf("whoami ran %d times", p.calls)
	}
}

// A discovered token endpoint that the secret would reach in the clear
// (plain http, a host that is not loopback) is refused before anything is
// sent to it, as the go-sdk's own metadata checks refuse it; loopback
// (every other test here) and https are taken.
func TestClientCredentialsRefusesCleartextTokenEndpoint(t *testing.T) {
	leakcheck.Check(t)
	as := newAuthServer(t, []string{"client_secret_basic"}, checkBasic)
	as.tokenURL = "http://login.example.test/token"
	p := newProtected(t, as)
	var mu sync.Mutex
	var sent []string // requests to the named token endpoint's host
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.URL.Host == "login.example.test" {
			mu.Lock()
			sent = append(sent, r.URL.String())
			mu.Unlock()
			return nil, errors.New("no such host (test)")
		}
		return http.DefaultTransport.RoundTrip(r)
	})}
	src, err := auth.NewClientCredentials(&auth.ClientCredentialsConfig{
		ClientID: ccClientID, ClientSecret: auth.NewSecret(ccSecret), HTTPClient: hc,
	})
	if err != nil {
		t.Fatal(err)
	}
	err = callWhoami(t, p, src)
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Class != client.ClassAuth || !fromSource(err, "auth: client credentials: ") || !strings.Contains(err.Error(), "neither https nor loopback") {
		t.Fatalf("error = %v, want a ClassAuth error refusing the token endpoint", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sent) != 0 {
		t.Errorf("requests sent to the cleartext token endpoint: %v", sent)
	}
	if p.calls != 0 {
		t.Errorf("whoami ran %d times", p.calls)
	}
}

// A discovered token endpoint that names no origin is the authorization
// server's fault, not the caller's: the call fails as ClassAuth, as other
// discovery failures do, and not as a configuration error
// (ErrInvalidArgument, which the HTTP transports classify as policy).
// Nothing is sent to it.
func TestClientCredentialsTokenEndpointNamesNoOrigin(t *testing.T) {
	leakcheck.Check(t)
	as := newAuthServer(t, []string{"client_secret_basic"}, checkBasic)
	as.tokenURL = "https://user:pw@login.example.test/token"
	p := newProtected(t, as)
	var mu sync.Mutex
	sent := 0 // requests to the named token endpoint's host
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.URL.Hostname() == "login.example.test" {
			mu.Lock()
			sent++
			mu.Unlock()
			return nil, errors.New("no such host (test)")
		}
		return http.DefaultTransport.RoundTrip(r)
	})}
	src, err := auth.NewClientCredentials(&auth.ClientCredentialsConfig{
		ClientID: ccClientID, ClientSecret: auth.NewSecret(ccSecret), HTTPClient: hc,
	})
	if err != nil {
		t.Fatal(err)
	}
	err = callWhoami(t, p, src)
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Class != client.ClassAuth || !strings.Contains(err.Error(), "token endpoint: auth: invalid origin: URL carries user information") {
		t.Fatalf("error = %v, want a ClassAuth error refusing the token endpoint", err)
	}
	if errors.Is(err, auth.ErrInvalidArgument) {
		t.Errorf("error = %v matches ErrInvalidArgument: the server's URL is not the caller's argument", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if sent != 0 {
		t.Errorf("%d requests sent to the token endpoint", sent)
	}
	if p.calls != 0 {
		t.Errorf("whoami ran %d times", p.calls)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// With TokenURL there is no discovery: the very first MCP request carries
// the token, and the server never answers 401.
func TestClientCredentialsTokenURL(t *testing.T) {
	leakcheck.Check(t)
	as := newAuthServer(t, []string{"client_secret_basic"}, checkBasic)
	p := newProtected(t, as)
	src, _ := auth.NewClientCredentials(&auth.ClientCredentialsConfig{
		ClientID: ccClientID, ClientSecret: auth.NewSecret(ccSecret), TokenURL: as.srv.URL + "/token",
	})
	if err := callWhoami(t, p, src); err != nil {
		t.Fatalf("call: %v", err)
	}
	for i, r := range p.requests() {
		if !strings.HasPrefix(r, "Bearer tok-1 |") {
			t.Errorf("MCP request %d went without the token: %.60s", i, r)
		}
	}
}

// A refused client fails the connection as ClassAuth.
func TestClientCredentialsRefused(t *testing.T) {
	leakcheck.Check(t)
	as := newAuthServer(t, []string{"client_secret_basic"}, checkBasic)
	p := newProtected(t, as)
	src, _ := auth.NewClientCredentials(&auth.ClientCredentialsConfig{ClientID: ccClientID, ClientSecret: auth.NewSecret("wrong")})
	err := callWhoami(t, p, src)
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Class != client.ClassAuth || !fromSource(err, "auth: client credentials: ") {
		t.Fatalf("error = %v, want a ClassAuth error from client credentials", err)
	}
	if strings.Contains(err.Error(), "wrong") {
		t.Errorf("the error shows the secret: %v", err)
	}
}

// A token request is bounded by the caller's context, not only by the
// source's HTTP client (30 s by default): cancelling the context ends a
// request the token endpoint never answers, at once, with both secret
// and JWT clients.
func TestClientCredentialsTokenRequestFollowsContext(t *testing.T) {
	leakcheck.Check(t)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for _, tc := range []struct {
		name string
		cfg  auth.ClientCredentialsConfig
	}{
		{"secret", auth.ClientCredentialsConfig{ClientID: ccClientID, ClientSecret: auth.NewSecret(ccSecret)}},
		{"jwt", auth.ClientCredentialsConfig{ClientID: ccClientID, PrivateKey: key}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			arrived := make(chan struct{}, 1)
			released := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				arrived <- struct{}{}
				select {
				case <-r.Context().Done(): // the client gave up
				case <-released:
				}
			}))
			t.Cleanup(srv.Close)
			t.Cleanup(func() { close(released) })
			cfg := tc.cfg
			cfg.TokenURL = srv.URL + "/token"
			src, err := auth.NewClientCredentials(&cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() {
				_, err := src.Credential(ctx, httptest.NewRequest("POST", "http://mcp.example/mcp", nil))
				done <- err
			}()
			<-arrived
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) || !fromSource(err, "auth: client credentials: ") || errors.Is(err, auth.ErrInvalidArgument) {
					t.Errorf("Credential error = %v, want client credentials' error wrapping context.Canceled", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Credential still waiting 10 s after its context was cancelled: the token request ignores the caller's context")
			}
		})
	}
}

func TestNewClientCredentialsValidates(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for name, cfg := range map[string]*auth.ClientCredentialsConfig{
		"nil":           nil,
		"no client id":  {ClientSecret: auth.NewSecret("s")},
		"neither":       {ClientID: "c"},
		"both":          {ClientID: "c", ClientSecret: auth.NewSecret("s"), PrivateKey: key},
		"bad token url": {ClientID: "c", ClientSecret: auth.NewSecret("s"), TokenURL: "/token"},
		"bad issuer":    {ClientID: "c", ClientSecret: auth.NewSecret("s"), Issuer: "login"},
		"ftp token url": {ClientID: "c", ClientSecret: auth.NewSecret("s"), TokenURL: "ftp://as.example/token"},
		"user info":     {ClientID: "c", ClientSecret: auth.NewSecret("s"), TokenURL: "https://as.example@evil.example/token"},
		"bad port":      {ClientID: "c", ClientSecret: auth.NewSecret("s"), Issuer: "https://as.example:99999"},
	} {
		if _, err := auth.NewClientCredentials(cfg); !errors.Is(err, auth.ErrInvalidArgument) || !fromSource(err, "auth: client credentials: ") {
			t.Errorf("%s: error = %v, want ErrInvalidArgument from client credentials", name, err)
		}
	}
	for name, data := range map[string][]byte{
		"not pem":    []byte("hello"),
		"public key": pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: []byte{1}}),
		"garbage":    pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1, 2, 3}}),
	} {
		if _, err := auth.ParsePrivateKey(data); !errors.Is(err, auth.ErrInvalidArgument) || !fromSource(err, "auth: client credentials: ") {
			t.Errorf("ParsePrivateKey(%s): error = %v", name, err)
		}
	}
}

func pemEC(t *testing.T, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}
