package auth_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"golang.org/x/oauth2"
)

// A token endpoint that answers 307 or 308 to another origin (another
// host, or the same host on another port, where Go keeps Authorization)
// receives nothing there: not the client secret (client_secret_basic,
// also with Issuer pinned; client_secret_post in the body Go would send
// again), not a private_key_jwt assertion, not a workload's JWT; and the
// evil origin's token never reaches the MCP server. The redirect fails
// with a *transport.RedirectError.
func TestTokenRequestFollowsNoRedirect(t *testing.T) {
	leakcheck.Check(t)
	for _, kind := range credKinds[:5] {
		for _, status := range []int{307, 308} {
			for _, where := range []string{"same host, other port", "other host"} {
				t.Run(fmt.Sprintf("%s/%d to %s", kind.name, status, where), func(t *testing.T) {
					if why := redirectCase(t, clientKinds[0], kind, status, where); why != "" {
						t.Error(why)
					}
				})
			}
		}
	}
}

// A pinned issuer is an origin: when the issuer's metadata URL redirects
// to another origin whose document claims the pinned issuer and names its
// own token endpoint, the secret does not go there. The redirect is
// refused; a transport that follows it by itself brings a document from
// another origin than the issuer's, which is refused too.
func TestPinnedIssuerIsAnOrigin(t *testing.T) {
	leakcheck.Check(t)
	for _, mc := range metadataCases[:2] {
		t.Run(mc.name, func(t *testing.T) {
			if why := runMetadataCase(t, clientKinds[0], mc); why != "" {
				t.Error(why)
			}
		})
	}
	t.Run("a transport that follows the redirect itself", func(t *testing.T) {
		ctx := testkit.Context(t)
		r := newASRig(t)
		asHost := strings.TrimPrefix(r.as.srv.URL, "http://")
		follows := roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if req.URL.Host == asHost && strings.HasPrefix(req.URL.Path, "/.well-known/") {
				u := *req.URL
				u.Host = "localhost:" + r.evil.port()
				to, _ := http.NewRequestWithContext(req.Context(), req.Method, u.String(), nil)
				return http.DefaultTransport.RoundTrip(to)
			}
			return http.DefaultTransport.RoundTrip(req)
		})
		src, err := auth.NewClientCredentials(&auth.ClientCredentialsConfig{ClientID: ccClientID, ClientSecret: auth.NewSecret(ccSecret),
			Issuer: r.as.srv.URL, HTTPClient: &http.Client{Transport: follows}})
		if err != nil {
			t.Fatal(err)
		}
		err = r.drive(ctx, src)
		if why := r.held(); why != "" {
			t.Error(why)
		}
		if !refusedBy(err, auth.RuleIssuer) {
			t.Errorf("error = %v, want one refused by RuleIssuer", err)
		}
		if n := r.evil.at("/token"); n != 0 {
			t.Errorf("%d token requests at the evil origin", n)
		}
	})
}

// insufficientScope returns a 403 insufficient_scope challenge for scopes.
func insufficientScope(scopes []string) *http.Response {
	h := http.Header{}
	h.Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+strings.Join(scopes, " ")+`"`)
	return &http.Response{StatusCode: http.StatusForbidden, Header: h, Body: io.NopCloser(strings.NewReader(""))}
}

