package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/looprig/mcp/auth"
)

// The auth extensions' scenarios, each run by its own function: DPoP
// (SEP-1932, with and without the servers' nonces), workload identity
// federation (SEP-1933) and enterprise-managed authorization (SEP-990).
func init() {
	scenarios["auth/dpop"] = scenario{run: dpopFlow}
	scenarios["auth/dpop-nonce"] = scenario{run: dpopFlow}
	scenarios["auth/wif-jwt-bearer"] = scenario{run: workloadIdentity}
	scenarios["auth/enterprise-managed-authorization"] = scenario{run: enterprise}
}

// errContext is returned when the suite's context lacks what a scenario
// needs.
var errContext = errors.New("the scenario's context lacks a value")

// contextString returns the context's string at name, or errContext.
func (r *runner) contextString(name string) (string, error) {
	v, _ := r.context[name].(string)
	if v == "" {
		return "", fmt.Errorf("%w: %s", errContext, name)
	}
	return v, nil
}

// dpopFlow is the authorization code flow of oauthFlow with a fresh DPoP
// key (auth.NewDPoPKey): the code exchange carries a proof, the token the
// authorization server binds to the key is sent as "Authorization: DPoP",
// each request with a proof of its own, and a use_dpop_nonce from either
// server is answered by one retry with its nonce.
func dpopFlow(ctx context.Context, r *runner) error {
	key, err := auth.NewDPoPKey(nil)
	if err != nil {
		return err
	}
	return authorizationCode(ctx, r, key.Client(nil))
}

// workloadIdentity presents the workload's JWT the suite hands it
// (valid_jwt) with the JWT-bearer grant, at the token endpoint discovered
// from the server's 401; no client secret.
func workloadIdentity(ctx context.Context, r *runner) error {
	jwt, err := r.contextString("valid_jwt")
	if err != nil {
		return err
	}
	clientID, _ := r.context["client_id"].(string)
	src, err := auth.NewWorkloadIdentity(&auth.WorkloadIdentityConfig{
		Token:    func(context.Context) (auth.Token, error) { return auth.NewToken(jwt), nil },
		ClientID: clientID,
	})
	if err != nil {
		return err
	}
	r.creds = src
	return callOnce(ctx, r, nil, "test-tool", map[string]any{})
}

// enterprise exchanges the user's ID token (idp_id_token) at the IdP
// (idp_issuer, its token endpoint discovered) for an ID-JAG, and presents
// that to the MCP server's authorization server as client_id with
// client_secret.
func enterprise(ctx context.Context, r *runner) error {
	cfg := &auth.EnterpriseConfig{}
	var idToken, secret string
	for name, p := range map[string]*string{
		"idp_id_token": &idToken, "idp_issuer": &cfg.IdPIssuer, "idp_client_id": &cfg.IdPClientID,
		"client_id": &cfg.ClientID, "client_secret": &secret,
	} {
		v, err := r.contextString(name)
		if err != nil {
			return err
		}
		*p = v
	}
	cfg.IDToken = func(context.Context) (auth.Token, error) { return auth.NewToken(idToken), nil }
	cfg.ClientSecret = auth.NewSecret(secret)
	src, err := auth.NewEnterprise(cfg)
	if err != nil {
		return err
	}
	r.creds = src
	return callOnce(ctx, r, nil, "test-tool", map[string]any{})
}
