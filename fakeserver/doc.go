// Package fakeserver is a deterministic fake MCP server with scripted
// faults, for testing clients. It runs in-process, as a stdio child, and
// over HTTP (stateful or stateless). It speaks protocol revisions
// 2025-11-25 and 2026-07-28, or one of them only. (Options.Revision makes
// a server from before 2026-07-28, or one of that revision alone.) It
// serves built-in catalogs, a catalog of your own tools, resources and
// prompts ([Catalog]), or your own server under test ([Wrap]).
//
//	fs, err := fakeserver.New(&fakeserver.Options{
//		Faults: []fakeserver.Fault{{Kind: fakeserver.FaultDelay, Tool: "lookup", Delay: 50 * time.Millisecond}},
//	})
//	c, err := client.Connect(ctx, client.Definition{Name: "docs", Transport: fs.Factory()}, nil)
//	…
//	if n := fs.Counts().Executions["lookup"]; n != 1 { … } // the call ran exactly once
//
// [New] and [Wrap] return errors for bad input (an unknown catalog, an
// invalid custom catalog or fault), which often comes from scripts and flags.
//
// # Your own tools
//
// A [Catalog] declares tools, resources and prompts. A tool has a name,
// schemas, annotations, and a [Reply]. The reply is [Text], [Result],
// [Sequence] call by call, [Error], or a function of the [Call]. A fake
// built from it is deterministic, counted and takes every fault, as the
// built-in catalogs do:
//
//	weather := &fakeserver.Catalog{Name: "weather", Tools: []fakeserver.Tool{{
//		Name:        "get_weather",
//		InputSchema: `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`,
//		Reply:       fakeserver.Sequence(fakeserver.Text("sunny"), fakeserver.Error("rate limited")),
//	}}}
//	fs, err := fakeserver.New(&fakeserver.Options{Custom: weather, Faults: …})
//
// A stdio child finds a custom catalog by name: [Register] it (mcptest.Main
// does) and run the child with --catalog NAME.
//
// # Your own server
//
// [Wrap] puts the same fault script and counters around a go-sdk
// *mcp.Server or a *server.Server, served in-process ([Server.Factory])
// and over HTTP ([Server.StartHTTP]).
//
// # Catalogs
//
// A built-in catalog is a fixed set of tools, resources and prompts.
// "docs" (the default) publishes the tool lookup (input {"query": string},
// reply "docs: <query>"), the resource docs://readme and the prompt
// summarize (argument topic). "rich" adds tools that exercise every client
// feature:
//   - sample (sampling), elicit (elicitation) and roots;
//   - log (logging; the client must set a level);
//   - progress (for the call's progress token);
//   - toggle, which adds or removes the tool ephemeral, so the client gets
//     tools/list_changed;
//   - item-00 … item-24, with a page size of 10, so that every list is
//     paginated.
//
// sample, elicit and roots need the client. They are written once for
// both revisions, with input-required results (SEP-2322): round 1 asks,
// round 2 answers. On 2026-07-28 the client continues the call with a
// second request carrying the answer. On 2025-11-25 the go-sdk sends the
// request to the client during the call and runs round 2 itself. Each such
// call is two rounds and one execution on either revision.
//
// # Determinism
//
// Same requests, same bytes out. Replies are derived only from the
// requests, and lists are sorted. Nothing depends on clocks, random values
// or map order. The log on stderr has no timestamps. The go-sdk sends the
// list-changed notification after toggle after a short debounce. So its
// position relative to other messages is the one thing that may vary.
//
// # Counting
//
// Every round of a tool is counted per tool before any fault acts. A round
// is a tools/call request whose input has passed validation. So is every
// execution: a round that did not end by asking for input ([Counts]).
// [Server.Counts] reads them in-process, as one snapshot. For a child
// process, read them with [ReadCounts] from the file named by --count-file
// (Options.CountFile). The file is rewritten atomically after each round.
//
// # Faults
//
// Faults are [Fault] values, or text for the --fault flag in the form
// KIND[@TOOL][:ARG] (see [Fault] and [ParseFault]), the grammar replay's
// faults share (package cassette). FAULTS.md, at the repository's root,
// lists every kind, where it acts, its target and its argument. Delay, hang, error,
// panic, oversize, flood-notifications and env work in-process (and on
// every transport); the task kinds (see Tasks) over HTTP and stdio; crash, malformed, flood-stderr,
// ignore-eof, ignore-sigterm and grandchild act on the process and work only
// in a child (malformed and ignore-eof only on its stdio); drop, drop-no-id,
// delay-headers, unauthorized, forbidden, gone, server-error, no-get,
// redirect and foreign-endpoint act on HTTP requests and work only over
// HTTP (drop and drop-no-id not over legacy SSE, foreign-endpoint only
// there). Every path refuses a fault it cannot act on, with a [*PathError],
// when it is chosen (see [Path]): a fault is never left undone.
//
// # Tasks
//
// The task faults make the fake's tools run as tasks (the tasks
// extension, SEP-2663, served on 2026-07-28 over HTTP and stdio):
// task@TOOL (optional: a client that does not declare the extension gets
// the call run in the request) or task-required@TOOL (such a client gets
// -32021 and the tool does not run). A client that declares it gets the
// task at once and polls tasks/get. With them:
//
//	task@lookup, hang@lookup      a task that never finishes (working until cancelled, expired or Close)
//	task-fail@lookup:disk full    a task that fails: status failed, error -32603 "disk full"
//	task-input@lookup             a task that asks for input once (key "fakeserver.continue") before it replies
//	task-expire:50ms              every task expires 50 ms after it was created
//	task-poll-error@lookup:2      the first 2 polls of each task of lookup fail with -32603
//
// Every poll of a task the principal holds is counted in Counts.Polls by
// the task's tool ([Server.Polls]), apart from executions and rounds: a
// task polled twenty times is still one execution. The other faults of a
// tool act inside its task. A task's id and times are the server
// package's (random, and from the clock): a fake with tasks is
// deterministic in everything but those. Tasks run in process
// ([Server.Factory]), over HTTP and in a stdio child alike; [Wrap] refuses
// the task faults (a wrapped server registers its task tools itself).
//
// # Over HTTP
//
// [Server.StartHTTP] serves the fake server on a loopback port. It serves
// Streamable HTTP, or the legacy SSE shape with HTTPOptions.SSE. The event
// store is on, and sessions are numbered fake-1, fake-2, …. With
// HTTPOptions.Stateless it serves statelessly instead: no sessions, no
// event store, each POST answered on its own. The HTTP faults act the
// same. It also starts a second listener, the other origin, that the
// redirect faults point at and that serves nothing. Both listeners answer
// 403 to a request whose Host or Origin the server package refuses, before
// logging or serving anything. Examples are a rebound host name or a
// cross-site page. HTTPOptions.Serving's AllowedHosts and AllowedOrigins
// admit more. Both log what they see, so a test can assert on the
// protocol's HTTP side:
//
//	hs, err := fs.StartHTTP("", nil)
//	defer hs.Close()
//	f, err := streamablehttp.New(hs.URL, nil)
//	… c.Close()
//	for _, r := range hs.Requests() { … } // "DELETE session=fake-1 status=204", a GET's Last-Event-ID, …
//	n, auths := hs.OtherCounts()           // what reached the other origin
//
// [Server.HTTPHandler] is the same without the listeners. With --http ADDR,
// [Main] serves over HTTP instead of stdio and prints the endpoint URL on
// stdout (--stateless for stateless serving, --sse for the legacy shape).
//
// # As a stdio child
//
// [Main] serves over os.Stdin and os.Stdout; it is what `mcprig fakeserver`
// runs. A test runs its own binary as the fake server. TestMain calls
// [MainIfChild] first. The test starts [ChildCommand], or passes it to a
// stdio transport:
//
//	func TestMain(m *testing.M) {
//		fakeserver.MainIfChild()
//		os.Exit(m.Run())
//	}
//
//	cmd := fakeserver.ChildCommand("--catalog", "docs", "--count-file", path)
//	cs, err := mcp.NewClient(impl, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
//
// --stop-file records how the child was asked to stop ("stdin-eof",
// "sigterm", in order), --pid-file its pid, --grandchild-pid-file the pid of
// the grandchild started by the grandchild fault.
package fakeserver
