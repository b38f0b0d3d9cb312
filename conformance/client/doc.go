// Command client is this module's client for the official MCP conformance
// suite (@modelcontextprotocol/conformance). It is built only from the
// module's own packages — client, transport/streamablehttp and auth — so the
// suite measures what a user of the module gets.
//
// The suite starts it once per scenario, as the go-sdk's own conformance
// client is started:
//
//	MCP_CONFORMANCE_SCENARIO=<name> [MCP_CONFORMANCE_CONTEXT=<json>] client <server-url>
//
// MCP_CONFORMANCE_SCENARIO names the scenario (see the list printed on a
// usage error); MCP_CONFORMANCE_CONTEXT, when set, is a JSON object the
// suite passes to some scenarios (pre-registered OAuth client credentials,
// for instance). The program exits 0 when the scenario ran to its end and 1
// otherwise; the suite itself judges what it saw on the wire.
//
// Build it and run the suite, at either revision:
//
//	go build -o /tmp/conformance-client ./conformance/client
//	mcp-conformance client --command /tmp/conformance-client --suite core
//	MCP_CONFORMANCE_VERSION=0.2.0-alpha.12 mcp-conformance client \
//		--command /tmp/conformance-client --requirements 2026-07-28
//
// --requirements 2026-07-28 runs the extension scenarios too but does not
// score them. The auth extensions this program plays are run by name too:
// OAuth client credentials (auth/client-credentials-basic, -jwt:
// auth.NewClientCredentials), DPoP (auth/dpop, auth/dpop-nonce: the
// authorization code flow with an auth.NewDPoPKey's client), workload
// identity federation (auth/wif-jwt-bearer: auth.NewWorkloadIdentity with
// the suite's valid_jwt) and enterprise-managed authorization
// (auth/enterprise-managed-authorization: auth.NewEnterprise with the
// suite's ID token and clients):
//
//	MCP_CONFORMANCE_VERSION=0.2.0-alpha.12 mcp-conformance client \
//		--command /tmp/conformance-client --scenario auth/dpop-nonce
//
// The skills extension's scenarios (sep-2640-client-*) connect with
// client.Definition.Skills set: no-prefetch lists the skills and reads no
// file; verify-digest, -size and -frontmatter load each skill with
// Client.LoadSkill, which refuses the tampered SKILL.md, so that no other
// file of it is read.
//
// Every scenario connects with client.Connect over streamablehttp.New at the
// profile the scenario's specification revision calls for: ProfileDefault
// (2026-07-28, or 2025-11-25 from a server without server/discover) unless
// the scenario belongs to an older revision, and
// Profile20250326 for sse-retry, whose server answers with that revision
// whatever the client offers (the client pins the revision; it does not
// follow a server's downgrade). OAuth
// scenarios use auth.NewAuthorizationCode as the transport's Credentials,
// the client credentials ones auth.NewClientCredentials (client_secret_basic
// or private_key_jwt, from the suite's context).
// When the server refuses a request with 401 or 403 and the credential is
// renewed, the transport does not re-send the request
// (streamablehttp.ErrReauthorized); this program then connects again, or
// issues the refused call again, as the module expects a caller to, at most
// maxReauthorizations times in one run.
package main
