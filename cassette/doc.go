// Package cassette records MCP sessions to files and replays them, so that a
// test runs against a recorded server with no server, process or network.
//
// A [Recorder] wraps a transport.Factory and writes the one session it makes
// to a cassette when the session closes; a [Player] is a transport.Factory
// that serves that session back, so a go-sdk client (or client.Connect)
// connects to it unchanged. [Open] picks one by [Mode], and [ModeFromEnv]
// takes the mode from the environment:
//
//	mode, err := cassette.ModeFromEnv() // MCPRIG_RECORD=1 records; CI replays
//	f, err := cassette.Open("testdata/docs.jsonl", stdio.New(...), &cassette.Options{
//		Mode:    mode,
//		Secrets: []string{token},
//		Strict:  true,
//	})
//	tr, err := f.Transport()
//	cs, err := mcp.NewClient(impl, nil).Connect(ctx, tr, nil)
//
// Streamable HTTP sessions are recorded below the transport's credential
// round tripper by an [HTTPRecorder], and replayed by the same [Player]:
//
//	rec := cassette.RecordHTTP(endpoint, nil, "testdata/docs.jsonl", &cassette.Options{Revealers: []cassette.Revealer{token}})
//	f, err := streamablehttp.New(endpoint, &streamablehttp.Options{Base: rec, Credentials: auth.Bearer(token)})
//	c, err := client.Connect(ctx, client.Definition{Name: "docs", Transport: f}, nil)
//	… c.Close(); err = rec.Close() // writes the cassette
//
//	p, err := cassette.Replay("testdata/docs.jsonl", nil) // a transport.Factory, as before
//	c, err := client.Connect(ctx, client.Definition{Name: "docs", Transport: p}, nil)
//
// [OpenHTTP] (or [Open] of a [*LiveHTTP], the endpoint and streamablehttp
// options of a live server) picks replay, record, record-once or
// passthrough for an HTTP server as Open does for the others; the
// recorder it returns writes the cassette when the session ends with its
// DELETE:
//
//	f, err := cassette.OpenHTTP("testdata/docs.jsonl", endpoint, &streamablehttp.Options{Credentials: auth.Bearer(token)}, &cassette.Options{Mode: mode, Revealers: []cassette.Revealer{token}})
//	c, err := client.Connect(ctx, client.Definition{Name: "docs", Transport: f}, nil)
//
// [Verify] drives a live server with a cassette's client messages and
// reports where its answers drifted from the recording (an HTTP cassette's
// by its JSON-RPC messages).
//
// # Levels
//
// stdio and in-process sessions are recorded at the message level: every
// JSON-RPC message, in both directions, in the order the client saw it,
// notifications and server-to-client requests (sampling, elicitation, roots)
// included. Streamable HTTP sessions are recorded at the http.RoundTripper
// level (wrapping the go-sdk's HTTP connection is not an option: the go-sdk
// client needs its private hooks; [Open] refuses it with [ErrHTTPLevel]),
// under the same header, with line kinds of their own (see "HTTP" below). A
// reader refuses kinds it does not know, and message lines in an HTTP
// cassette or HTTP lines in another.
//
// # Format
//
// A cassette is UTF-8 text, one JSON object per line, so that a changed
// message is one changed line in a diff (git diff --word-diff shows the change
// within it). The first line is the header:
//
//	{"format":"mcprig-cassette","version":1,"transport":"inprocess","protocol":"2025-11-25","server":"counter"}
//
// format is always "mcprig-cassette"; version is the format version (this
// package reads 1 and refuses newer ones); transport is the transport.Kind's
// name ("stdio", "inprocess", "streamablehttp", "sse"); protocol is the
// negotiated protocol revision and server the server's name, both taken from
// the initialize exchange (or, for stateless revisions without one, from the
// messages' _meta). Each following line is an interaction:
//
//	{"kind":"message","from":"client","message":{"id":2,"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"label":"first"},"name":"count"}}}
//	{"kind":"message","from":"server","message":{"id":2,"jsonrpc":"2.0","result":{"content":[{"text":"first #1","type":"text"}]}}}
//	{"kind":"stderr","text":"server log tail\n"}
//
// kind "message" holds one JSON-RPC message sent by "client" or "server",
// re-encoded canonically (object keys sorted, no insignificant space, no HTML
// escaping, numbers as written); kind "stderr" holds the tail of the server's
// standard error when [Options].Stderr asks for it. The last line is
// {"kind":"end"}: a file without it is truncated. Fields are fixed and
// unknown fields are refused. Recording the same session twice gives the
// same bytes: there are no timestamps, durations or random values in the
// file.
//
// # Redaction
//
// Nothing is written before it is redacted: every configured literal secret
// ([Options].Secrets, [Options].Revealers) found in any string, every match
// of [Options].Patterns, and every value at [Options].RedactPaths is
// replaced by a placeholder "REDACTED-<n>". A value always gets the same
// placeholder. Replay redacts the live messages with the same rules before
// matching them, and compares placeholders regardless of their number.
//
// # Replay
//
// A [Player] matches each client message against the recorded ones by
// method and canonical params, rewriting ids so the recorded response
// answers the live request's id, ignoring "_meta" (progress tokens) and
// [Options].IgnorePaths. Each recorded message is served at most once: a
// recorded tools/call is never answered twice. A request that matches no
// unserved recorded message gets, at once, a JSON-RPC error carrying a
// [*MismatchError] (the cassette, the line of the nearest recorded message,
// the method and a go-cmp diff), which the connection's Close and
// [Player.Err] also return. Recorded client messages never sent are
// reported by [Player.Unused], and by Close as an [*UnusedError] in strict
// mode.
//
// # Concurrent requests
//
// Clients issue requests concurrently (a client re-lists a catalog after a
// list_changed notification while its caller makes tool calls), so the
// order of their requests differs between recording and replay. A
// recording fixes one interleaving; replay accepts any other that the
// recording does not rule out. The rule, at both levels:
//
//   - Matching: a live client message is matched to the first unserved
//     recorded client message like it, wherever it is in the cassette.
//   - Ordering: a recorded request is ordered after every answer (a
//     server response to a client call) recorded before it: the recorded
//     client had that answer before it asked. Requests whose spans
//     overlapped (one was asked before the other was answered) were
//     concurrent, and are served in either order.
//   - Answers: the answer to a request is released once the request has
//     been served, every answer it is ordered after has been released, and
//     the client's own answers to the server requests made while it ran
//     (sampling, elicitation, roots), recorded before it, have been
//     served. So a request made early is held until the requests recorded
//     before it have been made, and a request made alone is answered
//     without waiting for requests that were merely concurrent with it.
//   - Server-initiated messages (notifications, server requests) recorded
//     at a position are released once every request recorded before them
//     has been served (recorded client notifications the live client does
//     not send are passed over once a later message is served). Released
//     messages are delivered in recorded order. At the HTTP level the
//     messages of a request's own event stream are that request's, so
//     only the standalone GET stream follows this rule.
//   - Bounds: replay never hangs on the recording. An answer held for
//     requests the live client does not make is held at most
//     [Options].Wait ([DefaultWait] if zero); then its request fails with
//     a [*MismatchError] naming the recorded requests it waited for, and
//     nothing else waits for it. A message that matches no unserved
//     recorded message fails at once.
//
// # HTTP
//
// An HTTP cassette's header names the transport "streamablehttp". Each HTTP
// request opens a stream, numbered from 1 in the order the requests were
// made, and its lines carry the number:
//
//	{"kind":"request","stream":4,"method":"POST","url":"/mcp","headers":{"Authorization":["Bearer REDACTED-1"],"Mcp-Session-Id":["session-1"],…},"message":{"id":2,"jsonrpc":"2.0","method":"tools/call",…}}
//	{"kind":"response","stream":4,"status":200,"headers":{"Content-Type":["text/event-stream"],…}}
//	{"kind":"event","stream":4,"event":"prime","id":"s2_0"}
//	{"kind":"event","stream":4,"event":"message","id":"s2_1","message":{"id":2,"jsonrpc":"2.0","result":{…}}}
//	{"kind":"close","stream":4,"end":"eof"}
//
// A "request" holds the method, the URL's path and query (the origin is not
// recorded: a loopback port would make every recording differ), the headers
// and the body; a "response" the status, the headers and, unless it is an
// event stream, the body; an "event" one server-sent event (event, id,
// retry, data); a "close" how an event stream ended: "eof" (the server
// ended it, or the stream had already carried the answer to its call),
// "dropped" (it broke), "client" (the client stopped reading), "session"
// (still open when the session ended: the standalone GET stream) or "error"
// (the request got no response). A body or data that is a JSON-RPC message
// is in "message", canonical as above; anything else is in "text". Headers
// that change from run to run or describe the connection (Date,
// Content-Length, Connection, Transfer-Encoding, …) are left out.
//
// The recorder tees each body as the client reads it: every event is
// recorded as it arrives, and nothing is held back, so the standalone GET
// stream, which lasts as long as the session, is recorded until the DELETE
// that ends the session (or until [HTTPRecorder.Close]). Lines are written
// in the order things happened, with two exceptions that keep re-recordings
// byte-identical: a close line follows its stream's last line, and a
// response without a body (202, 204) follows its request. Server-sent event
// ids are opaque to clients and random in most servers, so the recorder
// renames them ("<random>_3" becomes "s1_3"), alike in events and in
// Last-Event-ID headers. Session ids (Mcp-Session-Id) are kept: give the
// recorded server a deterministic generator (the go-sdk's
// ServerOptions.GetSessionID) for deterministic files.
//
// A [Player] of an HTTP cassette is a transport.Factory too: its transport
// is this module's streamablehttp transport at [ReplayOrigin] plus the
// recorded path, whose Base is the replaying round tripper
// ([Player.RoundTripper], [Player.Endpoint] for building one's own), so no
// request leaves the process. Each live request is matched to the first
// unserved recorded request with the same method, path, Mcp-Session-Id and
// Last-Event-ID whose JSON-RPC body matches as at the message level (method
// and canonical params, ids rewritten, "_meta" and IgnorePaths ignored,
// placeholders alike). Each recorded request is served once: a recorded
// tools/call is never answered twice. The recorded response is served with
// the recorded session id, a JSON body as JSON (its id rewritten to the live
// request's), an event stream as a stream, event by event, each event when
// the rules of "Concurrent requests" release it; the stream then ends as
// recorded: a drop breaks it (the client resumes with GET and Last-Event-ID,
// matched to the recorded resume), "client" and "session" keep it open until
// the client closes it. A request that matches nothing is a
// [*MismatchError] (kept for [Player.Err]); a call gets it as a JSON-RPC
// error, a GET or DELETE is answered 405.
//
// # HTTP and go-vcr
//
// The HTTP level follows go-vcr v4's cassette model (gopkg.in/dnaeon/go-vcr.v4)
// without its file format. go-vcr stores request/response pairs in YAML,
// each with a whole body and a duration; that cannot hold a stream whose
// events arrive over minutes, and durations and random ids would make every
// recording differ. So a cassette keeps this package's JSON Lines format, and
// go-vcr's model is used where it fits:
//
//   - Hooks: [Options].Hooks takes go-vcr's *recorder.Hook. Each exchange
//     (one stream) is presented as a go-vcr cassette.Interaction (Request
//     Method, URL, Headers, Body; Response Code, Status, Headers, Body, the
//     body of an event stream being its events as event-stream text).
//     AfterCaptureHook and BeforeSaveHook run when the recorder saves, after
//     the built-in redaction (hooks never see a secret); DiscardOnSave
//     leaves an exchange out. BeforeResponseReplayHook runs on each
//     exchange before replay serves it. A hook may rewrite events, not add
//     or remove them.
//   - Storage: [Options].FS takes go-vcr's cassette.FS for writing HTTP
//     cassettes (default: the disk, written atomically).
//   - Modes: [Mode.VCRMode] and [ModeFromVCR] map ModeReplay, ModeRecord,
//     ModeRecordOnce and ModePassthrough to go-vcr's ModeReplayOnly,
//     ModeRecordOnly, ModeRecordOnce and ModePassthrough. go-vcr's
//     ModeReplayWithNewEpisodes has no counterpart: a cassette is one
//     session.
//
// Redaction of HTTP sessions adds headers to the rules above: Authorization,
// Proxy-Authorization, Cookie, Set-Cookie and [Options].RedactHeaders are
// replaced by placeholders (an authorization scheme is kept: "Bearer
// REDACTED-1"), and every other header, URL and event field is redacted as
// text.
//
// # Errors
//
// A cassette that is truncated, corrupted, of a future version or edited into
// something inconsistent (a response to no request, a header that disagrees
// with the initialize result) fails to load with a [*FormatError] naming the
// file and line. A constructor given an argument or option it cannot use
// ([NewRecorder], [NewHTTPRecorder], [NewPlayer], [Open], [Replay],
// [Verify]) returns an [*OptionsError] naming the constructor, the option
// and the reason; [Record], [RecordHTTP] and [Cassette.Player] panic with it,
// for arguments known to be valid.
package cassette
