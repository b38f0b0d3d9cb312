package auth_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/leakcheck"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// fakeHandler is a go-sdk OAuthHandler whose token source and authorization
// result are set by the test.
type fakeHandler struct {
	ts         oauth2.TokenSource
	authorized int
	next       oauth2.TokenSource
}

func (h *fakeHandler) TokenSource(context.Context) (oauth2.TokenSource, error) { return h.ts, nil }

func (h *fakeHandler) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	resp.Body.Close()
	h.authorized++
	if h.next == nil {
		return errors.New("denied")
	}
	h.ts = h.next
	return nil
}

type errTokenSource struct{ err error }

func (s errTokenSource) Token() (*oauth2.Token, error) { return nil, s.err }

func TestOAuthCredential(t *testing.T) {
	leakcheck.Check(t)
	ctx := context.Background()
	h := &fakeHandler{}
	src := auth.NewOAuth(h)
	if src.Handler() != sdkauth.OAuthHandler(h) {
		t.Error("Handler() does not return the wrapped handler")
	}

	// No token yet: the request goes without one.
	tok, err := src.Credential(ctx, nil)
	if err != nil || !tok.IsZero() {
		t.Fatalf("Credential before authorization = %v, %v; want zero, nil", tok, err)
	}

	// A refused refresh (invalid_grant) also yields no credential, so that
	// the server's 401 can trigger the flow again.
	h.ts = errTokenSource{&oauth2.RetrieveError{ErrorCode: "invalid_grant"}}
	if tok, err := src.Credential(ctx, nil); err != nil || !tok.IsZero() {
		t.Fatalf("Credential after invalid_grant = %v, %v; want zero, nil", tok, err)
	}
	// Any other token error is an error.
	h.ts = errTokenSource{errors.New("network down")}
	if _, err := src.Credential(ctx, nil); err == nil {
		t.Fatal("Credential with a failing token source: no error")
	}

	// Authorize delegates; afterwards the new token is used.
	h.ts = nil
	h.next = oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "fresh"})
	resp := &http.Response{StatusCode: 401, Body: io.NopCloser(strings.NewReader(""))}
	if err := src.Authorize(ctx, &http.Request{}, resp); err != nil {
		t.Fatal(err)
	}
	tok, err = src.Credential(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("fresh", tok.Reveal()); diff != "" {
		t.Errorf("token after Authorize mismatch (-want +got):\n%s", diff)
	}

	// A failed flow is an error.
	h.next = nil
	if err := src.Authorize(ctx, &http.Request{}, resp); err == nil {
		t.Error("Authorize with a refusing handler: no error")
	}
	if h.authorized != 2 {
		t.Errorf("handler authorized %d times, want 2", h.authorized)
	}
}

func TestNewAuthorizationCode(t *testing.T) {
	leakcheck.Check(t)
	if _, err := auth.NewAuthorizationCode(nil); err == nil {
		t.Error("NewAuthorizationCode(nil): no error")
	}
	src, err := auth.NewAuthorizationCode(&sdkauth.AuthorizationCodeHandlerConfig{
		PreregisteredClient: &oauthex.ClientCredentials{ClientID: "looprig"},
		RedirectURL:         "http://localhost:9999/callback",
		AuthorizationCodeFetcher: func(context.Context, *sdkauth.AuthorizationArgs) (*sdkauth.AuthorizationResult, error) {
			return nil, errors.New("no browser in tests")
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var _ auth.Authorizer = src
	if tok, err := src.Credential(context.Background(), nil); err != nil || !tok.IsZero() {
		t.Errorf("Credential before any flow = %v, %v; want zero, nil", tok, err)
	}
}
