// Package oauthtest is a fake OAuth authorization server for tests of MCP
// clients and servers. It is kept apart from mcptest so that only the
// tests that use it link it.
//
// [NewAuthServer] starts a fake OAuth 2.1 authorization server for a test: metadata, dynamic client registration, the authorization code
// grant with PKCE through a non-interactive redirect
// ([FetchAuthorizationCode] is the go-sdk fetcher for it), client
// credentials, refresh, scopes, and faults (InvalidGrant, TokenDelay,
// WrongIssuer, Loop401). A [Protection] given as mcptest.HTTPOptions.Auth
// puts a fake served over HTTP behind it,
// as a protected resource that refuses a missing or expired token (401)
// and a token without a tool's scope (403 insufficient_scope, for step-up).
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
// The clients with no user are served too: the JWT-bearer grant takes a
// workload's token ([AuthServer.IDToken] mints one; workload identity
// federation) or an ID-JAG, which the token exchange of an IdP (another
// AuthServer, listed in AuthServerOptions.Trust) issues for a user's ID
// token (enterprise-managed authorization). DPoP proofs are checked at the
// token endpoint and at the protected resource (AuthServerOptions
// RequireDPoP, DPoPNonce), a replayed or misdirected proof refused. Faults
// RefuseGrant and StaleNonces, counted in AuthCounts (JWTBearerGrants,
// TokenExchanges, DPoPProofs, DPoPRefusals, NoncesIssued):
//
//	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{RequireDPoP: true})
//	key, _ := auth.NewDPoPKey(nil)
//	src, _ := auth.NewWorkloadIdentity(&auth.WorkloadIdentityConfig{
//		Token:      func(context.Context) (auth.Token, error) { return auth.NewToken(as.IDToken("ci", as.URL, 0)), nil },
//		HTTPClient: key.Client(nil),
//	})
package oauthtest
