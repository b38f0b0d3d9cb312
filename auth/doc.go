// Package auth keeps credentials out of logs, files and foreign origins.
//
// [Token] and [Secret] hold a value that only an explicit call to Reveal
// returns. fmt (every verb, also inside structs), log/slog, encoding/json,
// encoding.TextMarshaler, encoding.BinaryMarshaler and encoding/gob print a
// redaction or fail with [ErrNotMarshalable]. [DPoPKey] does the same for a
// private key.
//
// A [Source] supplies the credential for requests to one [Origin]:
//
//   - [Bearer], a static token;
//   - [OAuth], a go-sdk OAuth handler. [NewAuthorizationCode] gives the
//     authorization code flow: pre-registration, client ID metadata
//     documents or dynamic registration, scope step-up, refresh.
//   - [NewClientCredentials], a confidential client with no user, for CI
//     jobs and services. It uses the OAuth client credentials grant, with
//     a client secret (client_secret_basic) or a signed JWT
//     (private_key_jwt).
//   - [NewWorkloadIdentity], a workload with no secret at all (workload
//     identity federation, SEP-1933). It presents the JWT its platform
//     issued it with the JWT-bearer grant (RFC 7523). That is a CI job's
//     OIDC token or a Kubernetes service account token, read from a file
//     or a function for every token request.
//   - [NewEnterprise], enterprise-managed authorization (SEP-990). The
//     user's ID token from the company's IdP is exchanged there for an
//     ID-JAG (RFC 8693). The ID-JAG is presented to the MCP server's
//     authorization server with the JWT-bearer grant.
//
// The sources without a user discover the token endpoint from the MCP
// server's first 401: the protected resource metadata, then the
// authorization server's. Or they take it as TokenURL. Issuer pins the
// authorization server their secret or assertion may go to. They renew the
// token as it expires. A refusal of the token endpoint is a [*GrantError].
// invalid_grant, invalid_scope and unauthorized_client are final. They are
// neither retried nor answered by switching grants, and the same thing is
// not sent again.
//
// [NewRoundTripper] attaches the credential to a request only when that
// request's origin is the validated one. It checks every request,
// including those an http.Client makes to follow redirects.
//
// # The outbound door
//
// Every request this module sends with a credential or a secret passes one
// redirect rule, [CheckRedirect]. These are MCP requests (the remote
// transports' redirect policy is this rule), token requests, metadata
// (RFC 8414, RFC 9728), dynamic registration, the JWT-bearer grant, DPoP,
// and the enterprise token exchange. A request other than GET, HEAD or
// DELETE follows no redirect. A 301, 302, 303, 307 or 308 of a token,
// registration or exchange request is a [*transport.RedirectError]
// wrapping a *transport.PolicyError of Rule RuleRedirectedPOST, and nothing is sent to its target.
// A GET follows one only within its origin. So metadata is accepted only
// from the origin it was asked of (RFC 8414 §3.3, RFC 9728 §3.3).
// Authorization server metadata must also have come from the issuer's
// origin, not only name the issuer.
//
// The rule holds whichever client is given. A source (and
// [NewAuthorizationCode]'s handler) sends through a copy of its HTTP
// client, the default or the caller's. The copy's CheckRedirect is the
// rule, whatever the caller's was. The client of [DPoPKey.Client] has it
// too. Its transport applies the rule again to each redirected request, so
// a CheckRedirect set on that client later changes nothing. Go would keep
// Authorization on a redirect to the same host on another port. It would
// also send a 307 or 308 body again to any host. Neither happens.
//
// A token's token_type must be Bearer (in any case; none is Bearer). For a
// client holding a DPoP key, it may also be DPoP. Any other is refused
// with a [*PolicyError] (RuleTokenType), and the token is sent nowhere. [MaxScopes] bounds
// the scopes a source without a user asks for. It also bounds those the
// challenges given to an [OAuth] ask for (the go-sdk's step-up).
//
// TestHostileAuthorizationServerMatrix attacks the door. It tries every
// redirect status, to the same origin and to others, of every kind of
// credential. It goes through the default client, a caller's client and
// the DPoP client. It adds metadata redirects, issuer and resource
// mismatches, and hostile token responses. Each case counts the requests
// and credentials at each origin.
//
//	origin, err := auth.ParseOrigin("https://mcp.example.com/mcp")
//	if err != nil { … }
//	tok := auth.NewToken(os.Getenv("MCP_TOKEN"))
//	rt := auth.NewRoundTripper(nil, origin, auth.Bearer(tok))
//	fmt.Println(tok) // auth.Token(REDACTED)
//
// The remote transports (transport/streamablehttp, transport/sse) take a
// Source and do this wiring themselves.
//
// A constructor given a nil or zero argument does not panic. Such calls
// are [Bearer] of the zero Token (an unset environment variable above),
// [NewOAuth](nil), [NewRoundTripper] with a nil Source or the zero Origin,
// and the zero DPoPKey's [DPoPKey.Client]. Each returns a value that fails
// its first use, and every use after, before anything is sent. The error
// is [ErrInvalidArgument] naming the constructor. So no request goes
// without the credential it was meant to carry. Through a remote
// transport, client.Connect then fails with a ClassPolicy error, a
// configuration error.
//
// # DPoP
//
// With DPoP (RFC 9449, SEP-1932) an access token is bound to a key the
// client holds. A token that leaks is then useless without the key. Make a
// key with [NewDPoPKey]. Give a source's token requests its HTTP client
// ([DPoPKey.Client]). That is the HTTPClient of a source's config, or the
// Client of the go-sdk's AuthorizationCodeHandlerConfig for
// [NewAuthorizationCode].
//
//	key, err := auth.NewDPoPKey(nil) // a fresh P-256 key
//	src, err := auth.NewWorkloadIdentity(&auth.WorkloadIdentityConfig{
//		TokenFile:  os.Getenv("MCP_OIDC_TOKEN_FILE"),
//		HTTPClient: key.Client(nil),
//	})
//
// Each token request then carries a proof. The authorization server may
// issue a token as DPoP-bound. That token goes to the MCP server as
// "Authorization: DPoP …", with a fresh proof (htm, htu, iat, jti, ath) in
// the DPoP header. It goes so on every request, to the validated origin
// only. A token issued as Bearer goes as Bearer.
//
// A server may ask for a nonce (use_dpop_nonce, with a DPoP-Nonce header).
// The request is then sent again once, with a proof carrying the nonce.
// The token endpoint refused the token request (400), or the MCP server
// refused the request (401) before acting on it. So this is the one case
// where a POST of a tools/call is sent twice. A second refusal for want of
// a nonce fails. The error is [ErrDPoP] from the MCP server, or a
// GrantError use_dpop_nonce from the token endpoint. The nonce each server
// last gave is kept for the next proof to it. Cassettes redact DPoP
// headers by default.
//
// Proofs follow RFC 9449 as SEP-1932 adopts it. They carry no
// content_digest claim, which an earlier draft of the MCP profile asked for.
package auth
