package proctree

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// These tests run on every system: they drive the Tracker over tables made
// up in the test, as macOS's kernel gives them (the whole table at once,
// children by their parent field).

// A tracker over snapshots of the whole table: root 100 starts 101 in its
// group, which starts 102 in a session of its own; 101 exits and 102 is
// re-parented to launchd (1); then 102's pid is reused.
func TestTrackerOverSnapshots(t *testing.T) {
	root := Proc{Pid: 100, PPid: 50, Pgid: 100, State: 'S', Start: 1000, Name: "server"}
	inGroup := Proc{Pid: 101, PPid: 100, Pgid: 100, State: 'S', Start: 1001, Name: "helper"}
	escaped := Proc{Pid: 102, PPid: 101, Pgid: 102, State: 'S', Start: 1002, Name: "daemon"}
	other := Proc{Pid: 200, PPid: 1, Pgid: 200, State: 'S', Start: 900, Name: "unrelated"}
	orphan := escaped
	orphan.PPid = 1
	reused := Proc{Pid: 102, PPid: 1, Pgid: 102, State: 'S', Start: 5000, Name: "someone"}

	var now []Proc
	tr := newTracker(root, func() (table, error) { return newListTable(now), nil }, noLastPid)
	pids := func(ps []Proc) []int {
		var out []int
		for _, p := range ps {
			out = append(out, p.Pid)
		}
		return out
	}

	now = []Proc{other, root}
	if got := tr.Scan(); len(got) != 0 {
		t.Errorf("Scan() of a root without children added %v", got)
	}
	now = []Proc{other, root, inGroup, escaped}
	if diff := cmp.Diff([]int{101, 102}, pids(tr.Scan())); diff != "" {
		t.Errorf("Scan() added mismatch (-want +got):\n%s", diff)
	}
	if got := tr.Scan(); len(got) != 0 {
		t.Errorf("Scan() again added %v, want nothing new", got)
	}
	now = []Proc{other, root, orphan}
	tr.Scan()
	if diff := cmp.Diff([]Proc{orphan}, tr.Live()); diff != "" {
		t.Errorf("Live() after the helper exited mismatch (-want +got):\n%s", diff)
	}
	now = []Proc{other, root, reused}
	if got := tr.Live(); len(got) != 0 {
		t.Errorf("Live() after the pid was reused = %v, want none", got)
	}
	if got := tr.Scan(); len(got) != 0 {
		t.Errorf("Scan() added %v: a process re-parented to launchd is not the root's", got)
	}
}

// A zombie's children are not its own: the scan does not walk them, and a
// table that cannot be read adds nothing.
func TestTrackerSkipsZombiesAndUnreadableTables(t *testing.T) {
	root := Proc{Pid: 100, Pgid: 100, State: 'Z', Start: 1}
	kid := Proc{Pid: 101, PPid: 100, Pgid: 100, State: 'S', Start: 2}
	var err error
	tr := newTracker(root, func() (table, error) { return newListTable([]Proc{root, kid}), err }, noLastPid)
	if got := tr.Scan(); len(got) != 0 {
		t.Errorf("Scan() under a zombie root added %v", got)
	}
	err = ErrUnsupported
	tr.Add(kid)
	if got := tr.Live(); got != nil {
		t.Errorf("Live() with no table = %v, want nil", got)
	}
}

func TestListTable(t *testing.T) {
	ps := []Proc{
		{Pid: 3, PPid: 1, Pgid: 3, State: 'S'},
		{Pid: 2, PPid: 1, Pgid: 2, State: 'R'},
		{Pid: 4, PPid: 3, Pgid: 3, State: 'Z'},
		{Pid: 5, PPid: 3, Pgid: 3, State: 'T'},
	}
	tb := newListTable(ps)
	kids, _ := tb.children(1)
	if diff := cmp.Diff([]int{2, 3}, kids); diff != "" {
		t.Errorf("children(1) mismatch (-want +got):\n%s", diff)
	}
	if _, err := tb.stat(9); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stat(no such pid) error = %v, want fs.ErrNotExist", err)
	}
	var members []int
	for _, p := range group(ps, 3) {
		members = append(members, p.Pid)
	}
	if diff := cmp.Diff([]int{3, 5}, members); diff != "" {
		t.Errorf("group(3) mismatch (-want +got): a zombie is not a member that runs\n%s", diff)
	}
}

