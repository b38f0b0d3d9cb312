// Package mcptest is what tests of MCP clients and servers import. It
// holds:
//   - fake servers, built in or with your own tools;
//   - your own server wrapped with faults and counters;
//   - connected clients, closed at cleanup;
//   - cassettes recorded once and replayed in CI;
//   - golden catalog snapshots, a leak check, and protocol checkers.
//
// Two packages beside it hold what only some tests need.
// mcptest/oauthtest is a fake OAuth authorization server. mcptest/mcpscript
// holds testscript commands for scenario files.
//
// Every helper takes a testing.TB, calls t.Helper, registers its own
// cleanup and fails the test itself. None returns an error or needs a
// Close.
//
//	func TestMain(m *testing.M) { mcptest.Main(m, nil) } // the test binary is also the fake server
//
//	func TestLookup(t *testing.T) {
//		mcptest.LeakCheck(t)
//		fake := mcptest.Stdio(t, nil) // a supervised child per connection
//		c := mcptest.Connect(t, fake.Definition(), nil)
//		res, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "close"})
//		…
//		if n := fake.Counts().Executions["lookup"]; n != 1 { t.Errorf("lookup ran %d times", n) }
//	}
//
// # Fake servers
//
// [InProcess] starts a fakeserver in this process. [Stdio] runs one as a
// stdio child per connection. It re-runs the test binary through [Main],
// so nothing is built. [HTTP] serves one over Streamable HTTP on a
// loopback port, with a second origin that redirect faults point at. All
// take a built-in catalog or your own fakeserver.Catalog, and the fault
// script (fakeserver.Fault). All count every tool execution and round
// ([Fake.Counts]). [Fake.Client] connects a client in one line.
// [Fake.HTTP] gives what an HTTP fake saw. Each takes an options type of
// its own ([InProcessOptions], [StdioOptions], [HTTPOptions]). It holds
// only what acts there. For Stdio that is the child's supervision. For
// HTTP it is serving without sessions, an access check ([Protector], such
// as an oauthtest.Protection) and the client's transport:
//
//	fake := mcptest.HTTP(t, &mcptest.HTTPOptions{Faults: []fakeserver.Fault{{Kind: fakeserver.FaultDrop, Tool: "lookup"}}})
//	c := mcptest.Connect(t, fake.Definition(), nil)
//	… c.CallTool(…) // resumed with Last-Event-ID
//	for _, r := range fake.HTTP().Requests() { … } // "GET session=fake-1 last-event-id=…"
//
// Your own tools are a fakeserver.Catalog. In-process and over HTTP it
// is passed as it is. A stdio child finds it by name, so give it to Main:
//
//	var weather = &fakeserver.Catalog{Name: "weather", Tools: []fakeserver.Tool{…}}
//
//	func TestMain(m *testing.M) {
//		mcptest.Main(m, &mcptest.MainOptions{Catalogs: []*fakeserver.Catalog{weather}})
//	}
//
//	fake := mcptest.Stdio(t, &mcptest.StdioOptions{Custom: weather, Faults: …})
//
// # Your own server
//
// [Wrap] serves your own server under test (a go-sdk *mcp.Server or a
// *server.Server) in this process, with the same fault script and
// counters. [WrapHTTP] serves it over Streamable HTTP. [WrapOptions] and
// [WrapHTTPOptions] hold the faults, and for HTTP how it is served. (A
// wrapped server has its own catalog and revisions.) [CheckServer] checks
// it keeps the protocol's rules, and [GoldenCatalog] pins what it
// publishes:
//
//	fake := mcptest.Wrap(t, srv, &mcptest.WrapOptions{Faults: …})
//	if err := mcptest.CheckServer(t.Context(), fake.Factory()); err != nil { … }
//	c := fake.Client(nil)
//	mcptest.GoldenCatalog(t, "testdata/catalog.txtar", c.Catalog())
//
// Without faults and counters, a *server.Server's own Factory, or
// inprocess.New of a go-sdk server, is the factory CheckServer and a
// client.Definition take.
//
// # Cassettes
//
// [Cassette] puts a cassette between a Definition and its server. The mode
// comes from the environment, as cassette.ModeFromEnv reads it:
//
//	MCPRIG_RECORD=1 go test ./...   record against the live server, rewrite the cassette
//	CI=true go test ./...           replay only; a missing cassette fails, saying how to record it
//	go test ./...                   replay if the cassette exists, else record it
//
// CI is read as a boolean: CI=false and CI=0 are not CI.
//
// The mode is the whole process's: a test cannot record a cassette and
// then replay it inside parallel tests. Two things stop it. A test
// switches the mode only with t.Setenv. Go panics when t.Setenv is called
// in a parallel test or below one ("test using t.Setenv ... can not use
// t.Parallel"). And a recording is written when the test that made it ends
// (at its cleanup), so its replay must come in a later test. To record
// then replay in one run, make each phase a sequential subtest that sets
// the environment. Parallel tests each take a cassette path of their own.
// Parallel tests that share a path all record it while it is missing. Each
// writes it whole, and the last write wins. In CI all fail, saying how to
// record it.
//
// # Golden catalogs
//
// [GoldenCatalog] compares a catalog with a txtar file (a prose comment,
// then "fingerprint" and "catalog.json") and prints a go-cmp diff.
// `go test -update` rewrites the file. [Main] defines -update unless the
// package already has it.
//
// # Leaks
//
// [LeakCheck] fails a test that leaves a goroutine behind. Other leaks
// fail the test too, with or without it. One is a process group started
// through mcptest ([Stdio], [Connect], [Track]) that still runs when its
// test ends. That includes the child's descendants that left the group, as
// far as its connection saw them. Another is an in-process fake's session
// still open. The report names each process (pid and command), and leaked
// processes are then killed. Each check returns as soon as nothing is
// left. It waits at most [MainOptions].GroupTimeout ([DefaultGroupTimeout])
// for what is ending.
//
// # Checkers
//
// [CheckServer] checks a server under test against the protocol's rules,
// as testing/fstest.TestFS checks a file system. It checks in a session at
// each revision the server serves (2026-07-28 and 2025-11-25). It returns
// one errors.Join of a [*CheckError] per problem, naming the check and the
// revision. [RunServerChecks] runs each check as a subtest.
package mcptest
