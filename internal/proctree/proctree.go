package proctree

import (
	"errors"
	"fmt"
	"slices"
	"sync"
)

// ErrUnsupported is returned where the process table cannot be read: a
// system other than Linux and macOS, or Linux without /proc.
var ErrUnsupported = errors.ErrUnsupported

// A Proc is one process as the process table shows it.
type Proc struct {
	Pid     int
	PPid    int    // parent
	Pgid    int    // process group
	Sid     int    // session (0 on macOS, whose table does not hold it)
	State   byte   // its leader thread's: 'R', 'S', 'D', 'T', 'Z' (zombie), 'X' (dead), …
	Threads int    // its threads, an exited leader counted until reaped: a zombie with more than one still runs (0 on macOS)
	Start   uint64 // start time (clock ticks after boot on Linux, microseconds of the epoch on macOS): with Pid, the process's identity
	Name    string // the command name (comm), at most 15 bytes (16 on macOS)
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
	pid  int                   // the root's
	view func() (table, error) // the process table now
	last func() (int, bool)    // the pid given out last, where the system gives them out in order and says

	rootOnce sync.Once // reads root at its first use, where TrackChild made the tracker (done at once elsewhere)
	root     Proc      // the root as read; written only under rootOnce

	mu    sync.Mutex   // guards known and seen
	known map[int]Proc // every descendant seen, by pid
	seen  int          // last() when the latest look began: every process up to it was looked at
}

// maxNew bounds how many processes created since the latest look
// ScanIfNew reads one by one; when more were created, it scans.
const maxNew = 32

// NewTracker returns a tracker of the descendants of the running process
// pid. It fails with an error wrapping ErrUnsupported where the process
// table cannot be read, and with one wrapping fs.ErrNotExist when pid is
// gone.
func NewTracker(pid int) (*Tracker, error) {
	root, err := Stat(pid)
	if err != nil {
		return nil, err
	}
	return newTracker(root, current, lastPid), nil
}

// TrackChild is NewTracker for pid, a child of this process that the
// caller does not reap while it uses the tracker: until it is reaped, its
// pid names it (a zombie's too), so the root need not be read to be known.
// Where the system says which processes were created since a look (see
// ScanIfNew), nothing is read until the first look that needs the root
// (its start time, for Root and Scan): a child that starts nothing costs
// no read of its own at its start, a path lookup of a new process in /proc
// being the dearest read a tracker makes. Elsewhere it is NewTracker.
func TrackChild(pid int) (*Tracker, error) {
	if !saysLastPid() {
		return NewTracker(pid)
	}
	return newChildTracker(pid, current, lastPid), nil
}

// saysLastPid reports whether the system says which pid it gave out last
// (see ScanIfNew), asked once: what a kernel offers does not change while
// a process runs.
var saysLastPid = sync.OnceValue(func() bool {
	_, ok := lastPid()
	return ok
})

func newTracker(root Proc, view func() (table, error), last func() (int, bool)) *Tracker {
	t := newChildTracker(root.Pid, view, last)
	t.rootOnce.Do(func() { t.root = root })
	return t
}

func newChildTracker(pid int, view func() (table, error), last func() (int, bool)) *Tracker {
	// The root's descendants were all given pids after it.
	return &Tracker{pid: pid, root: Proc{Pid: pid}, view: view, last: last, known: map[int]Proc{}, seen: pid}
}

// Root returns the process whose descendants t tracks. For a tracker
// TrackChild made, the first call (or the first Scan, whose look at the
// root is that read) reads it; if that read fails (which a child not yet
// reaped cannot make happen), only its pid is known.
func (t *Tracker) Root() Proc {
	t.rootOnce.Do(func() {
		if tb, err := t.view(); err == nil {
			t.keepRoot(tb.stat(t.pid))
		}
	})
	return t.root
}

// keepRoot makes p, read by stat with err, the root. Only under rootOnce.
func (t *Tracker) keepRoot(p Proc, err error) {
	if err == nil {
		t.root = p
	}
}