// ScanIfNew reads the processes created since the latest look and scans
// only when one is a child of the root or of a known descendant: nothing
// new can be found otherwise.
func TestScanIfNew(t *testing.T) {
	root := Proc{Pid: 100, PPid: 50, Pgid: 100, State: 'S', Start: 1}
	thread := Proc{Pid: 101, PPid: 50, Pgid: 100, State: 'S', Start: 1} // the root's thread: a thread's parent is its process's
	other := Proc{Pid: 102, PPid: 7, Pgid: 102, State: 'S', Start: 2}
	kid := Proc{Pid: 103, PPid: 100, Pgid: 103, State: 'S', Start: 3}
	grandkid := Proc{Pid: 104, PPid: 103, Pgid: 104, State: 'S', Start: 4}
	orphan := Proc{Pid: 105, PPid: 1, Pgid: 105, State: 'S', Start: 5} // its parent exited before any look
	now := []Proc{root}
	last, says := 100, true
	var stats []int
	tasks := map[int][]int{} // the threads each process has, where the table lists them
	view := func() (table, error) { return recording{newListTable(now), &stats, tasks}, nil }
	tr := newTracker(root, view, func() (int, bool) { return last, says })
	step := func(name string, wantScan bool, wantRead []int) {
		t.Helper()
		stats = nil
		_, scanned := tr.ScanIfNew()
		if scanned != wantScan {
			t.Errorf("%s: ScanIfNew() scanned = %v, want %v", name, scanned, wantScan)
		}
		if !wantScan {
			if diff := cmp.Diff(wantRead, stats); diff != "" {
				t.Errorf("%s: processes read mismatch (-want +got):\n%s", name, diff)
			}
		}
	}
	step("nothing created since the root", false, nil)
	now, last = []Proc{root, thread, other}, 102
	step("a thread of the root and an unrelated process, no threads listed", false, []int{101, 102})
	step("nothing created since", false, nil)
	now, last = []Proc{root, thread, other, kid}, 103
	step("a child of the root", true, nil)
	if diff := cmp.Diff([]Proc{kid}, tr.Live()); diff != "" {
		t.Errorf("Live() after the scan mismatch (-want +got):\n%s", diff)
	}
	now, last = []Proc{root, thread, other, kid, grandkid}, 104
	step("a child of a known descendant", true, nil)
	now, last = append(now, orphan), 105
	step("an orphan: no scan would find it", false, []int{105})
	last = 105 + maxNew + 1
	step("more created than are read one by one", true, nil)
	last = 90
	step("the pids wrapped around", true, nil)
	says = false
	step("the system does not say", true, nil)
}

// ScanIfNew does not read the root's own threads, listed by the table:
// they are not processes, so none is a new child. What is not listed as
// one is read as before.
func TestScanIfNewSkipsTheRootsThreads(t *testing.T) {
	root := Proc{Pid: 100, PPid: 50, Pgid: 100, State: 'S', Start: 1}
	thread := func(tid int) Proc { return Proc{Pid: tid, PPid: 50, Pgid: 100, State: 'S', Start: 1} }
	other := Proc{Pid: 103, PPid: 7, Pgid: 103, State: 'S', Start: 2}
	kid := Proc{Pid: 105, PPid: 100, Pgid: 105, State: 'S', Start: 3}
	now := []Proc{root, thread(101), thread(102), other}
	last := 103
	var stats []int
	tasks := map[int][]int{100: {100, 101, 102}}
	view := func() (table, error) { return recording{newListTable(now), &stats, tasks}, nil }
	tr := newTracker(root, view, func() (int, bool) { return last, true })
	if _, scanned := tr.ScanIfNew(); scanned {
		t.Error("ScanIfNew() scanned after two threads of the root and an unrelated process")
	}
	if diff := cmp.Diff([]int{103}, stats); diff != "" {
		t.Errorf("processes read mismatch (-want +got): only the process not listed as the root's thread\n%s", diff)
	}
	now, last, stats = append(now, thread(104), kid, thread(106)), 106, nil
	tasks[100] = []int{100, 101, 102, 104, 106}
	if _, scanned := tr.ScanIfNew(); !scanned {
		t.Error("ScanIfNew() did not scan after a child of the root among its new threads")
	}
	if diff := cmp.Diff([]Proc{kid}, tr.Live()); diff != "" {
		t.Errorf("Live() after the scan mismatch (-want +got):\n%s", diff)
	}
}

