package mcptest

import (
	"github.com/looprig/mcp/mcptest/internal/procgroup"
	"github.com/looprig/mcp/mcptest/internal/testmain"
	"net/http"
	"sync"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
)

// LeakCheck fails t at cleanup if something started during t is still
// running. That may be a goroutine started since the call. It may be a
// process group started through mcptest (or a factory wrapped by [Track])
// during t. It may be a descendant of its child that left the group
// (setsid, a double fork), as far as the connection saw it. The report
// names each leaked goroutine by its stack, and each leaked process by pid
// and command. Leaked processes are then killed, so that they do not
// outlive the test binary.
//
// A test that leaves nothing behind is not held up: the check returns as
// soon as the goroutines it waits for have ended. Idle keep-alive
// connections of http.DefaultTransport (the go-sdk's own client, http.Get)
// are closed first, as httptest.Server.Close does. So a connection pooled
// to a server that outlives the test is not waited for or reported.
//
// Call it first in a test that does not call t.Parallel; its siblings'
// goroutines would be reported. Helpers such as [Connect] and [Stdio]
// check their own processes and sessions whether or not LeakCheck is
// called.
func LeakCheck(t testing.TB) {
	t.Helper()
	leakcheck.Check(t)
	trackerOf(t)
	// Registered after the goroutine check, so run before it, once the
	// test's own cleanups have closed its clients.
	t.Cleanup(closeIdleConnections)
}

// closeIdleConnections closes the idle connections of http.DefaultTransport:
// their goroutines wait for the next request, or the idle timeout.
func closeIdleConnections() {
	if tr, ok := http.DefaultTransport.(interface{ CloseIdleConnections() }); ok {
		tr.CloseIdleConnections()
	}
}

var (
	trackersMu sync.Mutex // guards trackers
	trackers   = map[testing.TB]*procgroup.Tracker{}
)

// trackerOf returns t's tracker, registering at first use the cleanup that
// reports (and kills) the groups still running when t ends.
func trackerOf(t testing.TB) *procgroup.Tracker {
	t.Helper()
	trackersMu.Lock()
	defer trackersMu.Unlock()
	if tr, ok := trackers[t]; ok {
		return tr
	}
	tr := &procgroup.Tracker{}
	trackers[t] = tr
	t.Cleanup(func() {
		trackersMu.Lock()
		delete(trackers, t)
		trackersMu.Unlock()
		if report := tr.Leaked(testmain.GroupTimeout); report != "" {
			t.Errorf("mcptest: process groups still running at cleanup (their clients were not closed, or Close did not reap them):\n%s", report)
		}
	})
	return tr
}

// Track returns a factory that makes the same connections as f. It records
// the process group of every stdio child they start against t. So a group
// still running when t ends fails t (see [LeakCheck]). Connections are
// returned unchanged: client.Client.Conn still gives the *stdio.Conn.
func Track(t testing.TB, f transport.Factory) transport.Factory {
	t.Helper()
	return procgroup.Tracked{Factory: f, Tr: trackerOf(t)}
}
