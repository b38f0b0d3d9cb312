package auth_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/leakcheck"
)

// formServer is a token endpoint that records each request's form and
// Basic credentials and answers with answer(form).
type formServer struct {
	srv    *httptest.Server
	mu     sync.Mutex // guards forms
	forms  []url.Values
	basics []string
}

func newFormServer(t *testing.T, answer func(url.Values) any) *formServer {
	t.Helper()
	fs := &formServer{}
	fs.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		u, p, _ := r.BasicAuth()
		fs.mu.Lock()
		fs.forms = append(fs.forms, r.PostForm)
		fs.basics = append(fs.basics, u+":"+p)
		fs.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(answer(r.PostForm))
	}))
	t.Cleanup(fs.srv.Close)
	return fs
}

func (fs *formServer) seen() ([]url.Values, []string) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return append([]url.Values(nil), fs.forms...), append([]string(nil), fs.basics...)
}

func bearerAnswer(url.Values) any {
	return map[string]any{"access_token": "tok", "token_type": "Bearer", "expires_in": 3600}
}

// The JWT-bearer grant of a workload: grant_type, the file's token
// (trimmed) as the assertion, the resource and scopes, client_id only when
// configured, and no secret anywhere.
func TestWorkloadIdentityRequest(t *testing.T) {
	leakcheck.Check(t)
	fs := newFormServer(t, bearerAnswer)
	file := filepath.Join(t.TempDir(), "token")
	os.WriteFile(file, []byte("  workload.jwt.value\n"), 0o600)
	for _, clientID := range []string{"", "ci"} {
		src, err := auth.NewWorkloadIdentity(&auth.WorkloadIdentityConfig{
			TokenFile: file, ClientID: clientID, TokenURL: fs.srv.URL + "/token", Resource: "https://mcp.example/mcp", Scopes: []string{"a", "b"},
		})
		if err != nil {
			t.Fatal(err)
		}
		tok, err := src.Credential(t.Context(), nil)
		if err != nil || tok.Reveal() != "tok" {
			t.Fatalf("Credential = %v, %v", tok.Reveal(), err)
		}
	}
	forms, basics := fs.seen()
	want := url.Values{
		"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {"workload.jwt.value"},
		"resource": {"https://mcp.example/mcp"}, "scope": {"a b"},
	}
	if diff := cmp.Diff(want, forms[0]); diff != "" {
		t.Errorf("form without a client ID mismatch (-want +got):\n%s", diff)
	}
	want.Set("client_id", "ci")
	if diff := cmp.Diff(want, forms[1]); diff != "" {
		t.Errorf("form with a client ID mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{":", ":"}, basics); diff != "" {
		t.Errorf("Basic credentials sent (-want +got):\n%s", diff)
	}
}

// The token file is bounded: 64 KiB is presented, a byte more is refused
// before any request; a missing or blank file is an error too.
func TestWorkloadIdentityTokenFileBound(t *testing.T) {
	leakcheck.Check(t)
	fs := newFormServer(t, bearerAnswer)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		data string // "" with missing: no file
		ok   bool
	}{
		{"64 KiB", strings.Repeat("a", 64<<10), true},
		{"64 KiB and a byte", strings.Repeat("a", 64<<10+1), false},
		{"blank", " \n", false},
		{"missing", "", false},
	} {
		file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
		if tc.data != "" {
			os.WriteFile(file, []byte(tc.data), 0o600)
		}
		src, _ := auth.NewWorkloadIdentity(&auth.WorkloadIdentityConfig{TokenFile: file, TokenURL: fs.srv.URL})
		before, _ := fs.seen()
		_, err := src.Credential(t.Context(), nil)
		after, _ := fs.seen()
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case !tc.ok && (!fromSource(err, "auth: workload identity: ") || len(after) != len(before)):
			t.Errorf("%s: error %v after %d requests, want workload identity's error and none", tc.name, err, len(after)-len(before))
		}
	}
}

