package auth_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/streamablehttp"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// lookAlikes returns issuers that look like base (an origin, no path) and
// are not it: a longer host with base's as its prefix, base's host as the
// suffix of a longer one, a trailing dot, case, ports, paths, a query, a
// fragment, user info, the other scheme.
func lookAlikes(t *testing.T, base string) []string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	host, port := u.Hostname(), u.Port()
	with := func(h, p string) string {
		if p != "" {
			h += ":" + p
		}
		return u.Scheme + "://" + h
	}
	other := "http"
	defPort := "443"
	if u.Scheme == "http" {
		other, defPort = "https", "80"
	}
	out := []string{
		with(host+".evil.test", port),
		with(host+"evil.test", port),
		with("evil-"+host, port),
		with("x"+host, port),
		with(host+".", port),
		with(strings.ToUpper(host), port),
		strings.ToUpper(u.Scheme) + strings.TrimPrefix(base, u.Scheme),
		with(host, port+"0"),
		with(host, "8443"),
		base + "/tenant",
		base + "//",
		base + "/.",
		base + "/%2F",
		base + "?x=1",
		base + "#f",
		with("evil.test@"+host, port),
		u.Scheme + "://" + u.Host + "@evil.test",
		other + strings.TrimPrefix(base, u.Scheme),
	}
	if port == "" {
		out = append(out, with(host, defPort))
	}
	return slices.DeleteFunc(out, func(s string) bool { return s == base }) // an IP host has no case
}

// issuerRig is a protected MCP resource whose metadata names
// authorization servers as told, and a real authorization server whose
// metadata names an issuer as told (its own URL by default). Requests
// anywhere else are refused and counted.
type issuerRig struct {
	as, rs    *httptest.Server
	mu        sync.Mutex // guards the fields below
	named     string     // the authorization server the resource's metadata names; "" is as's URL
	issuer    string     // the issuer as's metadata names; "" is as's URL
	tokens    int        // requests at as's token endpoint
	elsewhere []string   // requests to any other host
}

func newIssuerRig(t *testing.T) *issuerRig {
	t.Helper()
	r := &issuerRig{}
	asMux := http.NewServeMux()
	asMux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		r.mu.Lock()
		issuer := r.issuer
		r.mu.Unlock()
		if issuer == "" {
			issuer = r.as.URL
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": issuer, "token_endpoint": r.as.URL + "/token", "authorization_endpoint": r.as.URL + "/authorize",
			"response_types_supported": []string{"code"}, "grant_types_supported": []string{"client_credentials"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic"},
		})
	})
	asMux.HandleFunc("/token", func(w http.ResponseWriter, _ *http.Request) {
		r.mu.Lock()
		r.tokens++
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": "tok-1", "token_type": "Bearer", "expires_in": 3600})
	})
	r.as = httptest.NewServer(asMux)
	t.Cleanup(r.as.Close)

	s := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "whoami"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ci"}}}, nil, nil
	})
	verify := func(_ context.Context, tok string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		if tok != "tok-1" {
			return nil, sdkauth.ErrInvalidToken
		}
		return &sdkauth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	rsMux := http.NewServeMux()
	rsMux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		named := r.named
		r.mu.Unlock()
		if named == "" {
			named = r.as.URL
		}
		sdkauth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource: r.rs.URL + "/mcp", AuthorizationServers: []string{named},
		}).ServeHTTP(w, req)
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	rsMux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		sdkauth.RequireBearerToken(verify, &sdkauth.RequireBearerTokenOptions{ResourceMetadataURL: r.rs.URL + "/.well-known/oauth-protected-resource/mcp"})(h).ServeHTTP(w, req)
	}))
	r.rs = httptest.NewServer(rsMux)
	t.Cleanup(r.rs.Close)
	return r
}

// client is the HTTP client of the credential source: it reaches the two
// servers and refuses (and counts) anything else.
func (r *issuerRig) client() *http.Client {
	own := map[string]bool{strings.TrimPrefix(r.as.URL, "http://"): true, strings.TrimPrefix(r.rs.URL, "http://"): true}
	return &http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if !own[req.URL.Host] {
			r.mu.Lock()
			r.elsewhere = append(r.elsewhere, req.URL.String())
			r.mu.Unlock()
			return nil, errors.New("refused by the test: not one of its servers")
		}
		return http.DefaultTransport.RoundTrip(req)
	})}
}

// call connects with client credentials pinned to issuer and calls whoami.
func (r *issuerRig) call(t *testing.T, issuer string) error {
	t.Helper()
	src, err := auth.NewClientCredentials(&auth.ClientCredentialsConfig{
		ClientID: ccClientID, ClientSecret: auth.NewSecret(ccSecret), Issuer: issuer, HTTPClient: r.client(),
	})
	if err != nil {
		return err
	}
	f, err := streamablehttp.New(r.rs.URL+"/mcp", &streamablehttp.Options{Credentials: src})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.Definition{Name: "protected", Transport: f}, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.CallTool(ctx, "whoami", map[string]any{})
	return err
}

// Issuer pinning refuses an authorization server that only looks like the
// pinned one, before the client secret goes anywhere: named by the
// resource's metadata (the pin is "https://login.example.com"; the server
// names a look-alike), and claimed by the metadata of the server the pin
// names (the pin is the real server; its metadata says a look-alike). The
// pinned issuer itself, with or without a trailing slash, is accepted.
func TestIssuerPinningRefusesLookAlikes(t *testing.T) {
	leakcheck.Check(t)
	r := newIssuerRig(t)
	for _, pin := range []string{r.as.URL, r.as.URL + "/"} {
		if err := r.call(t, pin); err != nil {
			t.Fatalf("pinned to the real issuer %s: %v", pin, err)
		}
	}
	r.mu.Lock()
	accepted := r.tokens
	r.mu.Unlock()
	const pinned = "https://login.example.com"
	for _, named := range lookAlikes(t, pinned) {
		r.mu.Lock()
		r.named = named
		r.mu.Unlock()
		refused(t, r.call(t, pinned), "the resource names "+named+", pinned "+pinned)
	}
	r.mu.Lock()
	r.named = ""
	r.mu.Unlock()
	for _, claimed := range lookAlikes(t, r.as.URL) {
		r.mu.Lock()
		r.issuer = claimed
		r.mu.Unlock()
		refused(t, r.call(t, r.as.URL), "the metadata claims "+claimed+", pinned "+r.as.URL)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tokens != accepted {
		t.Errorf("the token endpoint got %d requests for look-alike issuers; want none", r.tokens-accepted)
	}
	if len(r.elsewhere) != 0 {
		t.Errorf("requests went to other hosts: %v", r.elsewhere)
	}
}

// refused fails t unless err refuses the authorization server: a ClassAuth
// error refused by RuleIssuer, or (an http server named where the pin
// is https) the go-sdk's refusal of metadata naming an insecure server,
// which is client credentials' error. The test checks that no token request
// was made either way.
func refused(t *testing.T, err error, what string) {
	t.Helper()
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Class != client.ClassAuth || !fromSource(err, "auth: client credentials: ") {
		t.Errorf("%s: %v; want a ClassAuth refusal", what, err)
		return
	}
	if !refusedBy(err, auth.RuleIssuer) && !strings.Contains(err.Error(), "no protected resource metadata") {
		t.Errorf("%s: %v; want RuleIssuer", what, err)
	}
}
