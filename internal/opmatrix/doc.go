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
// notifications, re-discovered) is made through client.Client and through
// the go-sdk session it exposes (Client.Session), over each transport
// (in-process; stdio, a child that re-runs the test binary; Streamable HTTP
// stateful and stateless; legacy SSE at 2024-11-05, its only revision), at
// each revision (2026-07-28, 2025-11-25), against this module's server, the
// fake server and a plain go-sdk mcp.Server serving the same catalog. A
// cell is one operation made one way against one server over one transport
// at one revision, in one mode:
//
//   - live, it gives what the protocol says (a result; the cancelled call
//     its cancellation; the read of a missing resource its error class);
//   - recorded (cassette.Open in record mode here; mcprig record in
//     cmd/mcprig's TestOperationMatrixMcprig), it gives what live gave;
//   - replayed (cassette.Open in replay mode; mcprig replay), it gives what
//     live gave, result and error class.
//
// And of each group's recordings: two recordings of the same session have
// the same bytes, cassette.Verify of one against the live server finds no
// drift, and the replay closes cleanly (every recorded request made).
//
// Cells that cannot exist (an operation client.Client has no method for, a
// catalog entry a fakeserver.Definition cannot hold, a server request at
// 2025-11-25 served statelessly, legacy SSE at any revision but 2024-11-05,
// the go-sdk's stateful HTTP at 2026-07-28) are listed as such under the
// table, with why, and not run.
//
// How it stays fast. One server per group (server, transport, revision),
// shared by its sessions; groups run in parallel; each session makes every
// operation once, in order (Ops), so a group is a handful of sessions:
// live, two recordings, a verify, a replay. Stdio children are started only
// for the stdio groups. go test -v -run TestOperationMatrix prints the
// table; .ci/run prints it in CI.
//
// Its helpers (the servers, the script, the report) are exported for
// cmd/mcprig's matrix; the package has no other users.
package opmatrix
