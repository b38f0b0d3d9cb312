// Package server publishes tools, resources and prompts over MCP, with
// bounded, validated JSON.
//
// It is a registry around the go-sdk's mcp.Server, which speaks the
// protocol. This package adds the policy. Every tool's arguments are
// checked against its JSON Schema (github.com/google/jsonschema-go) and
// bounded in bytes before its handler runs. Every result is bounded in
// bytes before it is sent. A handler that fails, panics or overflows gives
// the caller a clear error, and the session goes on serving.
//
//	srv, err := server.New("docs", "v1.0.0", nil)
//	err = server.RegisterToolFor(srv, &mcp.Tool{Name: "lookup"},
//		func(ctx context.Context, req *mcp.CallToolRequest, in struct{ Query string `json:"query"` }) (*mcp.CallToolResult, any, error) {
//			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "docs: " + in.Query}}}, nil, nil
//		})
//	err = srv.ServeStdio(ctx, os.Stdin, os.Stdout)
//
// # What a caller sees when a call fails
//
// A tool failure is a tool result with isError set, whose text says what
// went wrong, so that a model can read it and correct the call:
//
//	invalid input: …        arguments not an object or not matching the schema (CallInvalidInput)
//	input too large: …      arguments over Options.MaxInputBytes (CallInputTooLarge)
//	result too large: …     the encoded result over Options.MaxResultBytes (CallResultTooLarge)
//	handler panicked: …     the handler panicked; the stack goes to Options.Logger only (CallPanic)
//	<the handler's error>   the handler returned an error
//
// Options.Logger receives each as an error: the first four are a
// *CallError whose Reason is the one named.
//
// Two failures are JSON-RPC errors instead: a call to an unknown tool (the
// go-sdk's invalid-params error), and a handler error that is itself a
// *jsonrpc.Error (sent as is). Resources and prompts have no isError
// result, so their failures are always JSON-RPC errors.
//
// # Bounds
//
// Options.MaxInputBytes (default [DefaultMaxInputBytes], 1 MiB) bounds a
// tool call's encoded arguments and a prompt's arguments.
// Options.MaxResultBytes (default [DefaultMaxResultBytes], 4 MiB) bounds
// the encoded result of a tool call, a resource read or a prompt. The
// transport bounds the frame size on the wire (ServeStdio: the go-sdk's
// 16 MiB).
//
// # Tools that need the user
//
// A tool, prompt or resource handler may need the user (elicitation), the
// client's model (sampling) or the client's roots. It does not call the
// client. It returns a result with InputRequests set (and no content), and
// optionally a RequestState. The call is then continued: the handler runs
// again with the same arguments. req.Params.InputResponses holds the
// answers under the keys of the requests; [ElicitResponse],
// [SamplingResponse] and [RootsResponse] read them.
// req.Params.RequestState holds the state it returned. It may ask again,
// up to Options.MaxInputRounds times, or finish:
//
//	func remove(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
//		if r, ok := server.ElicitResponse(req.Params.InputResponses, "confirm"); ok && r.Action == "accept" {
//			return deleteIt(ctx, req)
//		}
//		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
//			"confirm": &mcp.ElicitParams{Message: "Delete it?", RequestedSchema: schema},
//		}}, nil
//	}
//
// Such a handler is written once and works on both protocol revisions. On
// 2026-07-28 the result reaches the client as an input-required result.
// The client sends the continuation (multi round-trip requests, SEP-2322)
// to any replica of the server. On 2025-11-25 and older, the go-sdk's
// engine asks the client with server-to-client requests within the one
// call. It runs the handler again with the answers, round after round. The
// client sees one call and one result. Either way one call has one
// execution that completes it, and one per round before it.
//
// Before an input-required result leaves, the server checks it:
//   - The client must have declared the capability each request needs.
//     Otherwise the call fails with the JSON-RPC error -32021,
//     MissingRequiredClientCapabilityError, whose data names them.
//   - The rounds stay within the bound (CallTooManyRounds).
//   - A 2025-11-25 client on stateless HTTP cannot be asked. It gets
//     CallInputUnavailable.
//
// The RequestState is sealed with Options.StateKey. Some continuations are
// refused with invalid params (-32602) before the handler runs: one whose
// state was altered or forged, or issued for another tool, prompt,
// resource, other arguments or another authenticated principal. So is one
// whose state is older than Options.StateTTL (15 minutes), or was used
// before. Each state continues its call once. Options.StateStore remembers
// the uses; see [StateStore] for servers that share the key. Answers sent
// without any state (inputResponses, no requestState) answer requests that
// were never made. They are refused the same way. The client can read the
// handler's own state: it is signed, not encrypted, so keep secrets out of
// it. The answers themselves come from the client; check them as any
// input.
//
// # Skills
//
// With Options.Skills set, the server offers the skills extension
// (io.modelcontextprotocol/skills, SEP-2640). server/discover declares it.
// skills/list (paged) and skills/get answer each skill's entry: its
// SKILL.md URI, its frontmatter, and every file with the digest and size
// the server computed. Each file is a resource at skill://<path>/<file>,
// read with resources/read. resources/directory/read lists a skill
// directory's children when SkillOptions.DirectoryRead is set. An unknown
// URI is -32602. Skills come from an fs.FS (every directory holding a
// SKILL.md) or from SkillDefinitions. New refuses one that breaks the
// extension's rules: a name unlike its directory's, over 512 files or
// 16 MiB. The go-sdk v1.8.0 has no skills: the methods are custom methods.
//
// # Tools that run as tasks
//
// With Options.Tasks set, the server offers the tasks extension
// (io.modelcontextprotocol/tasks, SEP-2663). It does so on 2026-07-28 over
// [Server.HTTPHandler] and [Server.ServeStdio]. [Server.RegisterTaskTool]
// publishes a tool that runs as a task. A client may declare the
// extension in the request's capabilities. Its tools/call is then answered
// at once with the task (a CreateTaskResult), and the handler runs on
// after the reply:
//
//	{"resultType":"task","taskId":"3q2-7wAAAAAAAAAAAAAAAA","status":"working",
//	 "createdAt":"…","lastUpdatedAt":"…","ttlMs":3600000,"pollIntervalMs":500}
//
// The client polls tasks/get. Its reply (resultType "complete") is the
// task, with one more field by status:
//   - inputRequests (input_required): what the handler asked for and is
//     not yet answered.
//   - result (completed): the tool's result, an isError one for a tool
//     failure.
//   - error (failed): a *jsonrpc.Error the handler returned, or -32603 for
//     a panic.
//
// The client answers input with tasks/update {taskId, inputResponses}. The
// answered keys leave inputRequests, and keys not asked for are ignored.
// Once all are answered, the handler runs again with them, as a
// continuation would (see "Tools that need the user"). A task not
// input_required refuses an update with -32602. tasks/cancel ends the
// task, and its handler's context ends. It is acknowledged
// {"resultType":"complete"}, for a finished task too. The handler runs
// once per round however often the client polls.
//
// A task tool is optional or required. An optional one runs in the request
// for a client without the extension. A required one
// (TaskToolOptions.Required) refuses such a client before the handler
// runs. The client gets -32021 with data {"requiredCapabilities":
// {"extensions":{"io.modelcontextprotocol/tasks":{}}}}.
// TaskToolOptions.InputFirst lets a handler gather its input with
// input-required results in the request. The continuation that carries
// the answers then becomes the task. tasks/* without the extension
// declared get -32021. A tasks/* request's Mcp-Method must be its method
// and its Mcp-Name its taskId. Otherwise it gets 400 and -32020, header
// mismatch.
//
// Task ids are 128 random bits. A task belongs to the authenticated
// principal that started it (auth.TokenInfo.UserID). To any other
// principal its id reads as an unknown task (-32602), as a guessed one
// does. (Without authentication every client is the same principal, and
// the id is the only secret. A stdio session has no principal.) The bounds
// are in TaskOptions:
//   - Tasks per principal in the store: DefaultMaxTasks, 100. Past it the
//     tools/call gets -32603 and its handler does not run.
//   - Time to live: DefaultTaskTTL, 1 hour. The task is then cancelled and
//     forgotten.
//   - Result size: DefaultTaskResultBytes, 1 MiB, and never over
//     Options.MaxResultBytes. A larger result completes the task with an
//     isError "result too large".
//
// [Server.Close] cancels the tasks still running and waits for their
// handlers. Replicas share tasks through a store over shared storage that
// implements [TaskSignals] (github.com/looprig/mcp/redisstore). A task
// started at one is polled, answered and cancelled through any. Its
// status pushes reach a listen stream at any replica (TaskWatcher).
//
// The go-sdk v1.8.0 has no tasks: it refuses methods it does not know
// before any middleware, and its tools/call result cannot carry a task.
// HTTPHandler therefore answers tasks/* itself from the body it has read,
// and serves a task tool's tools/call through the go-sdk into a buffer,
// replacing the reply with the task when one was started (such a call's
// reply is sent when its handler returns, not streamed). Over
// [Server.Serve] (ServeStdio, or a transport of the caller's) and
// [Server.Factory] the session's connection answers tasks/* from the
// messages it reads and sends a started task in its call's result's
// place; such a session has no principal.
//
// Status pushes: over HTTPHandler, a 2026-07-28 subscriptions/listen
// whose notifications name taskIds, from a client that declares the
// extension, is answered by this package (the go-sdk knows no taskIds and
// sends no notifications/tasks). Its acknowledgement names the ids of the
// request's principal (another's reads as unknown, and is left out),
// among the first [MaxListenTasks] distinct ids it names. Each later status change of those tasks is sent
// as a notifications/tasks (the task as tasks/get reports it, and the
// listen's subscriptionId), once and in order; the stream ends with the
// listen's result once every task named has ended. A client that reads
// slowly has at most [DefaultTaskPushQueue] changes queued; later ones
// are dropped and counted in Options.Logger, and tasks/get still reads
// them. It needs a store that implements [TaskWatcher]
// (NewMemoryTaskStore's does; redisstore's across replicas). Such a
// listen agrees to taskIds only: list changes need a listen of their
// own. Sessions of 2025-11-25 and earlier, and Serve, ServeStdio and
// Factory, get no pushes: the tasks extension is 2026-07-28's, and their
// clients poll.
//
// # Determinism
//
// The server adds no clocks, random values or map-order leaks to what it
// sends. Lists are sorted by name, and JSON objects are encoded with
// sorted keys. A schema violation names the first invalid property in
// sorted order. Only HTTP session ids and sealed request states vary. For
// the same bytes from the same calls, set Options.SessionID, and
// Options.StateKey with a negative StateTTL.
//
// # Serving
//
// [Server.Serve] runs one session over any go-sdk transport.
// [Server.ServeStdio] runs one over a reader and a writer. [Server.Factory]
// gives an in-process transport.Factory for clients in the same process.
// Each serves whichever revision the client negotiates.
//
// [Server.HTTPHandler] serves Streamable HTTP to clients of every
// revision. A 2026-07-28 request stands alone, with no session. Its
// headers Mcp-Method, Mcp-Name and Mcp-Param-* must match its body.
// Otherwise it is refused with 400 and -32020, header mismatch.
// server/discover and subscriptions/listen are answered. Older clients get
// stateful sessions. These have an event store, so that a client can
// resume a dropped stream with Last-Event-ID. They have the GET stream,
// session DELETE, and server-to-client requests for tools that need the
// user. That default suits most servers. HTTPOptions.Stateless serves
// older clients without sessions too, for replicas behind a load
// balancer. Either way every request first passes the Host and Origin
// checks against DNS rebinding, and the body bound. [HTTPOptions] gives
// each. Every listener of this module keeps the same Host and Origin rule:
// mcprig record and replay with --listen, the fake servers, mcptest's
// authorization server. [Server.SSEHandler] serves the legacy 2024-11-05
// HTTP+SSE shape, for clients that still need it. [Server.MCP] is the
// escape hatch to the go-sdk server.
//
// # Hostile clients
//
// Whatever decides how a request is served reads it as the go-sdk will:
// keys matched exactly, the last of duplicate keys, nesting at most 1,000
// deep. What another reader could read otherwise is refused before the
// go-sdk sees it, since a parser differential is how request smuggling
// starts. Over HTTP (HTTPHandler in both modes, SSEHandler) and on stdio
// (ServeStdio), these are refused before any handler runs:
//
//   - A message holding a key that another JSON reader would read
//     otherwise. That is a key given twice in the message, its params or
//     their _meta ("method" twice: the go-sdk takes the last, other
//     readers the first). It is also two keys of the message or of its
//     params equal ignoring case. It is also a key equal to the protocol's
//     own ignoring case without being it: "_META", "_Meta", "PARAMS"
//     beside "params", or "Method", which the go-sdk would take for a
//     response and answer 202. Such a message gets the error -32600
//     (invalid request), id null; over HTTP with 400.
//   - A request whose id the reply could not carry unchanged. The go-sdk
//     keeps a number as int64(float64(n)). So 9007199254740993 would come
//     back as 9007199254740992, 1.5 as 1, and a number past the int64
//     range as the smallest int64. It reads a string with invalid UTF-8
//     or a lone surrogate with U+FFFD in their place. It reads a null id
//     as a notification it never answers. Such a request gets -32600 with
//     id null (400 over HTTP). A 2025-03-26 batch holding one is refused
//     whole. Strings and integers of at most 2^53 in magnitude are
//     answered as sent. (An integer written otherwise, 1e2, is answered by
//     its value, 100.)
//   - An Mcp-* header sent more than once. Readers differ on which value
//     counts, and the go-sdk reads the first. It gets 400 and -32020
//     (header mismatch), or -32600 for Mcp-Session-Id.
//
// HTTPHandler also refuses, with 400:
//
//   - In the default mode, a POST without a session that names no
//     revision. It has no Mcp-Protocol-Version header and no protocol
//     version in its requests' _meta (as the go-sdk reads it: a string).
//     It is not an initialize. It gets -32020: a 2026-07-28 request needs
//     the header.
//     With an older header it gets -32600: an older revision's requests
//     need the session an initialize opens. (The go-sdk would open a
//     session and answer code 0.) In Stateless mode such a request is a
//     2025-03-26 request, and is served as one. A POST of notifications
//     alone runs nothing and is accepted (202) in either mode: the
//     go-sdk's client sends a 2026-07-28 notifications/cancelled with no
//     _meta and no header.
//   - On a 2026-07-28 tools/call, a mirrored argument whose value no
//     Mcp-Param-* header can carry. That is anything but a string, a
//     boolean or an integer of at most 2^53-1 in magnitude: 1e300, 1.5, an
//     object. It gets -32602, the invalid argument it is. (The go-sdk
//     would call it a header mismatch.)
//   - An Mcp-Param-* header that mirrors no argument of the tool, or any
//     on another method. It gets -32020. (The go-sdk would ignore it. A
//     proxy that routes on it would then read what the server never
//     checked.)
//
// A session is bound to the principal that opened it (see [HTTPHandler]).
// At most HTTPOptions.MaxSessions are open at once (10,000). Past it a
// request gets 503 and -32603, and nothing is evicted. Each idle session
// ends after IdleTimeout. A POST body is read within
// HTTPOptions.BodyTimeout (30 s) and MaxBodyBytes (4 MiB). Every refusal
// and every failure carries a valid JSON-RPC code. The code is the
// specification's (-32600, -32601, -32602, -32603) or MCP's (-32020,
// -32021, -32022). A handler's error without a code is -32603, never the
// go-sdk's code 0.
//
// Server.Serve over a transport of the caller's own reads messages as that
// transport decodes them. The checks above are those of ServeStdio and the
// HTTP handlers, which see the bytes.
//
// # Completion, subscriptions and caching
//
// Options.Completion answers completion/complete. With
// Options.Subscriptions, clients may subscribe to registered resources,
// and [Server.ResourceUpdated] notifies them. Options.Cache sets the caching hints
// (ttlMs, cacheScope) of list results, server/discover and resource reads.
package server
