package auth_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/leakcheck"
)

// authCounter is a handler that records the Authorization header of every
// request it receives.
type authCounter struct {
	mu   sync.Mutex // guards seen
	seen []string
}

func (c *authCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.seen = append(c.seen, r.Header.Get("Authorization"))
	c.mu.Unlock()
}

func (c *authCounter) headers() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.seen...)
}

func TestRoundTripperCredentialOnlyToOrigin(t *testing.T) {
	leakcheck.Check(t)
	other := &authCounter{}
	otherSrv := httptest.NewServer(other)
	t.Cleanup(otherSrv.Close)

	home := &authCounter{}
	homeSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		home.ServeHTTP(w, r)
		switch r.URL.Path {
		case "/307":
			http.Redirect(w, r, otherSrv.URL+"/x", http.StatusTemporaryRedirect)
		case "/308":
			http.Redirect(w, r, otherSrv.URL+"/x", http.StatusPermanentRedirect)
		case "/302":
			http.Redirect(w, r, otherSrv.URL+"/x", http.StatusFound)
		}
	}))
	t.Cleanup(homeSrv.Close)

	origin, err := auth.ParseOrigin(homeSrv.URL)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	// A plain client that follows every redirect: the round tripper alone
	// must keep the credential home.
	c := &http.Client{Transport: auth.NewRoundTripper(tr, origin, auth.Bearer(auth.NewToken("tok")))}

	for _, tc := range []struct{ method, path string }{
		{"POST", "/307"}, {"POST", "/308"}, {"GET", "/302"}, {"GET", "/307"},
	} {
		req, err := http.NewRequest(tc.method, homeSrv.URL+tc.path, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		// A header set by the caller is stripped too.
		req.Header.Set("Authorization", "Bearer caller-set")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.method, tc.path, err)
		}
		resp.Body.Close()
	}
	if diff := cmp.Diff([]string{"", "", "", ""}, other.headers()); diff != "" {
		t.Errorf("Authorization headers at the other origin mismatch (-want +got):\n%s", diff)
	}
	want := []string{"Bearer tok", "Bearer tok", "Bearer tok", "Bearer tok"}
	if diff := cmp.Diff(want, home.headers()); diff != "" {
		t.Errorf("Authorization headers at the home origin mismatch (-want +got):\n%s", diff)
	}
}

type failingSource struct{}

var errNoCredential = errors.New("no credential")

func (failingSource) Credential(context.Context, *http.Request) (auth.Token, error) {
	return auth.Token{}, errNoCredential
}

type emptySource struct{}

func (emptySource) Credential(context.Context, *http.Request) (auth.Token, error) {
	return auth.Token{}, nil
}

func TestRoundTripperSourceResults(t *testing.T) {
	leakcheck.Check(t)
	home := &authCounter{}
	srv := httptest.NewServer(home)
	t.Cleanup(srv.Close)
	origin, _ := auth.ParseOrigin(srv.URL)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)

	_, err := (&http.Client{Transport: auth.NewRoundTripper(tr, origin, failingSource{})}).Get(srv.URL)
	if !errors.Is(err, errNoCredential) {
		t.Errorf("Get with a failing source: error = %v, want errNoCredential", err)
	}
	resp, err := (&http.Client{Transport: auth.NewRoundTripper(tr, origin, emptySource{})}).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if diff := cmp.Diff([]string{""}, home.headers()); diff != "" {
		t.Errorf("headers mismatch (-want +got):\n%s", diff)
	}
}
