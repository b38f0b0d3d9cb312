package oauthtest_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/dpop"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/mcptest/oauthtest"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// dpopClientCredentials is the default client's client credentials
// source, its tokens bound to key.
func dpopClientCredentials(t testing.TB, key auth.DPoPKey) *auth.ClientCredentials {
	t.Helper()
	return clientCredentials(t, &auth.ClientCredentialsConfig{
		ClientID: oauthtest.DefaultClientID, ClientSecret: auth.NewSecret(oauthtest.DefaultClientSecret),
		HTTPClient: key.Client(nil),
	})
}

func newDPoPKey(t testing.TB) auth.DPoPKey {
	t.Helper()
	k, err := auth.NewDPoPKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Every request to the protected fake carries its own proof: the fake
// checked one proof at the token endpoint and one for each request it
// served (each with a new jti, or the replay check would refuse it), and
// refused none.
func TestDPoPProofPerRequest(t *testing.T) {
	mcptest.LeakCheck(t)
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{RequireDPoP: true})
	fake := protectedFake(t, as, nil, dpopClientCredentials(t, newDPoPKey(t)))
	c := fake.Client(nil)
	for range 3 {
		if _, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "x"}); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	// The requests without a credential are the first one, refused 401,
	// and the client's GET of the protected resource metadata.
	served := 0
	for _, r := range fake.HTTP().Requests() {
		switch {
		case r.Authorization:
			served++
		case r.Status != http.StatusUnauthorized && r.Method != http.MethodGet:
			t.Errorf("a request without a credential went through: %+v", r)
		}
	}
	want := oauthtest.AuthCounts{TokensIssued: 1, ResourceRefusals: 1, DPoPProofs: 1 + served}
	if diff := cmp.Diff(want, as.Counts()); diff != "" {
		t.Errorf("AuthCounts mismatch (-want +got):\n%s", diff)
	}
	if served < 3 {
		t.Errorf("the fake served %d requests, want at least the 3 calls", served)
	}
	if n := fake.Counts().Executions["lookup"]; n != 3 {
		t.Errorf("Executions = %d, want 3", n)
	}
}