// recording is a table that records the pids it is asked to stat, and
// lists the threads in tasks.
type recording struct {
	listTable
	stats *[]int
	tasks map[int][]int
}

func (r recording) threads(pid int) ([]int, error) { return r.tasks[pid], nil }

func (r recording) stat(pid int) (Proc, error) {
	*r.stats = append(*r.stats, pid)
	return r.listTable.stat(pid)
}

func noLastPid() (int, bool) { return 0, false }

// A tracker of a child (TrackChild) reads its root at its first need, not
// at its start: a look that finds nothing new reads nothing, the first
// Scan reads the root once for all, and the root then read is the one
// every later look compares with (a pid reused meanwhile is not the root).
func TestChildTrackerReadsItsRootOnce(t *testing.T) {
	root := Proc{Pid: 100, PPid: 50, Pgid: 100, State: 'S', Start: 7, Name: "server"}
	kid := Proc{Pid: 101, PPid: 100, Pgid: 101, State: 'S', Start: 8}
	now := []Proc{root}
	last := 100
	var stats []int
	view := func() (table, error) { return recording{newListTable(now), &stats, nil}, nil }
	tr := newChildTracker(100, view, func() (int, bool) { return last, true })
	if _, scanned := tr.ScanIfNew(); scanned || len(stats) != 0 {
		t.Errorf("ScanIfNew() with nothing new: scanned %v, read %v; want neither", scanned, stats)
	}
	now, last = []Proc{root, kid}, 101
	if _, scanned := tr.ScanIfNew(); !scanned {
		t.Error("ScanIfNew() did not scan after a child of the root started")
	}
	if diff := cmp.Diff(root, tr.Root()); diff != "" {
		t.Errorf("Root() mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Proc{kid}, tr.Live()); diff != "" {
		t.Errorf("Live() mismatch (-want +got):\n%s", diff)
	}
	reads := count(stats, root.Pid)
	tr.Root()
	tr.Scan()
	if got := count(stats, root.Pid); got != reads+1 {
		t.Errorf("Root and a Scan read the root %d times: want once, the Scan's look at it", got-reads)
	}
	// Its pid reused: the scan does not walk the newcomer's children.
	reused := Proc{Pid: 100, PPid: 1, Pgid: 100, State: 'S', Start: 900}
	now = []Proc{reused, {Pid: 102, PPid: 100, Pgid: 102, State: 'S', Start: 901}}
	if got := tr.Scan(); len(got) != 0 {
		t.Errorf("Scan() after the root's pid was reused added %v", got)
	}
}

// A child tracker whose root cannot be read when first needed knows only
// its pid: Root's start is zero, which no process of the table has.
func TestChildTrackerUnreadRoot(t *testing.T) {
	tr := newChildTracker(100, func() (table, error) { return newListTable(nil), nil }, noLastPid)
	if diff := cmp.Diff(Proc{Pid: 100}, tr.Root()); diff != "" {
		t.Errorf("Root() of a pid the table lacks mismatch (-want +got):\n%s", diff)
	}
}

func count(pids []int, pid int) int {
	n := 0
	for _, p := range pids {
		if p == pid {
			n++
		}
	}
	return n
}
