// Package oauthtest is a fake OAuth authorization server for tests of MCP
// clients and servers. It is kept apart from mcptest so that only the
// tests that use it link it.
//
// [NewAuthServer] starts a fake OAuth 2.1 authorization server for a test.
// It serves metadata and dynamic client registration. It has the
// authorization code grant with PKCE, through a non-interactive redirect;
// [FetchAuthorizationCode] is the go-sdk fetcher for it. It has client
// credentials, refresh, scopes, and faults (InvalidGrant, TokenDelay,
// WrongIssuer, Loop401). A [Protection] given as mcptest.HTTPOptions.Auth
// puts a fake served over HTTP behind it, as a protected resource. That
// resource refuses a missing or expired token (401). It refuses a token
// without a tool's scope (403 insufficient_scope, for step-up).
// [AuthServer.Counts] says what it issued and refused:
//
//	as := oauthtest.NewAuthServer(t, nil)
//	cc, _ := auth.NewClientCredentials(&auth.ClientCredentialsConfig{
//		ClientID: oauthtest.DefaultClientID, ClientSecret: auth.NewSecret(oauthtest.DefaultClientSecret),
//	})
//	fake := mcptest.HTTP(t, &mcptest.HTTPOptions{
//		Auth: &oauthtest.Protection{Server: as},
//		Transport: &streamablehttp.Options{Credentials: cc},
//	})
//	c := fake.Client(nil)
//	… as.Counts().TokensIssued …
//
// The clients with no user are served too. The JWT-bearer grant takes a
// workload's token, for workload identity federation; [AuthServer.IDToken]
// mints one. It also takes an ID-JAG, for enterprise-managed
// authorization. The token exchange of an IdP issues that for a user's ID
// token; the IdP is another AuthServer, listed in AuthServerOptions.Trust.
// DPoP proofs are checked at the token endpoint and at the protected
// resource (AuthServerOptions RequireDPoP, DPoPNonce). A replayed or
// misdirected proof is refused. The faults are RefuseGrant and
// StaleNonces. AuthCounts counts all this (JWTBearerGrants,
// TokenExchanges, DPoPProofs, DPoPRefusals, NoncesIssued):
//
//	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{RequireDPoP: true})
//	key, _ := auth.NewDPoPKey(nil)
//	src, _ := auth.NewWorkloadIdentity(&auth.WorkloadIdentityConfig{
//		Token:      func(context.Context) (auth.Token, error) { return auth.NewToken(as.IDToken("ci", as.URL, 0)), nil },
//		HTTPClient: key.Client(nil),
//	})
package oauthtest
