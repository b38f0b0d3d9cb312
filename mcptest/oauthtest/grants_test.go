package oauthtest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/mcptest/oauthtest"
)

func workloadIdentity(t testing.TB, cfg *auth.WorkloadIdentityConfig) *auth.WorkloadIdentity {
	t.Helper()
	w, err := auth.NewWorkloadIdentity(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func writeFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A workload authenticates with its own token from a file, with no client
// and no secret: one jwt-bearer grant, one token, every call served.
func TestWorkloadIdentity(t *testing.T) {
	mcptest.LeakCheck(t)
	as := oauthtest.NewAuthServer(t, nil)
	file := filepath.Join(t.TempDir(), "token")
	writeFile(t, file, as.IDToken("ci-job", as.URL, 0)+"\n")
	fake := protectedFake(t, as, nil, workloadIdentity(t, &auth.WorkloadIdentityConfig{TokenFile: file}))
	c := fake.Client(nil)
	for range 2 {
		if _, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "x"}); err != nil {
			t.Fatal(err)
		}
	}
	want := oauthtest.AuthCounts{TokensIssued: 1, ResourceRefusals: 1, JWTBearerGrants: 1}
	if diff := cmp.Diff(want, as.Counts()); diff != "" {
		t.Errorf("AuthCounts mismatch (-want +got):\n%s", diff)
	}
}

// The workload's token is read again for each token request: a rotated
// file is what the next grant presents. Tokens live under ten seconds, so
// every request needs a new one. A token the server refused (invalid_grant:
// another audience) is not presented again while the file holds it; the
// next rotation is.
func TestWorkloadIdentityRotatedFile(t *testing.T) {
	mcptest.LeakCheck(t)
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{TokenTTL: 5e9})
	file := filepath.Join(t.TempDir(), "token")
	writeFile(t, file, as.IDToken("job-1", as.URL, 0))
	fake := protectedFake(t, as, nil, workloadIdentity(t, &auth.WorkloadIdentityConfig{TokenFile: file}))
	c := fake.Client(nil)
	call := func() error {
		_, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "x"})
		return err
	}
	if err := call(); err != nil {
		t.Fatal(err)
	}
	grants := func() int { return as.Counts().JWTBearerGrants }
	g0 := grants()

	writeFile(t, file, as.IDToken("job-2", "https://another.example", 0))
	err := call()
	var ge *auth.GrantError
	if !errors.As(err, &ge) || ge.Code != "invalid_grant" || !strings.Contains(err.Error(), "auth: workload identity: ") {
		t.Fatalf("call with the rotated (wrong audience) token: %v, want a GrantError invalid_grant", err)
	}
	// The call never left: its outcome is known, and the failure is auth's
	// (the token request made within the call's context is not the call).
	var ce *client.Error
	if errors.Is(err, client.ErrOutcomeUnknown) || !errors.As(err, &ce) || ce.Class != client.ClassAuth {
		t.Errorf("call error = %v, want ClassAuth with its outcome known", err)
	}
	if g := grants(); g != g0+1 {
		t.Errorf("the rotated token: %d jwt-bearer grants, want %d (it was read and presented once)", g, g0+1)
	}
	if err := call(); !errors.As(err, &ge) || ge.Code != "invalid_grant" {
		t.Errorf("again with the same file: %v, want the same GrantError", err)
	}
	if g := grants(); g != g0+1 {
		t.Errorf("the refused token was presented again: %d grants, want %d", g, g0+1)
	}

	writeFile(t, file, as.IDToken("job-3", as.URL, 0))
	if err := call(); err != nil {
		t.Fatalf("call with the next rotation: %v", err)
	}
	if g := grants(); g != g0+2 {
		t.Errorf("the next rotation: %d grants, want %d", g, g0+2)
	}
}

