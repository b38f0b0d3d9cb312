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
// [Verify] drives a live server with a cassette's client messages and
// reports where its answers drifted from the recording.
//
// # Levels
//
// stdio and in-process sessions are recorded at the message level: every
// JSON-RPC message, in both directions, in the order the client saw it,
// notifications and server-to-client requests (sampling, elicitation, roots)
// included. HTTP sessions will be recorded at the http.RoundTripper level
// under the same header, with interaction kinds of their own; a reader
// refuses kinds it does not know.
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
// A [Player] matches each client message against the next recorded one by
// method and canonical params, rewriting ids so the recorded response
// answers the live request's id, ignoring "_meta" (progress tokens) and
// [Options].IgnorePaths. Each recorded message is served once, in order: a
// recorded tools/call is never answered twice. A request that matches
// nothing gets a JSON-RPC error carrying a [*MismatchError] (the cassette,
// the line of the nearest recorded message, the method and a go-cmp diff),
// which the connection's Close and [Player.Err] also return. Recorded client
// messages never sent are reported by [Player.Unused], and by Close as an
// [*UnusedError] in strict mode.
//
// # Errors
//
// A cassette that is truncated, corrupted, of a future version or edited into
// something inconsistent (a response to no request, a header that disagrees
// with the initialize result) fails to load with a [*FormatError] naming the
// file and line.
package cassette
