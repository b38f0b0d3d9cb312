// Package streamablehttp connects a client to a remote MCP server over
// Streamable HTTP (protocol 2025-03-26 and later), safely. The origin is
// pinned, and credentials go nowhere else. Everything the server sends is
// bounded. No message that may have reached the server is sent twice.
//
//	f, err := streamablehttp.New("https://mcp.example.com/mcp", &streamablehttp.Options{
//		Credentials: auth.Bearer(auth.NewToken(os.Getenv("MCP_TOKEN"))),
//	})
//	if err != nil { … }
//	c, err := client.Connect(ctx, client.Definition{Name: "docs", Transport: f}, nil)
//
// The protocol engine is the go-sdk's mcp.StreamableClientTransport. This
// package gives it its own http.Client, one per connection. The client's
// RoundTripper enforces the policy below on every request and response.
// The policy reads some messages: which call a stream answers, which
// notification it carries, the event id a resumption starts after. It
// reads them as the go-sdk will. It reads the events as the go-sdk's own
// reader reads them, and the message with the go-sdk's decoder. So the two
// readings cannot part. The go-sdk decodes the messages itself. The
// connection is its own, and cannot be wrapped, since the go-sdk client
// needs its unexported hooks.
//
// The exceptions are the notifications a client takes before the go-sdk
// reads them ([Transport.SetDiverter]). client.Connect takes log messages
// and progress this way, and decodes each once. The go-sdk is handed
// their events without their data. Each event keeps its id and retry. So
// the go-sdk resumes a dropped stream from the same event as it would have.
//
// The go-sdk is handed no more of a stream than it keeps. Of an event
// without a message it gets the id and retry. Of a call's answer it gets
// the data. It gets nothing after the answer, where the go-sdk ends a
// call's stream. A call's stream is read up to its first message before
// the go-sdk is handed the response. That message may be the call's
// answer. Then the go-sdk gets an application/json body holding the answer
// alone. It reads that whole rather than parsing an event stream again.
// Any other stream is handed over as an event stream. The rest of a stream
// handed over as JSON is read to its end once the go-sdk closes the body.
// That read keeps within the stream's bounds and the idle bound, and lasts
// no longer than the connection. So its connection is reused, and the
// answer does not wait for the server to end the stream.
//
// # Origin and credentials
//
// The endpoint's origin (scheme, host, port; see auth.Origin) is pinned at
// [New]. A request to any other origin is refused
// ([transport.RuleCrossOrigin]). The redirect policy refuses every redirect
// of a POST ([transport.RuleRedirectedPOST]). A 307 or 308 would send the
// body, session id and credential again. It also refuses every redirect to
// another origin ([transport.RuleCrossOriginRedirect]). A GET redirected to
// another origin (the standalone stream, a resumption) fails the
// connection at once with [CodeRedirectRefused], by policy. The go-sdk
// retries a failed GET with backoff, so it is handed a final answer
// instead of an error. Credentials come from an auth.Source. They are
// attached by auth.NewRoundTripper, which checks each request's own
// origin. So even a redirect that got past the policy would carry none.
// Plain http is accepted only for loopback hosts, unless
// Options.AllowInsecureHTTP ([transport.RuleInsecure]); TLS is 1.2 at least.
//
// # Limits and timeouts
//
// [Limits] bounds an application/json body, one server-sent event, one
// response stream, and the requests in flight. [Timeouts] bounds the dial,
// the TLS handshake, the wait for response headers, the gap between reads
// of a body, and the closing DELETE. Every bound has a documented default.
// There is no overall request timeout, which would cut streams. A call
// whose response crosses a bound fails at the bound with
// [transport.ErrLimit] (or [transport.ErrTimeout]). The rest is not read,
// and the session goes on.
//
// # Non-replay
//
// A POST that may have reached the server is never sent again. The go-sdk
// itself POSTs each message once, with two exceptions, decided here.
// (auth's round tripper adds a third, below this package's guard. A POST
// the server refused with 401 use_dpop_nonce, before acting on it, is sent
// again once with a DPoP proof carrying the server's nonce. See
// auth.NewRoundTripper.)
//
//   - Re-POST after OAuth. A POST may be answered 401 or 403 when the
//     transport has an OAuth handler. The go-sdk then runs the handler's
//     flow. If that succeeds, it sends the same POST again. This package
//     gives the go-sdk its own handler. It runs the flow of
//     Options.Credentials (if it is an auth.Authorizer). Then it lets the
//     re-POST happen only for requests that execute nothing on the server:
//     initialize, server/discover, ping and the lists (tools, resources,
//     templates, prompts). So a scope step-up during discovery does not
//     fail the connection. For any other request it returns
//     [ErrReauthorized]. The refused call fails, the new credential is in
//     place, and the caller decides whether to issue the call again. As a
//     second line, the RoundTripper refuses to POST a call id it already
//     sent on the connection ("streamablehttp: call already sent", which
//     matches [transport.ErrPolicy]).
//   - Multi round-trip continuation (protocol 2026-07-28, SEP-2322). When a
//     tool answers "input required", the client gathers the input. It
//     issues tools/call again, with a new id, the answers and the server's
//     requestState. That is the continuation the server asked for, not a
//     second sending of a lost request. A continuation whose reply is lost
//     is not sent again either.
//
// The go-sdk's MaxRetries (Options.MaxResumeAttempts) governs only GET
// requests: resuming a dropped stream and reconnecting the standalone one.
//
// # Resumption
//
// On protocol 2025-11-25 (and the earlier Streamable HTTP revisions) a
// call's response stream may break after an event with an id. The go-sdk
// then resumes it with a GET carrying Last-Event-ID. It waits the delay
// the server asked for with retry:, else a backoff. A GET that fails
// before any response is tried at most MaxResumeAttempts times in a row.
// The server's event store replays the committed reply. A resumed stream
// that ends again with no new event id is not resumed again. Its call
// fails with [CodeStreamDropped]. So does a call whose resumption the server
// refuses with a status: 404 once it has ended the session, or any other
// non-2xx. The server had the call. The go-sdk, handed the status, would
// fail the connection with a session error that hides it.
//
// A stream that breaks with no event id cannot be resumed. The call fails
// with [CodeStreamDropped] (or [transport.ErrTimeout] if it went idle) and
// is not sent again; it may or may not have run. Protocol 2026-07-28 has
// no resumption. A request of that revision (its Mcp-Protocol-Version
// header says so) whose stream breaks fails with [CodeStreamDropped] at
// once, whatever event ids the stream carried. So does a call whose
// connection breaks after the request was written and before the response
// headers arrived, on any revision. The client reports each of these as an
// outcome unknown (client.ErrOutcomeUnknown).
//
// # Protocol 2026-07-28 requests
//
// Every request of 2026-07-28 carries in its _meta the revision, the
// client and its capabilities (SEP-2575). A server refuses one without
// them (400). A call the go-sdk sends without them gets the ones the
// connection's previous requests carried. The go-sdk v1.8.0's
// ClientSession.Ping is one: it sends a ping without them. The revision
// has no ping at all, and a server refuses one with -32601. On this
// transport a ping of 2026-07-28 goes as the revision's own probe,
// server/discover, with the ping's id. Its answer answers the ping. So the
// session's Ping works on every revision, and says what a ping says. A
// cassette records what went on the wire, the server/discover.
//
// # Close
//
// Closing the connection sends the protocol DELETE that ends the session,
// bounded by Timeouts.Close, then closes the connection's idle HTTP
// connections, so nothing is left running.
//
// # Errors
//
// Errors from sending a request reach the caller wrapped, for errors.Is
// and errors.As. These are [*transport.PolicyError] (of Rule
// [transport.RuleCrossOrigin], [transport.RuleRedirectedPOST],
// [transport.RuleCrossOriginRedirect] or [transport.RuleTooManyRedirects]),
// "call already sent" (matching [transport.ErrPolicy]), [transport.ErrAuth],
// [ErrReauthorized], and [transport.TimeoutError] for the dial, TLS and
// header phases.
//
// Errors found while reading a call's response reach it as a JSON-RPC
// error response. This package puts that in the stream in place of the
// reply, because the go-sdk keeps only the code and message of a read
// error. Their codes are transport.CodeLimit ([transport.ErrLimit]),
// [CodeStreamDropped], transport.CodeTimeout ([transport.ErrTimeout]), and
// [CodeResponseMismatch] for a JSON body that is not the call's response.
// They also include [CodeRefused], for a call's POST refused with a 4xx and
// no JSON-RPC error, which would otherwise fail the whole connection. A
// *jsonrpc.Error matches by code, so errors.Is(err, &jsonrpc.Error{Code:
// CodeRefused}) tells one apart. So does [CodeRedirectRefused].
// [Factory.Classify] gives each its class sentinel.
//
// The errors this transport shares with transport/sse are package
// transport's. They are [*transport.PolicyError] (of Rule
// [transport.RuleInsecure], [transport.RuleCrossOrigin],
// [transport.RuleCrossOriginRedirect], [transport.RuleRedirectedPOST] or
// [transport.RuleTooManyRedirects]),
// [transport.ErrAuth], [transport.ErrLimit] and
// [transport.ErrTimeout]. They also include the types
// [transport.LimitError], [transport.TimeoutError] and
// [transport.RedirectError], whose Transport field says "streamablehttp".
// The codes above and [ErrReauthorized] are this transport's own.
package streamablehttp
