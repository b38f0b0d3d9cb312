package mcptest

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/proctree"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// reapTimeout bounds the wait for a leaked group to die after SIGKILL.
const reapTimeout = 2 * time.Second

// LeakCheck fails t at cleanup if a goroutine started since the call, or a
// process group started through mcptest (or a factory wrapped by [Track])
// during t, is still running, or a descendant of its child that left the
// group (setsid, a double fork) as far as the connection saw it. The report
// names each leaked goroutine by its stack and each leaked process by pid
// and command; leaked processes are then killed so that they do not outlive
// the test binary.
//
// A test that leaves nothing behind is not held up: the check returns as
// soon as the goroutines it waits for have ended. Idle keep-alive
// connections of http.DefaultTransport (the go-sdk's own client, http.Get)
// are closed first, as httptest.Server.Close does, so that a connection
// pooled to a server that outlives the test is not waited for or reported.
//
// Call it first in a test that does not call t.Parallel (its siblings'
// goroutines would be reported); helpers such as [Connect] and [Stdio]
// check their own processes and sessions whether or not LeakCheck is called.
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

// proc is one running process of a group.
type proc struct {
	Pid  int
	Name string
}

func (p proc) String() string { return fmt.Sprintf("%d %s", p.Pid, p.Name) }

func fallbackProcs(pgid int) []proc {
	if stdio.GroupAlive(pgid) {
		return []proc{{Pid: pgid, Name: "?"}}
	}
	return nil
}

// tracker holds the process groups started during one test.
type tracker struct {
	mu     sync.Mutex // guards groups and conns
	groups []int
	conns  map[int]*stdio.Conn // by group: the child's connection, when known
}

var (
	trackersMu sync.Mutex // guards trackers
	trackers   = map[testing.TB]*tracker{}
)

// trackerOf returns t's tracker, registering at first use the cleanup that
// reports (and kills) the groups still running when t ends.
func trackerOf(t testing.TB) *tracker {
	t.Helper()
	trackersMu.Lock()
	defer trackersMu.Unlock()
	if tr, ok := trackers[t]; ok {
		return tr
	}
	tr := &tracker{}
	trackers[t] = tr
	t.Cleanup(func() {
		trackersMu.Lock()
		delete(trackers, t)
		trackersMu.Unlock()
		if report := tr.leaked(groupTimeout); report != "" {
			t.Errorf("mcptest: process groups still running at cleanup (their clients were not closed, or Close did not reap them):\n%s", report)
		}
	})
	return tr
}

// add tracks the group of the child c leads.
func (tr *tracker) add(c *stdio.Conn) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	pgid := c.Pid() // the child leads its group
	if !slices.Contains(tr.groups, pgid) {
		tr.groups = append(tr.groups, pgid)
	}
	if tr.conns == nil {
		tr.conns = map[int]*stdio.Conn{}
	}
	tr.conns[pgid] = c
}

// leaked waits up to timeout for every tracked group to empty, and returns a
// report of the processes still running, which it then kills: the group's,
// and the child's descendants that left the group (setsid, a double fork)
// as far as its connection has seen them.
func (tr *tracker) leaked(timeout time.Duration) string {
	tr.mu.Lock()
	groups := slices.Clone(tr.groups)
	conns := maps.Clone(tr.conns)
	tr.mu.Unlock()
	var b strings.Builder
	for _, g := range groups {
		c := conns[g]
		wait := timeout
		if c != nil && c.Diagnose() == nil {
			// The child runs and nobody closed it: it will not end by
			// itself, so there is nothing to wait for.
			wait = 0
		}
		ps := waitGroupEmpty(g, wait)
		var outside []proctree.Proc
		if c != nil {
			outside = outsideGroup(g, c.Descendants())
		}
		if len(ps) == 0 && len(outside) == 0 {
			continue
		}
		fmt.Fprintf(&b, "  process group %d:\n", g)
		for _, p := range ps {
			fmt.Fprintf(&b, "    %s\n", p)
		}
		for _, p := range outside {
			fmt.Fprintf(&b, "    %s (a descendant outside the group)\n", p)
		}
		killLeaked(g, c, outside)
		if ps := waitGroupEmpty(g, reapTimeout); len(ps) > 0 || !waitGone(g, pids(outside), reapTimeout) {
			fmt.Fprintf(&b, "    (still running %v after SIGKILL)\n", reapTimeout)
		}
	}
	return b.String()
}

// outsideGroup returns the processes of pids that are running outside
// group g.
func outsideGroup(g int, pids []int) []proctree.Proc {
	var out []proctree.Proc
	for _, pid := range pids {
		if p, err := proctree.Stat(pid); err == nil && p.Running() && p.Pgid != g {
			out = append(out, p)
		}
	}
	return out
}

// waitGone polls, until timeout, for the processes of pids outside group
// g to stop running, and reports whether they did.
func waitGone(g int, pids []int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		if len(outsideGroup(g, pids)) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(delay) // polling with a deadline: nothing notifies us of a process's death
	}
}

func pids(ps []proctree.Proc) []int {
	var out []int
	for _, p := range ps {
		out = append(out, p.Pid)
	}
	return out
}

// waitGroupEmpty polls, until timeout, for group pgid to have no running
// process, and returns those still running then.
func waitGroupEmpty(pgid int, timeout time.Duration) []proc {
	deadline := time.Now().Add(timeout)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		ps := groupProcs(pgid)
		if len(ps) == 0 || time.Now().After(deadline) {
			return ps
		}
		time.Sleep(delay) // polling with a deadline: nothing notifies us of a process's death
	}
}

// Track returns a factory that makes the same connections as f and records
// the process group of every stdio child they start against t, so that a
// group still running when t ends fails t (see [LeakCheck]). Connections are
// returned unchanged: client.Client.Conn still gives the *stdio.Conn.
func Track(t testing.TB, f transport.Factory) transport.Factory {
	t.Helper()
	return tracked{f, trackerOf(t)}
}

type tracked struct {
	transport.Factory
	tr *tracker
}

func (f tracked) Transport() (mcp.Transport, error) {
	t, err := f.Factory.Transport()
	if err != nil {
		return nil, err
	}
	return trackedTransport{t, f.tr}, nil
}

// Unwrap returns the tracked factory, whose capabilities transport.As
// finds through the tracker.
func (f tracked) Unwrap() transport.Factory { return f.Factory }

type trackedTransport struct {
	mcp.Transport
	tr *tracker
}

// Unwrap returns the tracked transport. The client finds the hooks of a
// Streamable HTTP transport through it.
func (t trackedTransport) Unwrap() mcp.Transport { return t.Transport }

func (t trackedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if sc, ok := c.(*stdio.Conn); ok && err == nil {
		t.tr.add(sc)
	}
	return c, err
}
