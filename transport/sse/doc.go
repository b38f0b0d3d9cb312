// Package sse connects a client to a remote MCP server over the legacy
// HTTP+SSE transport of protocol 2024-11-05, for servers that still need
// it. It has the same guards as transport/streamablehttp. The origin is
// pinned, credentials go nowhere else, and everything the server sends is
// bounded.
//
//	f, err := sse.New("https://legacy.example.com/sse", &sse.Options{
//		Credentials: auth.Bearer(auth.NewToken(os.Getenv("MCP_TOKEN"))),
//	})
//	if err != nil { … }
//	c, err := client.Connect(ctx, client.Definition{
//		Name: "legacy", Profile: client.ProfileLegacy, Transport: f,
//	}, nil)
//
// The protocol engine is the go-sdk's mcp.SSEClientTransport. The client
// GETs the session stream. The stream's first event (endpoint) names the
// URL to which the client then POSTs its messages. Every answer comes back
// on the stream. This package gives the go-sdk its own http.Client, one
// per connection. Its RoundTripper enforces the policy below on every
// request and response. The stream's messages reach the go-sdk as its own
// connection would read them: the same events, the same decoding, the same
// refusals. Each is decoded once. The go-sdk's connection decodes each
// twice, with a fresh 32 KiB buffer each time. All of them arrive, in
// order. The go-sdk's connection may drop what it had read when the stream
// ended.
//
// # Chosen by name only
//
// A [Factory] speaks 2024-11-05 only: it is a transport.ProtocolPinner.
// client.Connect refuses over it any profile that pins another revision.
// (client.ProfileDefault follows the pin, as client.ProfileLegacy does.)
// There is no automatic selection between this transport and Streamable
// HTTP in either direction. A server may answer the session GET with 400,
// 404 or 405, or with JSON. It then fails with a [StatusError] that
// suggests transport/streamablehttp, and nothing else is sent.
//
// # Origin and credentials
//
// The endpoint's origin (scheme, host, port; see auth.Origin) is pinned at
// [New]. The endpoint event must name a URL on that origin, or Connect fails
// with an [EndpointError] before anything is sent there. Any request
// to another origin is refused ([transport.RuleCrossOrigin]). The redirect
// policy refuses every redirect of a POST ([transport.RuleRedirectedPOST]: a
// 307 or 308 would re-send the message and credential) and every redirect to
// another origin ([transport.RuleCrossOriginRedirect]). Credentials come from
// an auth.Source and are attached by auth.NewRoundTripper, which checks each
// request's own origin. Plain http is accepted only for loopback hosts,
// unless Options.AllowInsecureHTTP ([transport.RuleInsecure]); TLS is 1.2 at
// least. A 401 or 403 fails with [transport.ErrAuth]; no request is
// re-sent.
//
// # Limits and timeouts
//
// [Limits] bounds one server-sent event, the whole session stream, and the
// body of any other response. Reading stops one byte past the bound, with a
// [transport.LimitError]. [Timeouts] bounds the dial, the TLS handshake,
// and the wait for response headers. It also bounds the silence of the
// session stream while the endpoint event or the answer to a call is
// awaited. An idle session with no call in flight is not timed out. There
// is no overall request timeout, which would cut the stream.
//
// The 2024-11-05 transport has no resumption: the session stream is the
// session. A bound crossed on it (an oversize event, the idle timeout) ends
// the session, and every call in flight fails with the bound's error
// ([transport.ErrLimit], [transport.ErrTimeout]); none is re-sent. Each
// message is POSTed once.
//
// # Close
//
// Closing the connection ends the session stream (the server sees the GET
// end, which ends its session) and closes the connection's idle HTTP
// connections, so nothing is left running.
//
// # Errors
//
// The errors this transport shares with transport/streamablehttp are
// package transport's. They are [*transport.PolicyError] (of Rule
// [transport.RuleInsecure], [transport.RuleCrossOrigin],
// [transport.RuleCrossOriginRedirect], [transport.RuleRedirectedPOST] or
// [transport.RuleTooManyRedirects]),
// [transport.ErrAuth], [transport.ErrLimit] and
// [transport.ErrTimeout]. They also include the types
// [transport.LimitError], [transport.TimeoutError] and
// [transport.RedirectError], whose Transport field says "sse". The rest are
// this transport's own: [StatusError], [EndpointError], and "sse: no
// endpoint event" and "sse: malformed message", which match
// [transport.ErrProtocol]. Every error reaches the caller as a Go error, for
// errors.Is and errors.As.
//
// Failures are classified as Streamable HTTP's are ([Factory.Classify]):
//   - A 5xx is the server's ([transport.ErrServer]).
//   - So is a 429: the server sheds load, and the go-sdk takes it for
//     transient on Streamable HTTP too.
//   - So is any other 4xx to a POST but 401 and 403. A 404 means the
//     session is gone. A 400, 405, 413… means the request was refused, so
//     it did not run, and its outcome is known.
//   - A session stream that ends under calls awaiting their answer broke
//     them ([transport.ErrBroken]). Their outcome is unknown.
//   - A message that is not JSON-RPC breaks the protocol. So does a status
//     no server of this transport would send.
package sse
