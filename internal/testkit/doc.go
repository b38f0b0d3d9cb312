// Package testkit holds the helpers this module's tests share: the test's
// own context, a poll with a reason, a close within a bound, a go-sdk
// client session over a transport, and whether the race detector is on
// ([RaceEnabled], for the tests that count allocations).
//
// It is imported only by tests (files ending in _test.go), never by the
// packages they test. It imports only the standard library and the go-sdk,
// never client, server, cassette or the transports, so that every package's
// tests may use it and the import graph stays one way.
//
// Each helper takes a testing.TB, calls t.Helper, registers its own
// cleanup and fails the test itself:
//
//	func TestCloseEndsTheSession(t *testing.T) {
//		cs := testkit.Connect(t, tr, &testkit.ConnectOptions{Version: "2025-11-25"})
//		if _, err := cs.ListTools(testkit.Context(t), nil); err != nil {
//			t.Fatal(err)
//		}
//		if _, err := testkit.CloseWithin(t, cs, 10*time.Second); err != nil {
//			t.Fatal(err)
//		}
//		testkit.Poll(t, "the server to see the session end", func() bool { return sessions() == 0 })
//	}
//
// Nothing here waits with time.Sleep: [Poll] checks its condition on a
// ticker and ends at the test's deadline ([Context]) with its reason, and
// [Await] and [CloseWithin] select on a channel and a deadline.
package testkit