// Step-up scopes accumulate up to MaxScopes: a challenge that brings the
// scopes to exactly MaxScopes is asked for; one that would bring one more
// is refused by RuleScopes and no token request. Forty
// challenges of two new scopes each stop where the bound is passed.
func TestStepUpScopesBounded(t *testing.T) {
	leakcheck.Check(t)
	scopes := func(from, n int) []string {
		var s []string
		for i := range n {
			s = append(s, fmt.Sprintf("s%d", from+i))
		}
		return s
	}
	t.Run("N and N+1", func(t *testing.T) {
		ctx := testkit.Context(t)
		as := newAuthServer(t, []string{"client_secret_basic"}, checkBasic)
		src, _ := auth.NewClientCredentials(&auth.ClientCredentialsConfig{ClientID: ccClientID, ClientSecret: auth.NewSecret(ccSecret), TokenURL: as.srv.URL + "/token"})
		req := httptest.NewRequest("POST", "http://mcp.example/mcp", nil)
		if err := src.Authorize(ctx, req, insufficientScope(scopes(0, auth.MaxScopes))); err != nil {
			t.Fatalf("a challenge for %d scopes: %v", auth.MaxScopes, err)
		}
		if got := strings.Fields(as.seen()[0].Form.Get("scope")); len(got) != auth.MaxScopes {
			t.Errorf("token request asked for %d scopes, want %d", len(got), auth.MaxScopes)
		}
		err := src.Authorize(ctx, req, insufficientScope([]string{"one-more"}))
		if !refusedBy(err, auth.RuleScopes) || !fromSource(err, "auth: client credentials: ") {
			t.Errorf("a challenge for scope %d: error = %v, want RuleScopes", auth.MaxScopes+1, err)
		}
		if n := len(as.seen()); n != 1 {
			t.Errorf("token endpoint saw %d requests, want 1 (none for the refused step-up)", n)
		}
	})
	t.Run("forty challenges", func(t *testing.T) {
		ctx := testkit.Context(t)
		as := newAuthServer(t, []string{"client_secret_basic"}, checkBasic)
		src, _ := auth.NewClientCredentials(&auth.ClientCredentialsConfig{ClientID: ccClientID, ClientSecret: auth.NewSecret(ccSecret),
			TokenURL: as.srv.URL + "/token", Scopes: []string{"base"}})
		req := httptest.NewRequest("POST", "http://mcp.example/mcp", nil)
		refused := 0
		for i := range 40 {
			if err := src.Authorize(ctx, req, insufficientScope(scopes(2*i, 2))); refusedBy(err, auth.RuleScopes) {
				refused++
			}
		}
		most := 0
		for _, r := range as.seen() {
			most = max(most, len(strings.Fields(r.Form.Get("scope"))))
		}
		if most > auth.MaxScopes || refused != 40-(auth.MaxScopes-1)/2 {
			t.Errorf("most scopes asked for %d, refused %d step-ups; want at most %d and %d", most, refused, auth.MaxScopes, 40-(auth.MaxScopes-1)/2)
		}
	})
}

// The go-sdk's AuthorizationCodeHandler unions the scopes of each step-up
// with those granted before, without a bound. Through auth.OAuth the
// scopes its challenges ask for are counted: a challenge that brings them
// to exactly MaxScopes reaches the handler; one more scope is refused with
// RuleScopes before the handler runs. Forty challenges of two new
// scopes each reach the handler 32 times.
func TestOAuthStepUpScopesBounded(t *testing.T) {
	leakcheck.Check(t)
	scopes := func(from, n int) []string {
		var s []string
		for i := range n {
			s = append(s, fmt.Sprintf("s%d", from+i))
		}
		return s
	}
	ctx := testkit.Context(t)
	req := httptest.NewRequest("POST", "http://mcp.example/mcp", nil)
	ts := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "at"})
	t.Run("N and N+1", func(t *testing.T) {
		h := &fakeHandler{ts: ts, next: ts}
		src := auth.NewOAuth(h)
		if err := src.Authorize(ctx, req, insufficientScope(scopes(0, auth.MaxScopes))); err != nil {
			t.Fatalf("a challenge for %d scopes: %v", auth.MaxScopes, err)
		}
		err := src.Authorize(ctx, req, insufficientScope([]string{"one-more"}))
		if !refusedBy(err, auth.RuleScopes) {
			t.Errorf("a challenge for scope %d: error = %v, want RuleScopes", auth.MaxScopes+1, err)
		}
		if h.authorized != 1 {
			t.Errorf("the handler ran %d times, want 1 (not for the refused step-up)", h.authorized)
		}
	})
	t.Run("forty challenges", func(t *testing.T) {
		h := &fakeHandler{ts: ts, next: ts}
		src := auth.NewOAuth(h)
		refused := 0
		for i := range 40 {
			if err := src.Authorize(ctx, req, insufficientScope(scopes(2*i, 2))); refusedBy(err, auth.RuleScopes) {
				refused++
			}
		}
		if h.authorized != auth.MaxScopes/2 || refused != 40-auth.MaxScopes/2 {
			t.Errorf("the handler ran %d times, %d step-ups refused; want %d and %d", h.authorized, refused, auth.MaxScopes/2, 40-auth.MaxScopes/2)
		}
	})
}

// typedSource is a go-sdk handler whose token has type typ.
func typedSource(typ string) *auth.OAuth {
	return auth.NewOAuth(&fakeHandler{ts: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "at", TokenType: typ})})
}

