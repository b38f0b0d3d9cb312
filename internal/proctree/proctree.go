package proctree

import (
	"errors"
	"fmt"
	"slices"
	"sync"
)

// ErrUnsupported is returned where the process table cannot be read: not
// Linux, or no /proc.
var ErrUnsupported = errors.ErrUnsupported

// A Proc is one process as /proc/PID/stat shows it.
type Proc struct {
	Pid     int
	PPid    int    // parent
	Pgid    int    // process group
	Sid     int    // session
	State   byte   // its leader thread's: 'R', 'S', 'D', 'T', 'Z' (zombie), 'X' (dead), …
	Threads int    // its threads, an exited leader counted until reaped: a zombie with more than one still runs
	Start   uint64 // start time, in clock ticks after boot: with Pid, the process's identity
	Name    string // the command name (comm), at most 15 bytes
}

// Running reports whether p had not exited when it was read: it is neither
// dead nor a zombie, but for a zombie leader whose other threads still run
// (its leader thread exited alone, or the process is exiting and its
// threads are not all gone): that process runs, and its threads' children
// are still its own.
func (p Proc) Running() bool {
	return p.State != 'X' && p.State != 0 && (p.State != 'Z' || p.Threads > 1)
}

// Same reports whether p and q are the same process: the same pid and the
// same start time.
func (p Proc) Same(q Proc) bool { return p.Pid == q.Pid && p.Start == q.Start }

func (p Proc) String() string { return fmt.Sprintf("%d %s", p.Pid, p.Name) }

// A Tracker remembers the descendants of one process (the root) as it
// finds them, so that a descendant stays known after its parent has exited
// and it was re-parented (to init or to a subreaper), and after it left the
// root's process group or session. It finds only what a [Tracker.Scan] sees:
// a descendant that is started and re-parented between two scans (a quick
// double fork) is invisible to it.
//
// A Tracker is safe for concurrent use.
type Tracker struct {
	root Proc

	mu    sync.Mutex   // guards known
	known map[int]Proc // every descendant seen, by pid
}

// NewTracker returns a tracker of the descendants of the running process
// pid. It fails with an error wrapping ErrUnsupported where /proc cannot be
// read, and with one wrapping fs.ErrNotExist when pid is gone.
func NewTracker(pid int) (*Tracker, error) {
	root, err := Stat(pid)
	if err != nil {
		return nil, err
	}
	return &Tracker{root: root, known: map[int]Proc{}}, nil
}

// Root returns the process whose descendants t tracks.
func (t *Tracker) Root() Proc { return t.root }

// Scan walks the children of the root and of every descendant known so
// far, adding those it has not seen. A known descendant whose pid now
// belongs to another process (or to none) is forgotten. It returns the
// processes it added.
func (t *Tracker) Scan() []Proc {
	t.mu.Lock()
	defer t.mu.Unlock()
	var added, queue []Proc
	seen := map[int]bool{}
	push := func(p Proc) {
		if !seen[p.Pid] {
			seen[p.Pid] = true
			queue = append(queue, p)
		}
	}
	if cur, err := Stat(t.root.Pid); err == nil && cur.Same(t.root) {
		push(cur)
	}
	for pid, p := range t.known {
		cur, err := Stat(pid)
		if err != nil || !cur.Same(p) {
			delete(t.known, pid)
			continue
		}
		t.known[pid] = cur
		push(cur)
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if !p.Running() {
			continue // a zombie's children were re-parented when its last thread exited
		}
		kids, err := Children(p.Pid)
		if err != nil {
			continue
		}
		for _, pid := range kids {
			if seen[pid] {
				continue
			}
			c, err := Stat(pid)
			if err != nil || c.PPid != p.Pid {
				continue // gone, or re-parented since the list was read
			}
			if _, ok := t.known[pid]; !ok {
				added = append(added, c)
			}
			t.known[pid] = c
			push(c)
		}
	}
	return added
}

// Add makes p known as a descendant of the root, as if a scan had found it.
func (t *Tracker) Add(p Proc) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.known[p.Pid] = p
}

// Live returns the known descendants that are still running, read afresh,
// by pid.
func (t *Tracker) Live() []Proc {
	t.mu.Lock()
	defer t.mu.Unlock()
	var live []Proc
	for pid, p := range t.known {
		cur, err := Stat(pid)
		if err != nil || !cur.Same(p) {
			delete(t.known, pid)
			continue
		}
		t.known[pid] = cur
		if cur.Running() {
			live = append(live, cur)
		}
	}
	slices.SortFunc(live, func(a, b Proc) int { return a.Pid - b.Pid })
	return live
}
