package proctree

import (
	"fmt"
	"io/fs"
	"slices"
)

// A table is a view of the process table that a [Tracker] walks: one
// process by pid, the pids of one process's children, and the ids of one
// process's threads (none where the table does not list them).
type table interface {
	stat(pid int) (Proc, error)
	children(pid int) ([]int, error)
	threads(pid int) ([]int, error)
}

// A listTable is the whole process table read at one moment, as macOS
// gives it (and Linux without per-thread children files): a process's
// children are those whose parent it is.
type listTable struct {
	byPid map[int]Proc
	kids  map[int][]int // by parent, sorted
}

func newListTable(ps []Proc) listTable {
	t := listTable{byPid: make(map[int]Proc, len(ps)), kids: map[int][]int{}}
	for _, p := range ps {
		t.byPid[p.Pid] = p
		t.kids[p.PPid] = append(t.kids[p.PPid], p.Pid)
	}
	for _, k := range t.kids {
		slices.Sort(k)
	}
	return t
}

func (t listTable) stat(pid int) (Proc, error) {
	p, ok := t.byPid[pid]
	if !ok {
		return Proc{}, fmt.Errorf("proctree: process %d: %w", pid, fs.ErrNotExist)
	}
	return p, nil
}

func (t listTable) children(pid int) ([]int, error) { return t.kids[pid], nil }

// threads returns nothing: a list of processes holds no threads.
func (listTable) threads(int) ([]int, error) { return nil, nil }

// group returns the running members of process group pgid in ps, by pid.
func group(ps []Proc, pgid int) []Proc {
	var out []Proc
	for _, p := range ps {
		if p.Pgid == pgid && p.Running() {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b Proc) int { return a.Pid - b.Pid })
	return out
}
