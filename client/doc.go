// Package client connects to one MCP server safely and exposes its tools to
// a model harness.
//
// A [Definition] names the server and chooses the protocol revision
// ([Profile]). It bounds what the server controls ([Limits]). It says how
// to reach the server: a [transport.Factory] for stdio, Streamable HTTP,
// legacy SSE, in-process, or a replaying cassette. The transport is always
// chosen explicitly. [Connect] negotiates the revision and discovers
// tools, resources and prompts page by page, within the limits. It
// fingerprints the catalog and serves the typed [Handlers]: sampling,
// elicitation, roots, logging, progress and list changes.
//
//	f, err := stdio.New("docs-server", []string{"--stdio"}, nil)
//	if err != nil { ... }
//	c, err := client.Connect(ctx, client.Definition{Name: "docs", Transport: f}, nil)
//	if err != nil { ... }
//	defer c.Close()
//	res, err := c.CallModel(ctx, "mcp__docs__lookup", map[string]any{"query": "close"})
//
// (Example_stdio is this snippet, compiled.)
//
// # Protocol revisions
//
// The zero [Profile], [ProfileDefault], negotiates as the go-sdk does. It
// offers 2026-07-28 (server/discover, no session, per-request _meta). It
// accepts 2025-11-25 (initialize and a session) from a server that does
// not know server/discover. A named profile ([Profile20260728],
// [Profile20251125], [Profile20250618], [Profile20250326]) pins one
// revision. It refuses a server that negotiates another with
// [ErrRevisionMismatch], which names both revisions. [ProfileLegacy]
// (2024-11-05) goes with transport/sse only. [Client.ProtocolVersion] says
// what was negotiated. Scripts and flags name profiles as [ParseProfile]
// reads them: "default", "legacy" or a revision date.
//
// # Requests that need the user
//
// A server may need the user in the middle of a request: a sample from the
// model, an answer to a form (elicitation), the client's roots. On
// 2025-11-25 it asks during the call and [Handlers] answer. On 2026-07-28
// it answers the tools/call, prompts/get or resources/read with an
// input-required result instead. The client fulfils it through the same
// Handlers. It then sends the continuation the server asked for: the
// answers and the server's requestState. It does so at most
// Limits.MaxInputRounds times, load shedding included ([ReasonInputRounds]).
// A request for input that no handler serves fails at once
// ([ErrNoHandler]). The continuation is the only tools/call the client
// ever sends again.
//
// # Long-running tools: tasks
//
// On 2026-07-28 a server may run a tool as a task. This is the tasks
// extension (io.modelcontextprotocol/tasks, SEP-2663). The server answers
// the tools/call with a task handle, and the client polls tasks/get until
// the task ends. The client declares the extension in a request's
// capabilities only when the caller opts in. Definition.Tasks opts in for
// CallTool and CallModel, [Client.StartTool] for one call.
//
// A task still reads as one call. CallTool waits for its outcome. It polls
// at the server's hint, within Limits.TaskPollMin and TaskPollMax. It polls
// at most Limits.MaxTaskPolls times ([ReasonTaskPolls]) and for at most
// Limits.TaskTimeout ([ErrTaskTimeout]). A task that needs input is
// answered through the Handlers, as an input-required result is, with one
// tasks/update per round. CallTool sends tasks/cancel when it gives up.
// A [Task] is the handle for a caller that manages a long job itself:
// [Task.Status], [Task.Wait], [Task.Cancel]. [Client.Task] takes up a
// known task again, on any connection to the same server.
//
// Polling is a read, safe to repeat. A poll may lose its reply, or the
// transport may turn it down before the server answers it: over HTTP a 429
// or 5xx status, or a request that could not be sent. Such a poll is sent
// again, within the same MaxTaskPolls and TaskTimeout. Their errors then
// wrap the last poll's failure. A lost connection leaves a [*TaskError]
// naming the task. A tasks/update follows the rule of a tools/call. One
// that fails is never sent again. One whose reply is lost fails with
// [ErrOutcomeUnknown].
//
// A caller may give up after the tools/call went out and before the reply
// that creates the task arrives. When the server lists the extension, such
// a call is sent on a context of its own. That context outlives the
// caller's by [TaskCancelWait]. The caller returns at once with its
// context's error. The call goes on, on a goroutine the Client owns and
// Close drains. It waits for its reply and cancels the task the reply
// names (tasks/cancel, within TaskCancelWait). A reply that does not come
// in time is cancelled as any request is (notifications/cancelled). The
// tools/call is never sent again. (A synchronous tool on such a server
// hears of the cancellation TaskCancelWait late.)
//
// A server may push a task's status changes (notifications/tasks, on the
// subscriptions/listen stream or any stream the client reads). The client
// takes them from the connection, as it takes log messages, and a wait on
// the task named polls it at once, once Limits.TaskPollMin has passed
// since its last poll, instead of at the end of the interval; the poll,
// counted as any, reads the task's state. A push that comes before the
// wait begins is kept, for the last 64 tasks the client started.
//
// On 2026-07-28 over Streamable HTTP, a wait of a Definition with Tasks
// and TaskListen asks for those pushes itself (TaskListen is off by
// default: a listen's timing is not the same twice, so a recording
// through mcprig record would differ). It opens a subscriptions/listen naming
// its task, and waits for the server's answer before its first sleep
// (ListAckWait at most). Once the server acknowledges the task, the wait
// polls at Limits.TaskPollMax, within TaskTimeout. A push, or the listen's
// end (the server ends it when the task ends), wakes it to poll. A push
// is never taken for the result: a tasks/get reads it. A server that does
// not acknowledge the task is polled as before. The listen ends with the
// wait, and Close ends the wait. A client holds at most 8 task listens at
// once, each on one of the transport's streams; a wait past them polls.
// A cassette that records or replays opens none.
//
// The go-sdk v1.8.0 has no tasks support. The client sends tasks/get,
// tasks/update and tasks/cancel as the go-sdk's custom methods
// (mcp.CallCustomMethod). The go-sdk's decoding of the tools/call answer
// drops the task's fields, so the client reads a task handle before that
// decoding. It wraps the connection to do so. Over Streamable HTTP the
// go-sdk needs the connection unwrapped, so the client reads it through
// the transport instead (streamablehttp.Transport.SetTap).
//
// # Skills
//
// With Definition.Skills set, the client declares the skills extension
// (io.modelcontextprotocol/skills, SEP-2640). It lists a server's skills
// with its tools (Catalog.Skills). Each skill is a SKILL.md URI, its
// frontmatter, and every file with a sha256 digest and a size. Listing
// fetches no file. [Client.LoadSkill] fetches one SKILL.md,
// [Client.ReadSkillFile] one other file. Each checks the bytes against the
// entry before returning them: their size and digest, and a SKILL.md's
// frontmatter field by field. A difference is a [SkillError] naming the
// skill, the file and what differed, and nothing is returned. The go-sdk v1.8.0 has no skills:
// skills/list is sent as a custom method.
//
// # Bindings
//
// Each tool becomes a [Binding] whose model name, mcp__<server>__<tool>, is
// safe for any LLM tool-calling API (see [ModelNames]). A harness may disable
// a binding; a disabled binding refuses calls.
//
// # Pinning the catalog
//
// A Definition may pin the catalog's fingerprint. The server's catalog may
// differ, at connect or after the server announces a change. The client
// then reports a [Drift], and the changed tools refuse calls until
// [Client.AcceptCatalog]. So a server cannot silently swap a tool's
// description or schema under a model.
//
// # Failures
//
// Every error is, or wraps, a [*Error] with a [FailureClass]. When the
// server was a child process, the error also holds a diagnosis: the exit
// status and the tail of its stderr. [Error.ConnectionRetryable] says
// whether reconnecting may help. This package never retries a tool call: a
// tool runs at most once per call. A call may be sent and its reply lost:
// its stream broke with nothing to resume, the server exited under it, or
// it timed out. Then the error wraps [ErrOutcomeUnknown]. The tool may or
// may not have run, and the caller decides what to do.
//
// # Closing
//
// [Client.Close] refuses new calls at once. It lets in-flight calls finish
// within Limits.DrainTimeout and cancels the rest. It unsubscribes from
// resources and then closes the transport. It is bounded whatever the
// server and the handlers do: DrainTimeout, plus the transport's own close
// bound or [HandlerGrace]. When it returns no handler runs, except one
// that ignores its context. Close reports that one ([ReasonHandlerStuck]).
//
// # Notifications
//
// The server's notifications are logging, progress, resource updates and
// list changes. The client handles them one at a time on a goroutine of
// its own. They wait in a queue of at most Limits.MaxQueuedNotifications.
// A server may send faster than the handlers return. Then the excess is
// dropped and counted ([Client.DroppedNotifications]). List changes
// coalesce: one re-discovery per list is pending at most. The client stops
// reading the connection while the go-sdk holds more than a few hundred
// notifications it has not yet handed over. So memory stays bounded under
// a flood.
//
// Log messages and progress are taken from the connection before the
// go-sdk reads them. This holds on every transport but a Streamable HTTP
// one from elsewhere. Their params are decoded once, as the go-sdk decodes
// them. They are queued among the rest in the order the server sent them.
// Each costs about 1 KiB to read, where the go-sdk's decoder would
// allocate 32 KiB.
package client