// Enterprise-managed authorization on the wire: the token exchange at the
// IdP (the ID token as subject_token, an ID-JAG asked for, audience the
// authorization server's issuer, resource the MCP server's, the IdP client
// in the form), then the JWT-bearer grant with the ID-JAG at the
// authorization server, the client authenticated with Basic.
func TestEnterpriseRequests(t *testing.T) {
	leakcheck.Check(t)
	idp := newFormServer(t, func(url.Values) any {
		return map[string]any{"access_token": "the.id.jag", "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A", "expires_in": 300}
	})
	as := newFormServer(t, bearerAnswer)
	src, err := auth.NewEnterprise(&auth.EnterpriseConfig{
		IDToken:     func(context.Context) (auth.Token, error) { return auth.NewToken("the.id.token"), nil },
		IdPTokenURL: idp.srv.URL + "/token", IdPClientID: "idp-client", IdPClientSecret: auth.NewSecret("idp-secret"),
		ClientID: "mcp-client", ClientSecret: auth.NewSecret("mcp-secret"),
		TokenURL: as.srv.URL + "/token", Issuer: "https://as.example", Resource: "https://mcp.example/mcp",
	})
	if err != nil {
		t.Fatal(err)
	}
	if tok, err := src.Credential(t.Context(), nil); err != nil || tok.Reveal() != "tok" {
		t.Fatalf("Credential = %v, %v", tok.Reveal(), err)
	}
	forms, _ := idp.seen()
	if len(forms) != 1 {
		t.Fatalf("the IdP saw %d requests, want 1", len(forms))
	}
	f := forms[0]
	for k, v := range map[string]string{
		"grant_type": "urn:ietf:params:oauth:grant-type:token-exchange", "subject_token": "the.id.token",
		"subject_token_type": "urn:ietf:params:oauth:token-type:id_token", "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
		"audience": "https://as.example", "resource": "https://mcp.example/mcp", "client_id": "idp-client", "client_secret": "idp-secret",
	} {
		if f.Get(k) != v {
			t.Errorf("token exchange %s = %q, want %q", k, f.Get(k), v)
		}
	}
	forms, basics := as.seen()
	want := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {"the.id.jag"}, "resource": {"https://mcp.example/mcp"}}
	if len(forms) != 1 || !cmp.Equal(want, forms[0]) || basics[0] != "mcp-client:mcp-secret" {
		t.Errorf("JWT-bearer grant: %v with Basic %v, want %v with mcp-client:mcp-secret", forms, basics, want)
	}
}

func TestNewWorkloadIdentityAndEnterpriseValidate(t *testing.T) {
	tok := func(context.Context) (auth.Token, error) { return auth.NewToken("x"), nil }
	for name, cfg := range map[string]*auth.WorkloadIdentityConfig{
		"nil":           nil,
		"no token":      {},
		"both":          {TokenFile: "f", Token: tok},
		"bad token url": {TokenFile: "f", TokenURL: "/token"},
		"bad issuer":    {TokenFile: "f", Issuer: "login"},
	} {
		if _, err := auth.NewWorkloadIdentity(cfg); !errors.Is(err, auth.ErrInvalidArgument) || !fromSource(err, "auth: workload identity: ") {
			t.Errorf("workload %s: error = %v, want ErrInvalidArgument from workload identity", name, err)
		}
	}
	good := auth.EnterpriseConfig{IDToken: tok, IdPIssuer: "https://idp.example", IdPClientID: "i", ClientID: "c"}
	edit := func(f func(*auth.EnterpriseConfig)) *auth.EnterpriseConfig {
		c := good
		f(&c)
		return &c
	}
	for name, cfg := range map[string]*auth.EnterpriseConfig{
		"nil":           nil,
		"no ID token":   edit(func(c *auth.EnterpriseConfig) { c.IDToken = nil }),
		"two ID tokens": edit(func(c *auth.EnterpriseConfig) { c.IDTokenFile = "f" }),
		"no IdP":        edit(func(c *auth.EnterpriseConfig) { c.IdPIssuer = "" }),
		"bad IdP":       edit(func(c *auth.EnterpriseConfig) { c.IdPIssuer = "idp" }),
		"no IdP client": edit(func(c *auth.EnterpriseConfig) { c.IdPClientID = "" }),
		"no client":     edit(func(c *auth.EnterpriseConfig) { c.ClientID = "" }),
		"token URL, no issuer": edit(func(c *auth.EnterpriseConfig) {
			c.TokenURL, c.Resource = "https://as.example/token", "https://mcp.example"
		}),
		"token URL, no resource": edit(func(c *auth.EnterpriseConfig) {
			c.TokenURL, c.Issuer = "https://as.example/token", "https://as.example"
		}),
		"bad token URL": edit(func(c *auth.EnterpriseConfig) {
			c.TokenURL, c.Issuer, c.Resource = "/token", "https://as.example", "https://mcp.example"
		}),
		"IdP token URL not a URL ": edit(func(c *auth.EnterpriseConfig) { c.IdPTokenURL = "token" }),
	} {
		if _, err := auth.NewEnterprise(cfg); !errors.Is(err, auth.ErrInvalidArgument) || !fromSource(err, "auth: enterprise-managed authorization: ") {
			t.Errorf("enterprise %s: error = %v, want ErrInvalidArgument from enterprise", name, err)
		}
	}
	if _, err := auth.NewEnterprise(&good); err != nil {
		t.Errorf("the good config: %v", err)
	}
}