// invalid_grant, invalid_scope and unauthorized_client fail the connection
// typed, after one token request: not retried, and no other grant tried,
// on the next Connect either, and no initialize sent after the refused
// server/discover: one refusal at the resource per Connect. The
// workload's token comes from a function that hands out the same token
// (a CI token until it expires); invalid_scope and unauthorized_client
// stand for a new token too.
func TestGrantRefusalsNotRetried(t *testing.T) {
	for _, tc := range []struct {
		code  string
		fresh bool // the function mints a new token each time
	}{{"invalid_grant", false}, {"invalid_scope", false}, {"unauthorized_client", false}, {"invalid_scope", true}, {"unauthorized_client", true}} {
		code := tc.code
		t.Run(fmt.Sprintf("%s/fresh=%v", code, tc.fresh), func(t *testing.T) {
			mcptest.LeakCheck(t)
			as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{RefuseGrant: code})
			tok := as.IDToken("ci-job", as.URL, 0)
			src := workloadIdentity(t, &auth.WorkloadIdentityConfig{Token: func(context.Context) (auth.Token, error) {
				if tc.fresh {
					return auth.NewToken(as.IDToken("ci-job", as.URL, 0)), nil
				}
				return auth.NewToken(tok), nil
			}})
			fake := protectedFake(t, as, nil, src)
			for attempt := range 2 {
				_, err := client.Connect(t.Context(), fake.Definition(), nil)
				var ge *auth.GrantError
				var ce *client.Error
				if !errors.As(err, &ge) || ge.Code != code || ge.Grant != "urn:ietf:params:oauth:grant-type:jwt-bearer" || !errors.As(err, &ce) || ce.Class != client.ClassAuth {
					t.Fatalf("Connect %d: %v, want a ClassAuth error wrapping a GrantError %s", attempt, err, code)
				}
			}
			want := oauthtest.AuthCounts{Refusals: 1, ResourceRefusals: 2, JWTBearerGrants: 1}
			if diff := cmp.Diff(want, as.Counts()); diff != "" {
				t.Errorf("AuthCounts mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// Enterprise-managed authorization: the user's ID token from the IdP is
// exchanged there for an ID-JAG, which the MCP server's authorization
// server (trusting the IdP) takes with the JWT-bearer grant.
func TestEnterprise(t *testing.T) {
	mcptest.LeakCheck(t)
	idp := oauthtest.NewAuthServer(t, nil)
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{Trust: []*oauthtest.AuthServer{idp}})
	src, err := auth.NewEnterprise(&auth.EnterpriseConfig{
		IDToken: func(context.Context) (auth.Token, error) {
			return auth.NewToken(idp.IDToken("alice", oauthtest.DefaultClientID, 0)), nil
		},
		IdPIssuer: idp.URL, IdPClientID: oauthtest.DefaultClientID, IdPClientSecret: auth.NewSecret(oauthtest.DefaultClientSecret),
		ClientID: oauthtest.DefaultClientID, ClientSecret: auth.NewSecret(oauthtest.DefaultClientSecret),
	})
	if err != nil {
		t.Fatal(err)
	}
	fake := protectedFake(t, as, nil, src)
	c := fake.Client(nil)
	if _, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "x"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(oauthtest.AuthCounts{TokenExchanges: 1}, idp.Counts()); diff != "" {
		t.Errorf("IdP AuthCounts mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(oauthtest.AuthCounts{TokensIssued: 1, ResourceRefusals: 1, JWTBearerGrants: 1}, as.Counts()); diff != "" {
		t.Errorf("authorization server AuthCounts mismatch (-want +got):\n%s", diff)
	}
}

// An ID-JAG is taken only from the client it names, by a server that
// trusts its issuer; a refused token exchange fails typed, as the token
// exchange grant.
func TestEnterpriseRefusals(t *testing.T) {
	mcptest.LeakCheck(t)
	idp := oauthtest.NewAuthServer(t, nil)
	for _, tc := range []struct {
		name  string
		as    *oauthtest.AuthServerOptions
		idp   *oauthtest.AuthServer
		grant string
	}{
		{"untrusted IdP", &oauthtest.AuthServerOptions{}, idp, "urn:ietf:params:oauth:grant-type:jwt-bearer"},
		{"refused exchange", &oauthtest.AuthServerOptions{Trust: []*oauthtest.AuthServer{idp}}, oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{RefuseGrant: "invalid_grant"}), "urn:ietf:params:oauth:grant-type:token-exchange"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := oauthtest.NewAuthServer(t, tc.as)
			src, err := auth.NewEnterprise(&auth.EnterpriseConfig{
				IDToken: func(context.Context) (auth.Token, error) {
					return auth.NewToken(tc.idp.IDToken("alice", oauthtest.DefaultClientID, 0)), nil
				},
				IdPIssuer: tc.idp.URL, IdPClientID: oauthtest.DefaultClientID, IdPClientSecret: auth.NewSecret(oauthtest.DefaultClientSecret),
				ClientID: oauthtest.DefaultClientID, ClientSecret: auth.NewSecret(oauthtest.DefaultClientSecret),
			})
			if err != nil {
				t.Fatal(err)
			}
			fake := protectedFake(t, as, nil, src)
			_, err = client.Connect(t.Context(), fake.Definition(), nil)
			var ge *auth.GrantError
			if !errors.As(err, &ge) || ge.Code != "invalid_grant" || ge.Grant != tc.grant || !strings.Contains(err.Error(), "auth: enterprise-managed authorization: ") {
				t.Fatalf("Connect: %v, want enterprise's error, a GrantError invalid_grant of %s", err, tc.grant)
			}
			if n := as.Counts().TokensIssued; n != 0 {
				t.Errorf("%d tokens issued", n)
			}
		})
	}
}

// Issuer pins the authorization server for every source without a user:
// discovery that leads elsewhere fails before the secret, the workload's
// token or the ID token is sent anywhere (no request at either token
// endpoint).
func TestIssuerPinnedForEverySource(t *testing.T) {
	const pinned = "https://login.example.com"
	idp := oauthtest.NewAuthServer(t, nil)
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{Trust: []*oauthtest.AuthServer{idp}})
	idToken := func(context.Context) (auth.Token, error) {
		return auth.NewToken(idp.IDToken("alice", oauthtest.DefaultClientID, 0)), nil
	}
	sources := map[string]func() (auth.Source, error){
		"client credentials": func() (auth.Source, error) {
			return auth.NewClientCredentials(&auth.ClientCredentialsConfig{ClientID: oauthtest.DefaultClientID, ClientSecret: auth.NewSecret(oauthtest.DefaultClientSecret), Issuer: pinned})
		},
		"workload identity": func() (auth.Source, error) {
			return auth.NewWorkloadIdentity(&auth.WorkloadIdentityConfig{Token: idToken, Issuer: pinned})
		},
		"enterprise": func() (auth.Source, error) {
			return auth.NewEnterprise(&auth.EnterpriseConfig{IDToken: idToken, IdPIssuer: idp.URL, IdPClientID: oauthtest.DefaultClientID,
				IdPClientSecret: auth.NewSecret(oauthtest.DefaultClientSecret), ClientID: oauthtest.DefaultClientID, Issuer: pinned})
		},
	}
	for name, mk := range sources {
		t.Run(name, func(t *testing.T) {
			mcptest.LeakCheck(t)
			src, err := mk()
			if err != nil {
				t.Fatal(err)
			}
			fake := protectedFake(t, as, nil, src)
			before, idpBefore := as.Counts(), idp.Counts()
			if _, err := client.Connect(t.Context(), fake.Definition(), nil); !isRefused(err, auth.RuleIssuer) {
				t.Fatalf("Connect: %v, want a *auth.PolicyError of RuleIssuer", err)
			}
			after, idpAfter := as.Counts(), idp.Counts()
			if after.TokensIssued != before.TokensIssued || after.Refusals != before.Refusals || after.JWTBearerGrants != before.JWTBearerGrants || idpAfter != idpBefore {
				t.Errorf("token requests were sent: before %+v %+v, after %+v %+v", before, idpBefore, after, idpAfter)
			}
		})
	}
}

// An enterprise source renews as tokens expire: the whole chain again (the
// ID token exchanged anew, the new ID-JAG presented), for each token.
// Tokens live under ten seconds, so every request needs a new one.
func TestEnterpriseRenews(t *testing.T) {
	mcptest.LeakCheck(t)
	idp := oauthtest.NewAuthServer(t, nil)
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{Trust: []*oauthtest.AuthServer{idp}, TokenTTL: 5e9})
	src, err := auth.NewEnterprise(&auth.EnterpriseConfig{
		IDToken: func(context.Context) (auth.Token, error) {
			return auth.NewToken(idp.IDToken("alice", oauthtest.DefaultClientID, 0)), nil
		},
		IdPIssuer: idp.URL, IdPClientID: oauthtest.DefaultClientID, IdPClientSecret: auth.NewSecret(oauthtest.DefaultClientSecret),
		ClientID: oauthtest.DefaultClientID, ClientSecret: auth.NewSecret(oauthtest.DefaultClientSecret),
	})
	if err != nil {
		t.Fatal(err)
	}
	c := protectedFake(t, as, nil, src).Client(nil)
	before := as.Counts().TokensIssued
	for range 2 {
		if _, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "x"}); err != nil {
			t.Fatal(err)
		}
	}
	issued := as.Counts().TokensIssued - before
	if issued < 2 || idp.Counts().TokenExchanges != as.Counts().JWTBearerGrants {
		t.Errorf("%d tokens for the 2 calls, %d exchanges for %d grants: want a new chain for each token", issued, idp.Counts().TokenExchanges, as.Counts().JWTBearerGrants)
	}
}

// isRefused reports whether err is an *auth.PolicyError of rule r.
func isRefused(err error, r auth.PolicyRule) bool {
	pe, ok := errors.AsType[*auth.PolicyError](err)
	return ok && pe.Rule == r
}
