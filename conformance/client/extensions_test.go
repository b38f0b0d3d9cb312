package main

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/mcptest/oauthtest"
)

// testTool is the suite's protected servers' tool, in a fake of this
// module's own.
var testTool = &fakeserver.Catalog{Name: "conformance", Tools: []fakeserver.Tool{{Name: "test-tool", Reply: fakeserver.Text("test")}}}

// runAuth runs scenario against a fake protected by as, with the suite's
// context cc, and returns the fake.
func runAuth(t *testing.T, scenario string, as *oauthtest.AuthServer, cc map[string]any) (*mcptest.Fake, error) {
	t.Helper()
	fake := mcptest.HTTP(t, &mcptest.HTTPOptions{Custom: testTool, Auth: &oauthtest.Protection{Server: as}})
	vars := map[string]string{envScenario: scenario}
	if cc != nil {
		data, _ := json.Marshal(cc)
		vars[envContext] = string(data)
	}
	return fake, run(t.Context(), []string{fake.HTTP().URL}, env(vars), quiet())
}

// The auth extensions' scenarios against this module's fake authorization
// server, which checks what the suite checks: the tool runs once, behind
// a DPoP-bound token with both servers' nonces, a workload's token, or an
// ID-JAG the IdP exchanged for the user's ID token.
func TestAuthExtensionScenarios(t *testing.T) {
	t.Run("auth/dpop-nonce", func(t *testing.T) {
		mcptest.LeakCheck(t)
		as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{RequireDPoP: true, DPoPNonce: true})
		fake, err := runAuth(t, "auth/dpop-nonce", as, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := as.Counts()
		if got.TokensIssued != 1 || got.NoncesIssued != 2 || got.DPoPRefusals != 0 || fake.Counts().Executions["test-tool"] != 1 {
			t.Errorf("counts %+v, %d runs: want 1 token, 2 nonces, no DPoP refusal, 1 run", got, fake.Counts().Executions["test-tool"])
		}
	})
	t.Run("auth/wif-jwt-bearer", func(t *testing.T) {
		mcptest.LeakCheck(t)
		as := oauthtest.NewAuthServer(t, nil)
		fake, err := runAuth(t, "auth/wif-jwt-bearer", as, map[string]any{"valid_jwt": as.IDToken("ci", as.URL, 0)})
		if err != nil {
			t.Fatal(err)
		}
		if got := as.Counts(); got.JWTBearerGrants != 1 || got.TokensIssued != 1 || fake.Counts().Executions["test-tool"] != 1 {
			t.Errorf("counts %+v: want 1 jwt-bearer grant, 1 token, 1 run", got)
		}
	})
	t.Run("auth/enterprise-managed-authorization", func(t *testing.T) {
		mcptest.LeakCheck(t)
		// The IdP knows the client by the same ID, as a public client:
		// the suite gives no secret for it.
		idp := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{Clients: []oauthtest.AuthClient{{ID: oauthtest.DefaultClientID}}})
		as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{Trust: []*oauthtest.AuthServer{idp}})
		fake, err := runAuth(t, "auth/enterprise-managed-authorization", as, map[string]any{
			"idp_id_token": idp.IDToken("alice", oauthtest.DefaultClientID, 0), "idp_issuer": idp.URL, "idp_client_id": oauthtest.DefaultClientID,
			"client_id": oauthtest.DefaultClientID, "client_secret": oauthtest.DefaultClientSecret,
		})
		if err != nil {
			t.Fatal(err)
		}
		if idp.Counts().TokenExchanges != 1 || as.Counts().JWTBearerGrants != 1 || fake.Counts().Executions["test-tool"] != 1 {
			t.Errorf("IdP %+v, AS %+v: want 1 exchange, 1 jwt-bearer grant, 1 run", idp.Counts(), as.Counts())
		}
	})
}

// A scenario whose context lacks what it needs fails at once, saying so.
func TestAuthExtensionScenariosNeedTheirContext(t *testing.T) {
	for _, sc := range []string{"auth/wif-jwt-bearer", "auth/enterprise-managed-authorization"} {
		err := run(t.Context(), []string{"http://127.0.0.1:1/mcp"}, env(map[string]string{envScenario: sc, envContext: "{}"}), quiet())
		if !errors.Is(err, errContext) {
			t.Errorf("%s: %v, want errContext", sc, err)
		}
	}
}
