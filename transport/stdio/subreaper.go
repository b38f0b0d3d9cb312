//go:build unix

package stdio

import (
	"os"
	"sync"

	"github.com/looprig/mcp/internal/proctree"
)

// BecomeSubreaper makes the calling process a child subreaper (Linux's
// PR_SET_CHILD_SUBREAPER). A child's descendant may be orphaned: a daemon
// double-forks and lets its intermediate parent exit. The orphan is then
// re-parented to this process instead of to init, where Close can still
// find it. Without it, Close finds only the descendants it saw while their
// ancestry was intact (see the package documentation).
//
// It is a property of the whole process, lasting until it exits. It
// concerns every child of the process, not only this package's: every
// orphaned descendant of any child is re-parented here. When a stdio child
// is closed, an adopted orphan may be taken for one of that child's
// descendants. It is then ended (and reaped). That happens if it is still
// in the child's process group (a double fork without setsid), or if all
// of these hold:
//
//   - it is in a session other than this process's (it called setsid, as
//     daemons do);
//   - it started after that child, and before every other stdio child still
//     open (an orphan that could belong to several is ended when the last
//     of them is closed).
//
// So a process this program starts itself with Setsid while a stdio child
// runs, and leaves to be orphaned, would be ended too; opt in only where
// that cannot happen. Orphans that do not qualify stay, and are this
// process's to reap. BecomeSubreaper returns an error wrapping
// errors.ErrUnsupported where the system has no subreapers.
func BecomeSubreaper() error { return proctree.SetSubreaper() }

// The stdio children not yet closed, for the attribution of adopted orphans.
var openProcs struct {
	mu    sync.Mutex // guards procs
	procs map[*proc]bool
}

func register(p *proc) {
	openProcs.mu.Lock()
	defer openProcs.mu.Unlock()
	if openProcs.procs == nil {
		openProcs.procs = map[*proc]bool{}
	}
	openProcs.procs[p] = true
}

func unregister(p *proc) {
	openProcs.mu.Lock()
	defer openProcs.mu.Unlock()
	delete(openProcs.procs, p)
}

// adopted returns the orphans this process adopted as a subreaper that are
// attributed to p (see BecomeSubreaper), zombies included.
func adopted(p *proc) []proctree.Proc {
	if p.tree == nil || !proctree.IsSubreaper() {
		return nil
	}
	root := p.tree.Root()
	if root.Start == 0 {
		return nil // the child was reaped before its start was read: what started after it is unknown
	}
	self, err := proctree.Stat(os.Getpid())
	if err != nil {
		return nil
	}
	kids, err := proctree.Children(self.Pid)
	if err != nil {
		return nil
	}
	openProcs.mu.Lock()
	defer openProcs.mu.Unlock()
	var out []proctree.Proc
	for _, pid := range kids {
		a, err := proctree.Stat(pid)
		if err != nil || a.PPid != self.Pid || a.Start < root.Start {
			continue
		}
		if a.Pgid == root.Pid && a.Pid != root.Pid {
			// Still in the child's group, whose id no other process can
			// take while a member lives: the child's, whoever else is open.
			out = append(out, a)
			continue
		}
		if a.Sid == self.Sid {
			continue
		}
		mine := true
		for q := range openProcs.procs {
			if q == p || q.tree == nil {
				continue
			}
			if q.pid == a.Pid || q.tree.Root().Start <= a.Start {
				mine = false // a leader itself, or it could be q's
				break
			}
		}
		if mine {
			out = append(out, a)
		}
	}
	return out
}

// reapAdopted reaps the adopted orphans attributed to p that have died,
// and reports whether every one of them is reaped.
func reapAdopted(p *proc) bool {
	all := true
	for _, a := range adopted(p) {
		if !a.Running() && !proctree.Reap(a) {
			all = false
		}
	}
	return all
}
