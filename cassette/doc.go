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
// The file format and every rule below are specified in full in
// FORMAT.md, beside this package's source.
//
// # Open
//
// [Open] is the one way in, for every transport. Given the path of a
// cassette and the live server's transport.Factory, it returns a
// [*Factory]. The factory is what client.Connect (or a go-sdk client)
// connects with. Its Close ends the session the same way on every
// transport: recording, it writes the file; replaying, it returns the
// first mismatch and the recorded requests the client never made. A
// program that holds a cassette already (loaded, or built in code) replays
// it with [Replay].
//
// # Modes
//
// [Options].Mode selects what Open does:
//
//   - [ModeReplay] (the zero value) serves the cassette; no server is
//     started. A missing cassette is [ErrNotRecorded], saying how to record it.
//   - [ModeRecord] runs the live server and rewrites the cassette.
//   - [ModeRecordOnce] replays the cassette if it exists, and records it if not.
//   - [ModePassthrough] runs the live server and neither reads nor writes.
//
// [ModeFromEnv] takes the mode from the environment: replay in CI, record
// when MCPRIG_RECORD=1, record once otherwise.
//
// # The model
//
// A cassette is a transcript of one session: a header, then one line per
// thing that happened, in order. It is JSON Lines, so a changed message is
// one changed line in a diff. stdio, in-process and legacy SSE sessions are
// recorded message by message; Streamable HTTP sessions at the HTTP level,
// which adds streams, events, drops and resumes. How the session ended is
// recorded too, and replay ends it the same way. A [Cassette] is plain
// data: one built or edited in code replays as one loaded with [Load].
// Re-recording a session gives the same bytes: ids that servers make up
// are renamed, and what only timing decides is written in a fixed order.
//
// # Matching
//
// A live client message matches the first unserved recorded message with
// the same method and canonical params. Ids are rewritten; "_meta",
// progress tokens, trace context, the client's name and version,
// [Options].IgnorePaths and the paths the cassette declares volatile are
// ignored. Each recorded answer is served once: a recorded tools/call
// is never answered twice. Requests may come in another order than
// recorded, as long as the recording does not rule it out; an answer held
// for a request the client never makes waits at most [Options].Wait. A
// message that matches nothing is a [*MismatchError] at once, naming the
// cassette, the line of the nearest recorded message and a diff against
// it. Polls of a task (tasks/get) need not match one for one: the recorded
// states are served in order, whatever the number of polls.
//
// # Faults
//
// Replay can inject faults ([Options].Faults, [ParseFault]), so that one
// recorded session exercises a client's failure paths. A fault is
// addressed by message number, or by method, name and order, which
// survives a change of revision:
//
//	end@tools/call=get_weather#2      the server dies under the second call of get_weather
//	drop@tools/call=lookup            the stream of lookup's first call breaks before its answer
//	delay@resources/read=docs://readme:200ms
//	status@tools/list:503             the first tools/list is answered 503
//	fail@tasks/get                    the task fails at its first recorded state
//
// See [Fault] for the grammar, which the fake's faults share (package
// fakeserver). FAULTS.md, at the repository's root, lists every kind of
// both, where it acts, its target and its argument.
//
// # Redaction
//
// Nothing is written before it is redacted: headers, bodies, URLs, events,
// error texts and stderr alike. By default, credentials (Authorization,
// Proxy-Authorization, DPoP, cookies) and the values the live factory hands
// its peer (a stdio child's environment) are redacted. [Options] adds
// secrets, patterns, paths and headers. Each value becomes "REDACTED-<n>",
// numbered by first appearance; the server's origin becomes "ORIGIN".
// Live messages are redacted the same way before matching, so matching
// still works. The header names the recording's redaction rules by their
// digest: replay or Verify with other rules is a [*RedactionError].
//
// # Compare and Verify
//
// [Compare] reports how two cassettes' sessions differ; [Verify] drives a
// live server with a cassette's requests and reports the drift.
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
// # Errors
//
// A cassette that is truncated, corrupted, of a future version or edited
// into something inconsistent is a [*FormatError] naming the file and line.
// An option the transport cannot use is an [*OptionsError]. A cassette is
// untrusted input: reads are bounded ([MaxSize], [MaxDepth]), and errors
// that quote it show control characters as escapes.
//
// Package cassette/vcr adds go-vcr's hooks and storage to [Options] and
// maps go-vcr's recorder modes.
package cassette