// A token whose token_type is neither Bearer (in any case, or none) nor
// DPoP for a client holding a key is refused by RuleTokenType, from a
// go-sdk handler as from a source of this package (see
// TestHostileAuthorizationServerMatrix); the error shows the type's
// control characters escaped.
func TestTokenTypeRefused(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		typ string
		ok  bool
	}{
		{"Bearer", true}, {"bearer", true}, {"BEARER", true}, {"", true},
		{"mac", false}, {"DPoP", false}, {"Bearer ", false}, {"Bearer\x1b[2J", false},
	} {
		tok, err := typedSource(tc.typ).Credential(context.Background(), nil)
		switch {
		case tc.ok && (err != nil || tok.Reveal() != "at"):
			t.Errorf("token_type %q: %v, %v; want the token", tc.typ, tok, err)
		case !tc.ok && (!refusedBy(err, auth.RuleTokenType) || !tok.IsZero()):
			t.Errorf("token_type %q: %v, %v; want RuleTokenType", tc.typ, tok, err)
		case err != nil && strings.ContainsRune(err.Error(), 0x1b):
			t.Errorf("token_type %q: the error shows an escape raw: %q", tc.typ, err)
		}
	}
}

// CheckRedirect follows a GET, HEAD or DELETE within the first request's
// origin up to transport.MaxRedirects times and refuses the next; it
// refuses every redirect of another method, even within the origin, and
// every redirect to another origin (port, scheme, host, user information).
func TestCheckRedirect(t *testing.T) {
	leakcheck.Check(t)
	req := func(method, rawURL string) *http.Request {
		u, _ := url.Parse(rawURL)
		return &http.Request{Method: method, URL: u, Response: &http.Response{StatusCode: 307}}
	}
	chain := func(n int, method string) []*http.Request {
		var via []*http.Request
		for range n {
			via = append(via, req(method, "https://as.example/a"))
		}
		return via
	}
	refused := func(method, to string, err error) *transport.RedirectError {
		return &transport.RedirectError{Transport: "auth", Method: method, Status: 307, To: to, Err: err}
	}
	for _, tc := range []struct {
		name string
		to   string
		via  []*http.Request
		want *transport.RedirectError // nil: followed
	}{
		{"GET within the origin", "https://as.example/b", chain(1, "GET"), nil},
		{"HEAD within the origin", "https://as.example/b", chain(1, "HEAD"), nil},
		{"DELETE within the origin", "https://as.example/b", chain(1, "DELETE"), nil},
		{"GET at the bound", "https://as.example/b", chain(transport.MaxRedirects, "GET"), nil},
		{"GET past the bound", "https://as.example/b", chain(transport.MaxRedirects+1, "GET"),
			refused("GET", "https://as.example", &transport.PolicyError{Rule: transport.RuleTooManyRedirects})},
		{"POST within the origin", "https://as.example/b", chain(1, "POST"),
			refused("POST", "https://as.example", &transport.PolicyError{Rule: transport.RuleRedirectedPOST})},
		{"PUT within the origin", "https://as.example/b", chain(1, "PUT"),
			refused("PUT", "https://as.example", &transport.PolicyError{Rule: transport.RuleRedirectedPOST})},
		{"PATCH to another origin", "https://evil.example/b", chain(1, "PATCH"),
			refused("PATCH", "https://evil.example", &transport.PolicyError{Rule: transport.RuleRedirectedPOST})},
		{"GET to another port", "https://as.example:8443/b", chain(1, "GET"),
			refused("GET", "https://as.example:8443", &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect})},
		{"GET to plain http", "http://as.example/b", chain(1, "GET"),
			refused("GET", "http://as.example", &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect})},
		{"GET to a look-alike", "https://as.example.evil.example/b", chain(1, "GET"),
			refused("GET", "https://as.example.evil.example", &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect})},
		{"GET with user information", "https://as.example@evil.example/b", chain(1, "GET"),
			refused("GET", "null", &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect})},
	} {
		err := auth.CheckRedirect(req(tc.via[0].Method, tc.to), tc.via)
		got, ok := err.(*transport.RedirectError)
		if err != nil && !ok {
			t.Errorf("%s: CheckRedirect returned %T %v, want a *transport.RedirectError", tc.name, err, err)
		}
		if diff := cmp.Diff(redirectValue(tc.want), redirectValue(got), cmpopts.EquateErrors()); diff != "" {
			t.Errorf("%s: CheckRedirect mismatch (-want +got):\n%s", tc.name, diff)
		}
	}
}

// redirectValue returns *e, or the zero RedirectError for nil, for cmp.Diff to
// compare field by field.
func redirectValue(e *transport.RedirectError) transport.RedirectError {
	if e == nil {
		return transport.RedirectError{}
	}
	return *e
}
