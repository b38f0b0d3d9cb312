// Package cassette records MCP sessions to files and replays them, so that a
// test runs against a recorded server with no server, process or network,
// and fails the same way the live session did.
//
//	live, err := stdio.New("docs-server", nil, nil) // or streamablehttp.New, inprocess.New: any transport.Factory
//	mode, err := cassette.ModeFromEnv()               // replay in CI, record with MCPRIG_RECORD=1, else record once
//	f, err := cassette.Open("testdata/docs.jsonl", live, &cassette.Options{Mode: mode})
//	c, err := client.Connect(ctx, client.Definition{Name: "docs", Transport: f}, nil)
//	res, err := c.CallTool(ctx, "lookup", map[string]any{"query": "close"})
//	c.Close()
//	err = f.Close() // recording: the file written; replaying: the first mismatch, or the recorded requests never made
//
// [Open] is the one way in, for every transport: given the path of a
// cassette and the live server's transport.Factory, it returns a [*Factory]
// that replays the cassette, records the live session to it, or passes it
// through, as [Options].Mode asks ([ModeFromEnv] takes the mode from the
// environment: replay in CI, record when MCPRIG_RECORD=1, record once
// otherwise). The factory is what client.Connect (or a go-sdk client)
// connects with, and its Close ends the session the same way for every
// transport: it writes the recording, and, replaying, returns the first
// mismatch and (in strict mode) what the client never sent. See the
// examples. A program that holds a cassette already (loaded, or built in
// code) replays it with [Replay].
//
// # The model
//
// A cassette is a transcript of one session: a header, then one line per
// thing that happened, in the order it happened. stdio, in-process and
// legacy SSE sessions are recorded at the message level: every JSON-RPC
// message, in both directions, as the client saw it. Streamable HTTP
// sessions are recorded at the HTTP level, below the transport's
// credentials ([HTTPFactory]: the cassette wraps the factory's base round
// tripper), which is the message level plus streams: which request a
// message answered on, the events of a stream and their ids, drops,
// resumes, the session's end. One scheduler replays both levels (see
// "Order").
//
// A [Cassette] is plain data: its [Interaction] lines hold only exported
// fields, and a cassette built or edited in code replays exactly as one
// loaded from a file. Replay checks it first, as Load does.
//
// # Format
//
// A cassette is UTF-8 text, one JSON object per line, so that a changed
// message is one changed line in a diff. A byte order mark an editor puts
// at the start of the file is skipped, and never written. The first line
// is the header:
//
//	{"format":"mcprig-cassette","version":2,"transport":"stdio","protocol":"2025-11-25","server":"counter"}
//
// transport is the transport.Kind's name ("stdio", "inprocess",
// "streamablehttp", "sse"); protocol is the negotiated revision and server
// the server's name, from the initialize exchange or, in 2026-07-28, from
// the "_meta" of server/discover and the results. Two optional fields
// declare, when the recording had them configured, what the cassette was
// recorded with:
//
//	{"format":"mcprig-cassette","version":2,…,"server":"counter","volatile":["params.arguments.now"],"redaction":"sha256:5b1f…"}
//
// "volatile" lists the paths whose values change every run
// ([Options].IgnorePaths when it was recorded: timestamps, generated ids),
// at most 256; replay matching, [Compare] and [Verify] ignore them as they
// ignore IgnorePaths, so no job repeats them. "redaction" is the
// [Options.RedactionDigest] of its redaction rules: replaying or verifying
// it with other rules is a [*RedactionError] (see "Redaction"). A field
// left out means none. A reader of an earlier release refuses a header
// with either field ("unknown field", a [*FormatError] on line 1) rather
// than replay it without them; cassettes without them are unchanged. At
// the message level each following line is a message:
//
//	{"kind":"message","from":"client","message":{"id":2,"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"label":"first"},"name":"count"}}}
//	{"kind":"message","from":"server","message":{"id":2,"jsonrpc":"2.0","result":{"content":[{"text":"first #1","type":"text"}]}}}
//
// or how the session ended (see "Endings"):
//
//	{"kind":"close","end":"eof","exit":{"code":3},"stderr":"boom: config missing\n"}
//
// and the last line is {"kind":"end"}: a file without it is truncated.
// Messages are canonical JSON (object keys sorted, no insignificant space,
// no HTML escaping, numbers as written); fields are fixed and unknown
// fields are refused. Recording the same session twice gives the same
// bytes: there are no timestamps, durations or random values.
//
// This package writes version 2 and reads versions 1 and 2. Version 1 had
// no endings: it is read as the version-2 cassette it stands for, its
// session closed by the client after its last line, the tail a version-1
// "stderr" line held in that ending. `mcprig upgrade FILE` rewrites a file
// as version 2.
//
// # Endings
//
// How the session ended is recorded, where it happened, and replay ends
// the same way at the same point:
//
//   - "eof": the server ended its output; a child that exited says how
//     ("exit": its code or signal) and the tail of its standard error
//     ("stderr"). Replayed, reading ends there and the connection's
//     transport.Diagnoser reports the same exit and tail, so the call that
//     died with the server fails at once with the same class (server).
//   - "error": reading failed ("error", the text, and "class", the
//     transport sentinel it matched: a frame over the bound is "policy").
//     Replayed, reading fails with a [*RecordedError] of that class.
//   - "client": the client closed the session; "pending" lists the calls it
//     left unanswered. Replay keeps those unanswered until the client gives
//     them up again.
//
// At the HTTP level each stream ends with a close line of its own: "eof"
// (the server ended the body), "dropped" (it broke: replay breaks it the
// same way, and the client resumes as it did), "client" (the client stopped
// reading), "session" (still open when the session ended) or "error" (the
// request failed before any response: replay fails it with a
// [*RecordedError] of the recorded class, "written" saying whether it had
// been sent, as the transport needs to know). The session itself ends with
// a close line without a stream: the client's, written when the factory is
// closed, so a stateless session, which has no DELETE, is recorded as fully
// as one that has.
//
// A call the client cancels is a race between the go-sdk's cancellation
// notification and the end of the call: a recorded notifications/cancelled
// the live client does not send is not reported as unused, and a live one
// for a call the recording shows given up is accepted.
//
// Replay never hangs on the recording. A recorded call with neither an
// answer nor an ending after it (its answer removed by hand, say) fails the
// moment it is made, with a [*MismatchError]; every other wait is for the
// client (a call it gave up) or bounded (see "Order").
//
// # Matching
//
// A live client message matches a recorded one when their match keys are
// equal: the message without "jsonrpc", without the id of a request (ids
// are rewritten: a replayed answer carries the live request's id), without
// "params._meta" and "result._meta" (progress tokens, the 2026-07-28
// per-request metadata, which carries the client's identity too), without
// initialize's "params.clientInfo" (the client's name and version: a
// cassette recorded by an older release of this library, or by another
// client, still replays), without trace context (W3C "traceparent",
// "tracestate" and "baggage" in "_meta": a traced session replays with
// other trace ids), [Options].IgnorePaths and the paths the cassette
// declares volatile, with every placeholder
// spelled alike; live messages are redacted with the recording's rules
// first. The client's capabilities and requested revision are matched. At the HTTP level the key adds the method, the URL's path and
// query, and the Mcp-* headers (Mcp-Session-Id, Mcp-Protocol-Version,
// Mcp-Method, Mcp-Name, Mcp-Param-…) and Last-Event-ID. A client's
// notifications/cancelled names a call by the id the live client gave it:
// it matches the recorded cancellation of that call, whatever number the
// recording gave it. Each recorded line
// is served at most once: a recorded tools/call is never answered twice. A
// message that matches nothing is a [*MismatchError] at once (naming the
// cassette, the line of the nearest recorded message and a diff against
// it); a call gets it as a JSON-RPC error (code [CodeMismatch]), an HTTP
// GET or DELETE a 405. One changed argument is one mismatch: the recorded
// call it was diffed against is passed over (nothing recorded after it
// waits for its answer), and is still answered if the client makes it
// after all.
//
// # Order
//
// Clients issue requests concurrently (a client re-lists a catalog after a
// list_changed notification while its caller makes tool calls), so the
// order of their requests differs between recording and replay. A
// recording fixes one interleaving; replay accepts any other that the
// recording does not rule out. These are the rules, the same at both
// levels (an HTTP stream's lines are its request's):
//
//   - Matching: a live client message is matched to the first unserved
//     recorded client message with its key, wherever it is.
//   - Answers: a recorded answer (a server response to a client call, or
//     at the HTTP level any line of a request's stream) goes out once its
//     request has been served, every answer recorded before that request
//     has gone out (the recorded client had them before it asked: requests
//     whose spans overlapped were concurrent, and are served in either
//     order), the call it answers has been served (an answer on a resumed
//     stream), and the client's answers to the server requests made while
//     it ran (sampling, elicitation, roots), recorded before it, have been
//     served. An answer recorded after the client's cancellation of its
//     call (the server answered because the client gave the call up) goes
//     out once the live client has cancelled the call too, or passed the
//     cancellation by: the live client is not answered a call it would
//     still be waiting on.
//   - Everything else the server sent keeps its place: a notification, a
//     server request, the standalone GET stream's events, the session's
//     end, each goes out once every client message recorded before it has
//     been served (recorded client notifications, and the standalone GET,
//     that the live client does not send are passed over once a later
//     client message is served). The session's end goes out last.
//   - Released messages are delivered in recorded order.
//   - Polling is not part of what must match (the tasks extension,
//     SEP-2663): recorded tasks/get requests of one task answered with the
//     same state (its status, message, input requests, result or error;
//     not its timestamps) count as one, so a live client is served the
//     recorded states in order, one per poll, whatever the number of polls
//     the recording client made (its poll interval, the machine's speed);
//     the polls counted as one are not reported unused. A poll past the
//     last recorded state matches nothing: the task's result is served
//     once. A tasks/update or tasks/cancel recorded between two polls
//     ends their run.
//   - Bounds: an answer held for requests the live client does not make is
//     held at most [Options].Wait ([DefaultWait] if zero); then its request
//     fails with a [*MismatchError] naming the recorded requests it waited
//     for, and nothing else waits for it. So is the session's end that a
//     call died with: the calls that wait for it fail, and it is not
//     delivered.
//
// The scheduler that applies them is pure (no locks, no timers, no I/O);
// testdata/schedule holds its transcripts. Every decision of replay, faults
// included, is taken once above it, as purely, for both levels, and
// tabled in testdata/decide.
//
// # Redaction
//
// Nothing is written before it is redacted, in headers, bodies, URLs,
// events, error texts and the stderr tail alike. Without any option:
//
//   - every credential the transport sends, whatever its source (a static
//     token, an OAuth flow, a refreshed token): the Authorization and
//     Proxy-Authorization headers are seen below the transport's
//     credentials (at the HTTP level, and for legacy SSE through its base
//     round tripper too), and their credential (its scheme kept:
//     "Bearer REDACTED-1") is redacted wherever else it appears;
//   - cookies: Cookie and Set-Cookie whole, and each cookie's value
//     wherever it appears;
//   - DPoP proofs (RFC 9449): the DPoP header whole, wherever it appears
//     (the token it goes with is an Authorization credential, "DPoP
//     REDACTED-1");
//   - every value the live factory hands its peer (transport.SecretHolder:
//     a stdio child's Options.Env), wherever it appears, except those named
//     in [Options].NotSecret (a config path, a log level).
//
// Values learnt by themselves (environment values, cookie values) are
// redacted from [MinAutoSecret] bytes: shorter ones are ordinary words.
// With options: every literal secret ([Options].Secrets,
// [Options].Revealers) found in any string, every match of
// [Options].Patterns, every value at [Options].RedactPaths, and the
// values of [Options].RedactHeaders (wherever they appear, too). Each is
// replaced by a placeholder "REDACTED-<n>"; a value always gets the same
// placeholder. The configured secrets are numbered first, in the order
// given. Then come the credentials of secret headers, in the order of the
// lines, a line's headers by sorted name. Then every other value, in order
// of first appearance: line by line, a line's URL, then its headers by
// sorted name, then its body, an object's keys in sorted order, each key
// before its value. So re-recording gives the same numbers. Placeholders
// keep matching working: live messages are redacted with the same rules
// before they are matched, and placeholders match whatever their numbers.
//
// The header names the rules a cassette was recorded with (Patterns,
// RedactPaths, RedactHeaders) by their digest, never the values: a secret
// is not in it. A replay or Verify whose Options configure other rules, or
// none, fails at once with a [*RedactionError] (errors.Is
// [ErrRedactionChanged]): live messages would not be redacted as the
// recorded ones were, and the cassette may hold a value new rules redact.
// Give it the rules it was recorded with (mcprig replay and verify take
// --redact-pattern, --redact-path and --redact-env), or record it again.
// A cassette that names no rules is not checked.
//
// # HTTP
//
// Each HTTP request opens a stream, numbered from 1 in the order the
// requests were made:
//
//	{"kind":"request","stream":4,"method":"POST","url":"/mcp","headers":{"Mcp-Method":["tools/call"],…},"message":{"id":2,…}}
//	{"kind":"response","stream":4,"status":200,"headers":{"Content-Type":["text/event-stream"],…}}
//	{"kind":"event","stream":4,"event":"message","id":"s2_1","message":{"id":2,"jsonrpc":"2.0","result":{…}}}
//	{"kind":"close","stream":4,"end":"eof"}
//
// A request records the method, the URL's path and query (not the origin: a
// loopback port would make every recording differ), the headers and the
// body; a response the status, the headers and, unless it is an event
// stream, the body (a request refused outside JSON-RPC, such as a 401 that
// asks for credentials or a DPoP nonce, leaves its calls unanswered, and
// the client's second send of them with the same ids is recorded; replay,
// which needs no credentials, passes such a 401 or 403 over and serves
// the live request the answer to the second send; Verify sends the
// second send alone); an event one server-sent event, read as the HTML
// standard defines them (internal/sse). A body or data that is a JSON-RPC
// message is in "message", anything else in "text". Headers that describe
// the connection (Date, Content-Length, …) are left out. Lines are written
// in the order things happened, except that a close line follows its
// stream's last line and an empty response (202, 204) its request, which
// keeps re-recordings byte-identical. Event ids, random in most servers,
// are renamed ("<random>_3" becomes "s1_3"), alike in events and in
// Last-Event-ID; so are session ids: the n-th Mcp-Session-Id the server
// handed out is "session-<n>" in every header and wherever else it
// appears, and replay hands that name out. The server's origin is renamed
// wherever it appears, in headers (a 401's resource_metadata), bodies,
// events and error texts: "http://127.0.0.1:34223/x" is recorded as
// "http://ORIGIN/x", and its host and port alone as "ORIGIN" (after
// redaction, so that a secret that holds the origin is found whole). Replay
// renames the origin of each live request the same way before matching,
// and serves "http://ORIGIN" as the origin the request was sent to.
//
// On every transport, the request states a 2026-07-28 server hands out in
// its input-required results (requestState, an opaque token the client
// only hands back, which a server may seal with a serial, a time or a
// nonce) are renamed too: the n-th is "state-<n>" in the result and in the
// continuations that carry it back. Replay hands that name out; Verify
// sends the live server's own state in its place. The task ids a server
// hands out in its task handles (the tasks extension) are renamed alike:
// the n-th is "task-<n>" in the handle, in the polls, updates and cancels
// that name it and in their Mcp-Name headers; Verify polls the live
// server's own task in its place.
//
// # Re-recording
//
// Recording the same session twice gives the same bytes, also against
// servers that make ids up and clients that work concurrently. What only
// timing decides is written the same way every time:
//
//   - a notification the server sent of its own accord (at the message
//     level, any; at the HTTP level, those of the standalone GET stream and
//     of a subscriptions/listen stream) is written before the read-only
//     exchanges (listings, pings: requests and answers) recorded just
//     before it: a listing causes no notification, so whether it reached
//     the client before or after one that ran meanwhile is timing. It never
//     passes a call or a client notification. An acknowledgement of a
//     subscription is written right after the subscription's request.
//   - at the HTTP level, such a notification that came while calls were
//     answered (a resource or a list the call changed) is written after
//     the lines of the calls in flight when it came, up to the next
//     request; event ids are numbered in the order the lines are written.
//   - the answer to a call that is not a listing is written before the
//     list changes (notifications/…/list_changed) and the listings
//     recorded between the call and it: a server may announce the change
//     a call made before or after its answer (a go-sdk server does so
//     from a timer, 10 ms after the change), and the client re-lists at
//     once. It passes nothing else: its call's progress, a log message, a
//     server request, a client message keep their place before it.
//   - a client's notifications/cancelled is written right after the last
//     line of the call it cancels (the go-sdk sends it from a goroutine of
//     its own, racing the client's next messages), and the server's
//     answer to a call the client gave up is left out: the client no
//     longer waited for it, and replay has the call given up. At the HTTP
//     level the call's stream ends, for the client, right before the
//     cancellation, whether the client or the server ended it first.
//   - a stream the client stopped reading once it had made its last
//     request is "session": open until the session ended.
//   - a 2026-07-28 client's notifications/cancelled of its
//     subscriptions/listen, sent as it closes the session (the go-sdk sends
//     it best-effort, sometimes after the session is gone), is the
//     session's close and is not written.
//
// Replay is only freed by these: a line that keeps its place goes out once
// the client messages recorded before it are served. This module's
// client does its part: a list change announced while Connect discovers
// is discovered again before Connect returns, so the re-listing has one
// place in the session.
//
// A replayed HTTP session goes through the live factory when Open is given
// one (its limits, headers and endpoint path; nothing leaves the process),
// or else through this module's streamablehttp transport at [ReplayOrigin].
//
// # HTTP and go-vcr
//
// The HTTP level follows go-vcr v4's cassette model (gopkg.in/dnaeon/go-vcr.v4)
// without its file format, which cannot hold a stream whose events arrive
// over minutes. Package cassette/vcr adds go-vcr's hooks and storage to an
// [Options] (each exchange, one stream, presented to a hook as a go-vcr
// cassette.Interaction), and maps the modes.
//
// # Faults
//
// A replay can inject faults ([Options].Faults, [ParseFault]), so that one
// recorded real session exercises a client's failure paths: drop the
// response stream before message N (resumed on 2025-11-25 as a server with
// an event store allows, message N served once), delay message N, end the
// session at message N, answer the request of message N with 401, 403 or
// 5xx, fail a task at the answer to a poll (tasks/get) or lose a poll's
// JSON answer, which the client polls again. Messages are numbered as [Cassette.Messages] and mcprig inspect
// number them. A fault may name a request instead of a number, by method,
// name and order, so that it survives a change of revision, which numbers
// the same call otherwise:
//
//	KIND@TARGET[:ARG]        TARGET: N, or METHOD[=NAME][#NTH]
//	end@tools/call=get_weather#2      the server dies under the second call of get_weather
//	drop@tools/call=lookup            the stream of lookup's first call breaks before its answer
//	delay@resources/read=docs://readme:200ms
//	status@tools/list:503             the first tools/list is answered 503
//	fail@tasks/get                    the task fails at its first recorded state
//
// NAME is params.name (tools/call, prompts/get) or params.uri (resources);
// NTH counts from 1 the requests of the session with that method and name,
// continuations of an input-required request (2026-07-28) counting as the
// request they continue; status acts on the request, drop, delay and end
// on its answer (its last round's). Polls that repeat the state before
// them are answered by the first poll of that state, so fail@tasks/get#K
// and drop@tasks/get#K name the first poll of a state; Open refuses
// another, naming the poll to use. See [Fault]. Faults are decided above
// the scheduler's rules, alike at both levels: a recorded tools/call is still
// never answered twice, and what a fault answered or prevented is not
// reported unused.
//
// # Compare and Verify
//
// Each [Drift] has a [Severity], so that a CI job can fail on the changes
// that matter to it: breaking (something removed, a required argument
// added, a type narrowed, a result's shape or error changed), dangerous (a
// description or the instructions changed, an annotation relaxed, a new
// tool), minor (an optional argument added, a description of an argument
// reworded) or info (order, titles, icons). [Compare] lists the rules.
// [Check] looks at one catalog, or several together, for what agents trip
// over and attackers use; [CatalogOf] reads a cassette's catalog with the
// fingerprint a client.Definition pins.
//
// [Compare] reports how two cassettes' sessions differ, by their messages
// ([Cassette.Messages]), so that a stdio and an HTTP recording of one
// session do not drift: session drift (revision, server identity,
// capabilities, instructions, the ending), catalog drift (each listed
// item) and result drift (calls paired by sender, method and params).
// [Verify] drives a live server with a cassette's client messages,
// records the live session as it goes and compares it the same way. A
// request refused 401 or 403 outside JSON-RPC and sent again by the
// recorded client (a DPoP nonce asked for, the tokenless first request)
// is sent to the live server once, as the copy sent again: the live
// factory's own credentials recover from a refusal as the recorded
// client's did, so a tools/call refused for a nonce runs once, and the
// refused copies, in the cassette and in the live session, are no drift
// (Compare leaves them out too). A refusal nothing was sent again after is
// verified as recorded: a live server that now answers it drifts. Both
// are what mcprig diff and mcprig verify print ([FormatDrifts]); diffs are
// unified line diffs of indented JSON, the same text every time. How fast
// a live task moves is the machine's: where the live server answers a
// recorded poll with its task still working and the recorded answer had
// moved on, Verify polls the live task again at the server's hint (at most
// 1,000 times within 30 seconds) and compares the last of these polls in
// the recorded one's place; the polls it superseded are left out of
// [DriftError].Live. A task that moves on to another state, or whose
// result differs, is a result drift.
//
// # Untrusted input
//
// A cassette may come from anyone: with a pull request, or from the
// server that was recorded. Load and Open read at most [MaxSize] bytes (a
// larger file is refused before it is read). A line may nest objects and
// arrays [MaxDepth] levels deep, its own object included, as encoding/json
// allows; a deeper line is a [*FormatError] wrapping [ErrTooDeep], never a
// stack overflow. A number id is an integer an int64 holds, compared by
// value exactly (3, 3.0 and 3e0 are one id); any other number id is a
// [*FormatError], never truncated into another id.
//
// The errors that quote a cassette or a live peer ([MismatchError],
// [UnusedError], [FormatError], [RecordedError], [DriftError] and Verify's
// others) show control characters as escapes: \x1b for ESC, \u009b for a
// C1 control, \u202e for a bidi override, \xff for a byte that is not
// UTF-8. A diff keeps its newlines and tabs. The errors' fields hold the
// text as recorded.
//
// # Errors
//
// A cassette that is truncated, corrupted, of a future version or edited
// into something inconsistent fails to load (or to replay, built in code)
// with a [*FormatError] naming the file and line. An option the chosen
// transport cannot use, or an argument Open cannot use, is an
// [*OptionsError] naming the function, the option and the reason.
package cassette
