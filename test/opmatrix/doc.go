// Package opmatrix is the operation matrix: every public operation of MCP
// a client makes, made every way, gives the same result live, recorded and
// replayed, on every transport and revision, against every kind of server.
//
// What it proves. Each operation (ping; tools list, call — plain, with
// progress, cancelled; resources list, read, an error answer, templates,
// subscribe and unsubscribe, which are subscriptions/listen on 2026-07-28;
// prompts list and get; completion; logging, setLevel and the per-request
// level of 2026-07-28; sampling, elicitation and roots, server requests on
// 2025-11-25 and input-required rounds on 2026-07-28; list-changed
// notifications, re-discovered; a tools/call that runs as a task, and one
// whose caller gives up while its task runs) is made through client.Client
// and through the go-sdk session it exposes (Client.Session), over each transport
// (in-process; stdio, a child that re-runs the test binary; Streamable HTTP
// stateful and stateless; legacy SSE at 2024-11-05, its only revision), at
// each revision (2026-07-28, 2025-11-25), against this module's server, the
// fake server and a plain go-sdk mcp.Server serving the same catalog. A
// cell is one operation made one way against one server over one transport
// at one revision, in one mode:
//
//   - live, it gives what the protocol says (a result; the cancelled call
//     its cancellation; the read of a missing resource its error class;
//     the given-up task its cancellation, and "cancelled" when polled
//     after: the client sent tasks/cancel);
//   - recorded (cassette.Open in record mode here; mcprig record in
//     cmd/mcprig's TestOperationMatrixMcprig), it gives what live gave;
//   - replayed (cassette.Open in replay mode; mcprig replay), it gives what
//     live gave, result and error class.
//
// And of each group's recordings: two recordings of the same session have
// the same bytes, cassette.Verify of one against the live server finds no
// drift, and the replay closes cleanly (every recorded request made).
//
// Tasks (the tasks extension of 2026-07-28, SEP-2663). Beside each group
// at 2026-07-28 whose server has tasks (this module's and the fake's) is a
// task group ("+tasks"): the same server offering the extension, with two
// tools that run only as tasks (so that a call which is not one is refused,
// -32021), and a client with Definition.Tasks. It makes the task
// operations only; the other groups make all but those. The job task
// answers at once: CallTool reads the handle (working), polls tasks/get
// once and returns the result. The hold task asks for input at once
// (input_required, which the first poll reads); Handlers.Elicitation ends
// the caller's context, CallTool returns the cancellation and sends
// tasks/cancel, and a poll of the task (Client.Task) then reads cancelled.
// Nothing waits on a timer of the test's: the tasks' servers decide their
// states, and the client polls at TaskPoll (100 ms, the servers' hint and
// the client's bounds). The number of polls is then one per task: 30
// recordings of every task group, under -race with a second copy running,
// each held exactly two tasks/get. So two recordings of a task group are
// compared byte for byte too, but for the task times a server reports
// from its clock (createdAt and lastUpdatedAt, in handles and polls),
// which are replaced by "…" in both before the comparison; the other
// groups' recordings are compared as they are.
//
// Skills (the skills extension, SEP-2640). Each group at 2026-07-28 without
// tasks whose server has skills (this module's and the fake's, one skill
// each) has a client with Definition.Skills: it lists the skills, loads the
// skill's SKILL.md and reads one of its files, each verified against the
// skill's entry, through client.Client only.
//
// Cells that cannot exist (an operation client.Client has no method for, a
// catalog entry a fakeserver.Catalog cannot hold, a server request at
// 2025-11-25 served statelessly, legacy SSE at any revision but 2024-11-05,
// the go-sdk's stateful HTTP at 2026-07-28; a task at 2025-11-25, on the
// plain go-sdk server or through the go-sdk session, none of which has the
// tasks extension) are listed as such under the table, with why, and not
// run.
//
// How it stays fast. One server per group (server, transport, revision),
// shared by its sessions; groups run in parallel; each session makes every
// operation once, in order (Ops), so a group is a handful of sessions:
// live, two recordings, a verify, a replay. Stdio children are started only
// for the stdio groups. go test -v -run TestOperationMatrix prints the
// table; .ci/run prints it in CI.
//
// Its helpers (the servers, the script, the report) are exported for
// cmd/mcprig's matrix, a test; the package has no other users. It is a
// harness, not API (see package test).
package opmatrix