// Scan walks the children of the root and of every descendant known so
// far, adding those it has not seen. A known descendant whose pid now
// belongs to another process (or to none) is forgotten. It returns the
// processes it added.
func (t *Tracker) Scan() []Proc {
	last, _ := t.last() // before the table is read: a process created during the scan changes it
	tb, err := t.view()
	if err != nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seen = last
	var added, queue []Proc
	seen := map[int]bool{}
	push := func(p Proc) {
		if !seen[p.Pid] {
			seen[p.Pid] = true
			queue = append(queue, p)
		}
	}
	// The root's first look is also its first read, where it was not read.
	cur, err := tb.stat(t.pid)
	t.rootOnce.Do(func() { t.keepRoot(cur, err) })
	if err == nil && cur.Same(t.root) {
		push(cur)
	}
	t.refresh(tb, push)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if !p.Running() {
			continue // a zombie's children were re-parented when its last thread exited
		}
		kids, err := tb.children(p.Pid)
		if err != nil {
			continue
		}
		for _, pid := range kids {
			if seen[pid] {
				continue
			}
			c, err := tb.stat(pid)
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

// refresh reads every known descendant again from tb, forgets those whose
// pid is gone or belongs to another process now, and hands the others to
// keep. t.mu is held.
func (t *Tracker) refresh(tb table, keep func(Proc)) {
	for pid, p := range t.known {
		cur, err := tb.stat(pid)
		if err != nil || !cur.Same(p) {
			delete(t.known, pid)
			continue
		}
		t.known[pid] = cur
		keep(cur)
	}
}

// ScanIfNew finds what Scan would, reading only the processes created
// since the latest look where the system allows: Linux gives pids out in
// order and says which it gave out last (/proc/loadavg), so the processes
// created since are those with the pids in between. It reads each of them
// (at most maxNew; when more were created it scans) and scans only if one
// is a child of the root or of a known descendant, the only way a new
// descendant can have appeared; the root's own threads, listed in one
// read, are skipped. A quiet system costs one small read, a busy one a
// read per process it started, where a scan costs several per process
// walked (each thread's children file). It reports whether it
// scanned. Where the system does not say, it always scans.
//
// Its one blind spot is a pid chosen by a privileged program
// (checkpoint/restore's set_tid or ns_last_pid), which Scan would find.
func (t *Tracker) ScanIfNew() ([]Proc, bool) {
	last, ok := t.last()
	if !ok {
		return t.Scan(), true
	}
	t.mu.Lock()
	from := t.seen
	parents := map[int]bool{t.pid: true}
	for pid := range t.known {
		parents[pid] = true
	}
	t.mu.Unlock()
	if last == from {
		return nil, false
	}
	if last < from || last-from > maxNew { // wrapped, or busy
		return t.Scan(), true
	}
	tb, err := t.view()
	if err != nil {
		return nil, false
	}
	// Most of what a child creates soon after its start are its own threads
	// (a Go program's runtime starts several): their ids are the root's,
	// listed at once, and no thread is a process, so none is read. Listing
	// them costs more than reading one pid: only for several.
	var own []int
	if last-from > 1 {
		own, _ = tb.threads(t.pid)
	}
	for pid := from + 1; pid <= last; pid++ {
		if slices.Contains(own, pid) {
			continue
		}
		if p, err := tb.stat(pid); err == nil && parents[p.PPid] {
			return t.Scan(), true
		}
	}
	t.mu.Lock()
	if t.seen == from { // no scan meanwhile
		t.seen = last
	}
	t.mu.Unlock()
	return nil, false
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
	tb, err := t.view()
	if err != nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var live []Proc
	t.refresh(tb, func(p Proc) {
		if p.Running() {
			live = append(live, p)
		}
	})
	slices.SortFunc(live, func(a, b Proc) int { return a.Pid - b.Pid })
	return live
}

// Known reports whether the tracker has seen a descendant (running or not),
// without reading the process table.
func (t *Tracker) Known() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.known) > 0
}
