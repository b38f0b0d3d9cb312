package oauthtest_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/mcptest/oauthtest"
)

// noRedirect is an HTTP client that shows redirects instead of following
// them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func postForm(t *testing.T, u string, form url.Values, basic ...string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if len(basic) == 2 {
		req.SetBasicAuth(basic[0], basic[1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body
}

// authorizeCode runs the authorization endpoint for the default client and
// returns the code.
func authorizeCode(t *testing.T, as *oauthtest.AuthServer, challenge, scope string) string {
	t.Helper()
	q := url.Values{"response_type": {"code"}, "client_id": {oauthtest.DefaultClientID}, "redirect_uri": {"http://127.0.0.1/cb"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {"s1"}, "scope": {scope}}
	resp, err := noRedirect.Get(as.URL + "/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := resp.Location()
	if err != nil {
		t.Fatalf("authorize: status %d, no redirect", resp.StatusCode)
	}
	if loc.Query().Get("state") != "s1" || loc.Query().Get("iss") != as.URL {
		t.Errorf("redirect %s lacks the state or the issuer", loc)
	}
	return loc.Query().Get("code")
}

func challengeOf(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// Every rule of the endpoints, with its refusal: each is counted, and
// nothing is issued for a refused request.
func TestAuthServerEndpoints(t *testing.T) {
	mcptest.LeakCheck(t)
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{Scopes: []string{"mcp", "admin"}})
	tokenURL := as.URL + "/token"
	creds := []string{oauthtest.DefaultClientID, oauthtest.DefaultClientSecret}
	verifier := strings.Repeat("v", 43)

	code := authorizeCode(t, as, challengeOf(verifier), "mcp")
	exchange := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {"http://127.0.0.1/cb"}}

	type answer struct {
		Status int
		Error  string
	}
	get := func(status int, body map[string]any) answer {
		e, _ := body["error"].(string)
		return answer{status, e}
	}
	bad := url.Values{"grant_type": exchange["grant_type"], "code": exchange["code"], "redirect_uri": exchange["redirect_uri"], "code_verifier": {strings.Repeat("w", 43)}}
	tests := []struct {
		name string
		do   func() answer
		want answer
	}{
		{"wrong secret", func() answer {
			return get(postForm(t, tokenURL, url.Values{"grant_type": {"client_credentials"}}, oauthtest.DefaultClientID, "nope"))
		}, answer{401, "invalid_client"}},
		{"unknown scope", func() answer {
			return get(postForm(t, tokenURL, url.Values{"grant_type": {"client_credentials"}, "scope": {"root"}}, creds...))
		}, answer{400, "invalid_scope"}},
		{"unknown grant", func() answer {
			return get(postForm(t, tokenURL, url.Values{"grant_type": {"password"}}, creds...))
		}, answer{400, "unsupported_grant_type"}},
		{"PKCE verifier that does not match", func() answer { return get(postForm(t, tokenURL, bad, creds...)) }, answer{400, "invalid_grant"}},
		{"code used twice (the failed exchange used it)", func() answer {
			ok := url.Values{"grant_type": exchange["grant_type"], "code": exchange["code"], "redirect_uri": exchange["redirect_uri"], "code_verifier": {verifier}}
			return get(postForm(t, tokenURL, ok, creds...))
		}, answer{400, "invalid_grant"}},
		{"unknown refresh token", func() answer {
			return get(postForm(t, tokenURL, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"refresh-99"}}, creds...))
		}, answer{400, "invalid_grant"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.do()); diff != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
	if diff := cmp.Diff(oauthtest.AuthCounts{Authorizations: 1, Refusals: len(tests)}, as.Counts()); diff != "" {
		t.Errorf("AuthCounts after the refusals mismatch (-want +got):\n%s", diff)
	}

	// The good paths: a fresh code with the right verifier, then its
	// refresh token, then client credentials.
	code = authorizeCode(t, as, challengeOf(verifier), "mcp admin")
	status, body := postForm(t, tokenURL, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {"http://127.0.0.1/cb"}, "code_verifier": {verifier}}, creds...)
	if status != 200 || body["access_token"] != "access-1" || body["scope"] != "admin mcp" || body["refresh_token"] != "refresh-1" {
		t.Fatalf("code exchange = %d %v", status, body)
	}
	status, body = postForm(t, tokenURL, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"refresh-1"}}, creds...)
	if status != 200 || body["access_token"] != "access-2" {
		t.Fatalf("refresh = %d %v", status, body)
	}
	status, body = postForm(t, tokenURL, url.Values{"grant_type": {"client_credentials"}, "client_id": {oauthtest.DefaultClientID}, "client_secret": {oauthtest.DefaultClientSecret}})
	if status != 200 || body["access_token"] != "access-3" {
		t.Fatalf("client credentials (client_secret_post) = %d %v", status, body)
	}
	want := oauthtest.AuthCounts{Authorizations: 2, TokensIssued: 3, Refreshes: 1, Refusals: len(tests)}
	if diff := cmp.Diff(want, as.Counts()); diff != "" {
		t.Errorf("AuthCounts mismatch (-want +got):\n%s", diff)
	}

	// The authorization endpoint never redirects to a URI the client does
	// not own, and refuses a request without PKCE through the redirect.
	q := url.Values{"response_type": {"code"}, "client_id": {oauthtest.DefaultClientID}, "redirect_uri": {"https://evil.example/cb"}, "code_challenge": {"x"}, "code_challenge_method": {"S256"}}
	resp, err := noRedirect.Get(as.URL + "/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 || resp.Header.Get("Location") != "" {
		t.Errorf("authorize to a foreign redirect URI = %d, Location %q; want 400 and no redirect", resp.StatusCode, resp.Header.Get("Location"))
	}
	q = url.Values{"response_type": {"code"}, "client_id": {oauthtest.DefaultClientID}, "redirect_uri": {"http://127.0.0.1/cb"}}
	resp, err = noRedirect.Get(as.URL + "/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc, _ := resp.Location(); loc == nil || loc.Query().Get("error") != "invalid_request" || loc.Query().Get("code") != "" {
		t.Errorf("authorize without PKCE redirected to %v, want error=invalid_request and no code", loc)
	}
}