// rawToken asks as for a token with the client credentials grant, with a
// proof of key when key is not nil, and returns it and its token_type.
func rawToken(t *testing.T, as *oauthtest.AuthServer, key *ecdsa.PrivateKey) (tok, typ string) {
	t.Helper()
	req, _ := http.NewRequest("POST", as.URL+"/token", strings.NewReader("grant_type=client_credentials"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(oauthtest.DefaultClientID, oauthtest.DefaultClientSecret)
	if key != nil {
		req.Header.Set("DPoP", proof(t, key, &dpop.Claims{Method: "POST", URI: as.URL + "/token"}))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ AccessToken, TokenType, Error string }
	json.NewDecoder(resp.Body).Decode(&struct {
		AccessToken *string `json:"access_token"`
		TokenType   *string `json:"token_type"`
		Error       *string `json:"error"`
	}{&body.AccessToken, &body.TokenType, &body.Error})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("token request: %s %s", resp.Status, body.Error)
	}
	return body.AccessToken, body.TokenType
}

// proof signs c with key, with a fresh jti and iat now unless c sets them.
func proof(t *testing.T, key *ecdsa.PrivateKey, c *dpop.Claims) string {
	t.Helper()
	if c.ID == "" {
		c.ID, _ = dpop.NewID()
	}
	if c.Issued == 0 {
		c.Issued = time.Now().Unix()
	}
	p, err := dpop.Sign(key, jwt.SigningMethodES256, c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The protected resource takes a DPoP-bound token only with the DPoP
// scheme and a valid proof of its key for the request: every rule refuses
// its case alone (401, counted), and the request that breaks none passes.
// The iat window is tested at its edge, on the server's clock.
func TestDPoPResourceRules(t *testing.T) {
	as := oauthtest.NewAuthServer(t, nil)
	srv := httptest.NewServer(as.Protect(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), nil))
	t.Cleanup(srv.Close)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	bound, typ := rawToken(t, as, key)
	bearer, btyp := rawToken(t, as, nil)
	if typ != "DPoP" || btyp != "Bearer" {
		t.Fatalf("token types %q and %q, want DPoP and Bearer", typ, btyp)
	}
	// The proofs' iat is checked on a clock the test holds still.
	now := time.Now().Truncate(time.Second)
	oauthtest.SetAuthClock(as, func() time.Time { return now })
	uri := srv.URL + "/mcp"
	claims := func(edit func(*dpop.Claims)) *dpop.Claims {
		c := &dpop.Claims{Method: "POST", URI: uri, Issued: now.Unix(), TokenHash: dpop.TokenHash(bound)}
		if edit != nil {
			edit(c)
		}
		return c
	}
	replayed := proof(t, key, claims(nil))
	tests := []struct {
		name    string
		auth    string
		proofs  []string
		want    int
		refused bool // counted as a DPoP refusal
	}{
		{"valid", "DPoP " + bound, []string{proof(t, key, claims(nil))}, 200, false},
		{"iat at the window's past edge", "DPoP " + bound, []string{proof(t, key, claims(func(c *dpop.Claims) { c.Issued -= int64(oauthtest.DPoPProofWindow / time.Second) }))}, 200, false},
		{"iat at the window's future edge", "DPoP " + bound, []string{proof(t, key, claims(func(c *dpop.Claims) { c.Issued += int64(oauthtest.DPoPProofWindow / time.Second) }))}, 200, false},
		{"first use of a proof", "DPoP " + bound, []string{replayed}, 200, false},
		{"bound token as Bearer", "Bearer " + bound, []string{proof(t, key, claims(nil))}, 401, true},
		{"no proof", "DPoP " + bound, nil, 401, true},
		{"two proofs", "DPoP " + bound, []string{proof(t, key, claims(nil)), proof(t, key, claims(nil))}, 401, true},
		{"another key", "DPoP " + bound, []string{proof(t, other, claims(nil))}, 401, true},
		{"another method", "DPoP " + bound, []string{proof(t, key, claims(func(c *dpop.Claims) { c.Method = "GET" }))}, 401, true},
		{"another URI", "DPoP " + bound, []string{proof(t, key, claims(func(c *dpop.Claims) { c.URI = srv.URL + "/other" }))}, 401, true},
		{"another token's hash", "DPoP " + bound, []string{proof(t, key, claims(func(c *dpop.Claims) { c.TokenHash = dpop.TokenHash(bearer) }))}, 401, true},
		{"no token hash", "DPoP " + bound, []string{proof(t, key, claims(func(c *dpop.Claims) { c.TokenHash = "" }))}, 401, true},
		{"iat a second past the window", "DPoP " + bound, []string{proof(t, key, claims(func(c *dpop.Claims) { c.Issued -= int64(oauthtest.DPoPProofWindow/time.Second) + 1 }))}, 401, true},
		{"iat a second beyond the window", "DPoP " + bound, []string{proof(t, key, claims(func(c *dpop.Claims) { c.Issued += int64(oauthtest.DPoPProofWindow/time.Second) + 1 }))}, 401, true},
		{"a replayed proof", "DPoP " + bound, []string{replayed}, 401, true},
		{"a bearer token with the DPoP scheme", "DPoP " + bearer, []string{proof(t, key, claims(func(c *dpop.Claims) { c.TokenHash = dpop.TokenHash(bearer) }))}, 401, false},
		{"a bearer token as Bearer", "Bearer " + bearer, nil, 200, false},
	}
	for _, tt := range tests {
		before := as.Counts()
		req, _ := http.NewRequest("POST", uri, strings.NewReader("{}"))
		req.Header.Set("Authorization", tt.auth)
		for _, p := range tt.proofs {
			req.Header.Add("DPoP", p)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s: status %d, want %d (%s)", tt.name, resp.StatusCode, tt.want, resp.Header.Get("WWW-Authenticate"))
		}
		after := as.Counts()
		if got := after.DPoPRefusals - before.DPoPRefusals; got != map[bool]int{true: 1}[tt.refused] {
			t.Errorf("%s: %d DPoP refusals counted, want %v", tt.name, got, tt.refused)
		}
		if tt.want == 401 && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "DPoP ") {
			t.Errorf("%s: challenge %q, want the DPoP scheme", tt.name, resp.Header.Get("WWW-Authenticate"))
		}
	}
}

// The token endpoint's proof checks: RequireDPoP refuses a request without
// one, a proof for another URI is refused, and with DPoPNonce the first
// proof gets use_dpop_nonce and the nonce, which the next proof carries.
func TestDPoPTokenEndpoint(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{RequireDPoP: true, DPoPNonce: true})
	send := func(p string) (*http.Response, string) {
		req, _ := http.NewRequest("POST", as.URL+"/token", strings.NewReader(url.Values{"grant_type": {"client_credentials"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(oauthtest.DefaultClientID, oauthtest.DefaultClientSecret)
		if p != "" {
			req.Header.Set("DPoP", p)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e struct {
			Error string `json:"error"`
		}
		json.NewDecoder(resp.Body).Decode(&e)
		return resp, e.Error
	}
	if resp, code := send(""); resp.StatusCode != 400 || code != "invalid_dpop_proof" {
		t.Errorf("no proof: %d %s, want 400 invalid_dpop_proof", resp.StatusCode, code)
	}
	if resp, code := send(proof(t, key, &dpop.Claims{Method: "POST", URI: as.URL + "/elsewhere"})); resp.StatusCode != 400 || code != "invalid_dpop_proof" {
		t.Errorf("another htu: %d %s, want 400 invalid_dpop_proof", resp.StatusCode, code)
	}
	resp, code := send(proof(t, key, &dpop.Claims{Method: "POST", URI: as.URL + "/token"}))
	nonce := resp.Header.Get("DPoP-Nonce")
	if resp.StatusCode != 400 || code != "use_dpop_nonce" || nonce != "nonce-1" {
		t.Fatalf("no nonce: %d %s DPoP-Nonce %q, want 400 use_dpop_nonce nonce-1", resp.StatusCode, code, nonce)
	}
	if resp, code := send(proof(t, key, &dpop.Claims{Method: "POST", URI: as.URL + "/token", Nonce: "nonce-0"})); resp.StatusCode != 400 || code != "use_dpop_nonce" {
		t.Errorf("a wrong nonce: %d %s, want 400 use_dpop_nonce", resp.StatusCode, code)
	}
	if resp, code := send(proof(t, key, &dpop.Claims{Method: "POST", URI: as.URL + "/token", Nonce: nonce})); resp.StatusCode != 200 {
		t.Errorf("with the nonce: %d %s, want 200", resp.StatusCode, code)
	}
	want := oauthtest.AuthCounts{TokensIssued: 1, Refusals: 4, DPoPProofs: 4, DPoPRefusals: 2, NoncesIssued: 2}
	if diff := cmp.Diff(want, as.Counts()); diff != "" {
		t.Errorf("AuthCounts mismatch (-want +got):\n%s", diff)
	}
}

// With nonces required at both servers, the client retries the token
// request once and each first request to the resource once, each with
// the nonce it was given, and the call runs once.
func TestDPoPNonceRetry(t *testing.T) {
	mcptest.LeakCheck(t)
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{RequireDPoP: true, DPoPNonce: true})
	fake := protectedFake(t, as, nil, dpopClientCredentials(t, newDPoPKey(t)))
	c := fake.Client(nil)
	if _, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "x"}); err != nil {
		t.Fatal(err)
	}
	got := as.Counts()
	// One nonce asked for at the token endpoint and one at the resource:
	// the server has one nonce, and the client keeps it per origin.
	if got.NoncesIssued != 2 || got.TokensIssued != 1 || got.DPoPRefusals != 0 {
		t.Errorf("counts %+v, want 2 nonces issued, 1 token, no DPoP refusal", got)
	}
	if n := fake.Counts().Executions["lookup"]; n != 1 {
		t.Errorf("Executions = %d, want 1", n)
	}
}

// A token endpoint that asks for a new nonce every time gets each token
// request twice (the retry with the nonce, once) and the client fails
// typed: a GrantError use_dpop_nonce, an auth failure, nothing looped. (The
// go-sdk tries initialize after a server/discover that failed, so one
// Connect makes two attempts, each refused 401 at the resource first.)
func TestDPoPStaleNoncesFailTyped(t *testing.T) {
	mcptest.LeakCheck(t)
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{RequireDPoP: true, StaleNonces: true})
	fake := protectedFake(t, as, nil, dpopClientCredentials(t, newDPoPKey(t)))
	_, err := client.Connect(t.Context(), fake.Definition(), nil)
	var ge *auth.GrantError
	var ce *client.Error
	if !errors.As(err, &ge) || ge.Code != "use_dpop_nonce" || !errors.As(err, &ce) || ce.Class != client.ClassAuth {
		t.Fatalf("Connect error = %v, want a ClassAuth error wrapping a GrantError use_dpop_nonce", err)
	}
	got := as.Counts()
	if attempts := got.ResourceRefusals; attempts < 1 || got.DPoPProofs != 2*attempts || got.NoncesIssued != 2*attempts || got.TokensIssued != 0 {
		t.Errorf("counts %+v, want 2 proofs and 2 nonces for each of the %d token requests, no token", got, attempts)
	}
}

// The go-sdk's authorization code flow through this module's source, its
// HTTP client the DPoP key's: the code exchange carries a proof, the token
// is DPoP-bound, and every request afterwards carries its own proof, with
// the nonces both servers ask for.
func TestDPoPAuthorizationCode(t *testing.T) {
	mcptest.LeakCheck(t)
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{RequireDPoP: true, DPoPNonce: true})
	src, err := auth.NewAuthorizationCode(&sdkauth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &sdkauth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{"http://127.0.0.1/callback"},
		}},
		RedirectURL:              "http://127.0.0.1/callback",
		AuthorizationCodeFetcher: oauthtest.FetchAuthorizationCode,
		Client:                   newDPoPKey(t).Client(nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	fake := protectedFake(t, as, nil, src)
	c := fake.Client(nil)
	if _, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "x"}); err != nil {
		t.Fatal(err)
	}
	got := as.Counts()
	if got.Authorizations != 1 || got.TokensIssued != 1 || got.DPoPRefusals != 0 || got.NoncesIssued != 2 || got.DPoPProofs < 4 {
		t.Errorf("counts %+v, want 1 authorization and token, 2 nonces, no refusal, a proof per request", got)
	}
}
