// Package procgroup tracks the process groups of stdio children a test
// started, and reports and kills those still running when it ends.
package procgroup

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/looprig/mcp/internal/proctree"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NoExitSleep is the GORACE setting given to every child mcptest starts:
// a race-enabled child would otherwise sleep a second at exit.
const NoExitSleep = "atexit_sleep_ms=0"

// reapTimeout bounds the wait for a leaked group to die after SIGKILL.
const reapTimeout = 2 * time.Second

// A Proc is one running process of a group.
type Proc struct {
	Pid  int
	Name string
}

func (p Proc) String() string { return fmt.Sprintf("%d %s", p.Pid, p.Name) }

func fallbackProcs(pgid int) []Proc {
	if stdio.GroupAlive(pgid) {
		return []Proc{{Pid: pgid, Name: "?"}}
	}
	return nil
}

// A Tracker holds the process groups started during one test.
type Tracker struct {
	mu     sync.Mutex // guards groups and conns
	groups []int
	conns  map[int]*stdio.Conn // by group: the child's connection, when known
}

// Add tracks the group of the child c leads.
func (tr *Tracker) Add(c *stdio.Conn) {
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

// Groups returns the groups tracked, in the order they started.
func (tr *Tracker) Groups() []int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return slices.Clone(tr.groups)
}

// Leaked waits up to timeout for every tracked group to empty. It returns
// a report of the processes still running, which it then kills. These are
// the group's, and the child's descendants that left the group (setsid, a
// double fork), as far as its connection has seen them.
func (tr *Tracker) Leaked(timeout time.Duration) string {
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
func waitGroupEmpty(pgid int, timeout time.Duration) []Proc {
	deadline := time.Now().Add(timeout)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		ps := Procs(pgid)
		if len(ps) == 0 || time.Now().After(deadline) {
			return ps
		}
		time.Sleep(delay) // polling with a deadline: nothing notifies us of a process's death
	}
}

// Tracked is a factory whose stdio connections Tr tracks.
type Tracked struct {
	transport.Factory
	Tr *Tracker
}

func (f Tracked) Transport() (mcp.Transport, error) {
	t, err := f.Factory.Transport()
	if err != nil {
		return nil, err
	}
	return TrackedTransport{t, f.Tr}, nil
}

// Unwrap returns the tracked factory, whose capabilities transport.As
// finds through the tracker.
func (f Tracked) Unwrap() transport.Factory { return f.Factory }

// TrackedTransport is a transport of a Tracked factory.
type TrackedTransport struct {
	mcp.Transport
	tr *Tracker
}

// Unwrap returns the tracked transport. The client finds the hooks of a
// Streamable HTTP transport through it.
func (t TrackedTransport) Unwrap() mcp.Transport { return t.Transport }

func (t TrackedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if sc, ok := c.(*stdio.Conn); ok && err == nil {
		t.tr.Add(sc)
	}
	return c, err
}
