//go:build unix

package stdio

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/looprig/mcp/internal/proctree"
	"golang.org/x/sys/unix"
)

// reapTimeout bounds how long teardown waits for the child to exit after
// SIGKILL to its group, and then for the rest of the group to die; only a
// process stuck in an uninterruptible system call takes that long.
const reapTimeout = 2 * time.Second

// exitStatus is how the child's leader process ended.
type exitStatus struct {
	code   int    // -1 when killed by a signal
	signal string // "SIGKILL", or "" when it exited
}

// proc supervises one child process, the leader of its own process group.
//
// The leader is not reaped until teardown has sent SIGKILL to its group: as
// an unreaped zombie it keeps the group id from being reused, so the final
// group signal cannot reach an unrelated process that got the same id.
type proc struct {
	cmd *exec.Cmd
	pid int // also the process group id

	exited  chan struct{} // closed once the leader has exited and status is set
	reapNow chan struct{} // closed by stop once the leader may be reaped
	reaped  chan struct{} // closed once the leader is reaped (the waiter is done)

	// tree tracks the child's descendants while it runs, so that those
	// that leave its group are found and ended too; nil where the process
	// table cannot be read.
	tree      *proctree.Tracker
	pace      *pace         // when a look for descendants is due
	stopTrack chan struct{} // closed by stop: the tracker returns
	tracked   chan struct{} // closed once the tracker has returned

	mu      sync.Mutex // guards status and signals
	status  exitStatus
	signals []syscall.Signal // sent to the group by stop, in order
}

// startProc starts path in its own process group with exactly env and the
// given stdin, stdout and stderr.
func startProc(path string, args []string, dir string, env []string, stdio [3]*os.File) (*proc, error) {
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Env = env // never nil: see environ
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio[0], stdio[1], stdio[2]
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{
		cmd:       cmd,
		pid:       cmd.Process.Pid,
		exited:    make(chan struct{}),
		reapNow:   make(chan struct{}),
		reaped:    make(chan struct{}),
		pace:      newPace(trackInterval, time.Now()),
		stopTrack: make(chan struct{}),
		tracked:   make(chan struct{}),
	}
	// The child cannot be gone yet: it is not reaped before stop.
	p.tree, _ = proctree.TrackChild(p.pid)
	register(p)
	go p.wait()
	go p.track()
	return p, nil
}

// wait publishes the exit status as soon as the leader exits, and reaps it
// when stop allows.
func (p *proc) wait() {
	defer close(p.reaped)
	st, reaped := waitExit(p.cmd)
	p.setStatus(st)
	close(p.exited)
	if reaped {
		return
	}
	<-p.reapNow
	p.cmd.Wait()
	if ps := p.cmd.ProcessState; ps != nil {
		p.setStatus(statusOf(ps))
	}
}

func (p *proc) setStatus(st exitStatus) {
	p.mu.Lock()
	p.status = st
	p.mu.Unlock()
}

// exitStatus returns the leader's exit status and whether it has exited.
func (p *proc) exitStatus() (exitStatus, bool) {
	select {
	case <-p.exited:
	default:
		return exitStatus{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status, true
}

// stop ends the child once its stdin is closed. It waits closeGrace for
// the leader to exit. It sends SIGTERM to the group (and to the
// descendants that left it) and waits termGrace. Then it stops and sends
// SIGKILL to all of them in every case, since grandchildren may outlive
// the leader. It reaps the leader.
func (p *proc) stop(closeGrace, termGrace time.Duration) error {
	defer unregister(p)
	if !waitFor(p.exited, closeGrace) {
		p.signalAll(syscall.SIGTERM, p.outside())
		waitFor(p.exited, termGrace)
	}
	p.signalAll(syscall.SIGKILL, p.freeze())
	close(p.stopTrack)
	<-p.tracked
	close(p.reapNow)
	if !waitFor(p.reaped, reapTimeout) {
		return errUnresponsive
	}
	// SIGKILL is delivered asynchronously: wait until the group's other
	// members, and the descendants outside it, have died too.
	deadline := time.Now().Add(reapTimeout)
	for delay := 100 * time.Microsecond; GroupAlive(p.pid) || p.outsideAlive(); delay = min(2*delay, 20*time.Millisecond) {
		if time.Now().After(deadline) {
			return errUnresponsive
		}
		time.Sleep(delay) // polling with a deadline: nothing notifies us of a grandchild's death
	}
	return nil
}

// signalAll sends sig to the child's process group and to the descendants
// outside it, and records it.
func (p *proc) signalAll(sig syscall.Signal, outside []proctree.Proc) {
	p.mu.Lock()
	p.signals = append(p.signals, sig)
	p.mu.Unlock()
	syscall.Kill(-p.pid, sig) // ESRCH: the group is already empty
	for _, d := range outside {
		proctree.Signal(d, sig)
	}
}

// freeze stops (SIGSTOP) the group and every descendant found outside it,
// and returns those outside. It looks again after each round for
// descendants started meanwhile, so that none is started between the last
// look and SIGKILL, and none is re-parented out of sight by its parent's
// death. A round ends once what it found has stopped: a process stopped in
// the middle of a fork has a child by then, which the next round finds.
// All rounds together wait at most stopTimeout for that.
//
// It waits for what the tracker can walk: the leader, and the descendants
// it has seen or sees now. A member of the group that is not among them is
// reached by the group's SIGKILL. Its children could not be found however
// long it was waited for. So a child that left nothing behind costs a look
// at the leader, not a read of the whole table.
func (p *proc) freeze() []proctree.Proc {
	// With nothing to find, nothing need stand still: the group's SIGKILL
	// that follows reaches every member at once, a fork in progress too
	// (the kernel fails a fork that a signal to its group interrupts).
	if p.nothingToFind() {
		return nil
	}
	deadline := time.Now().Add(stopTimeout)
	syscall.Kill(-p.pid, syscall.SIGSTOP)
	fresh := []proctree.Proc{p.tree.Root()}
	seen := map[int]bool{}
	var outside []proctree.Proc
	for range maxFreezeRounds {
		waitStopped(fresh, deadline)
		fresh = nil
		for _, d := range p.found() {
			if seen[d.Pid] {
				continue
			}
			seen[d.Pid] = true
			fresh = append(fresh, d)
			if d.Pgid != p.pid {
				proctree.Signal(d, syscall.SIGSTOP)
				outside = append(outside, d)
			}
		}
		if len(fresh) == 0 {
			break
		}
	}
	return outside
}

// waitStopped waits, until deadline at the latest, until each of ps has
// stopped or died. A process whose leader thread has exited (a zombie
// leader whose other threads run) shows no stop: it is not waited for.
func waitStopped(ps []proctree.Proc, deadline time.Time) {
	for _, d := range ps {
		for delay := 50 * time.Microsecond; ; delay = min(2*delay, 5*time.Millisecond) {
			cur, err := proctree.Stat(d.Pid)
			if err != nil || !cur.Same(d) || !cur.Running() || cur.State == 'T' || cur.State == 't' || cur.State == 'Z' || time.Now().After(deadline) {
				break
			}
			time.Sleep(delay) // polling with a deadline: nothing notifies us of a stop
		}
	}
}

// stopTimeout bounds freeze's waits, all its rounds together, for the
// processes it stopped to stop: only one in an uninterruptible system call
// takes that long.
const stopTimeout = 500 * time.Millisecond

// maxFreezeRounds bounds freeze's rounds: a tree that outgrows it while it
// is being stopped (each round stops what the last one found) is killed as
// far as it was seen.
const maxFreezeRounds = 16

// found scans for descendants and returns the running ones, adopted
// orphans attributed to this child included (see BecomeSubreaper).
func (p *proc) found() []proctree.Proc {
	if p.tree == nil {
		return nil
	}
	p.tree.Scan()
	for _, a := range adopted(p) {
		p.tree.Add(a)
	}
	return p.tree.Live()
}

// outside scans for descendants and returns the running ones outside the
// child's process group (the group signal reaches the others).
func (p *proc) outside() []proctree.Proc {
	var out []proctree.Proc
	for _, d := range p.found() {
		if d.Pgid != p.pid {
			out = append(out, d)
		}
	}
	return out
}

// nothingToFind reports whether a look for descendants could find
// nothing: there is no process table, or the leader has exited (its
// children are no longer its own), no descendant was ever seen, and this
// process adopts no orphans (see BecomeSubreaper). Close then reads the
// table no more: the group's SIGKILL reaches whatever else is left of it.
func (p *proc) nothingToFind() bool {
	if p.tree == nil {
		return true
	}
	select {
	case <-p.exited:
	default:
		return false
	}
	return !p.tree.Known() && !proctree.IsSubreaper()
}

// outsideAlive reports whether a descendant found outside the group still
// runs, and reaps those this process adopted that have died.
func (p *proc) outsideAlive() bool {
	if p.nothingToFind() {
		return false
	}
	alive := false
	for _, d := range p.outside() {
		// One found only now (an orphan adopted as its parent died) is
		// killed too.
		proctree.Signal(d, syscall.SIGKILL)
		alive = true
	}
	if alive {
		return true
	}
	// All dead: reap the adopted ones. A dead leader of threads that are
	// still exiting cannot be reaped yet: it counts as alive until it can.
	return !reapAdopted(p)
}

// look looks for descendants now: Close calls it before it closes the
// child's stdin, since a child that exits at the end of its input orphans
// its children, and an orphan's ancestry is gone from the process table.
// Where the system says which processes were created since the last look,
// only those are read (see proctree.Tracker.ScanIfNew).
func (p *proc) look() {
	if p.tree != nil {
		p.tree.ScanIfNew()
	}
}

// descendants returns the pids of the running descendants the scans have
// seen so far, in the group or out of it.
func (p *proc) descendants() []int {
	if p.tree == nil {
		return nil
	}
	var pids []int
	for _, d := range p.tree.Live() {
		pids = append(pids, d.Pid)
	}
	return pids
}

// track looks for the child's descendants while it is silent, every
// trackInterval (see pace), so that a descendant that leaves the group
// stays known after its parent has exited.
func (p *proc) track() {
	defer close(p.tracked)
	if p.tree == nil || p.pace.interval <= 0 {
		return
	}
	t := time.NewTimer(p.pace.interval)
	defer t.Stop()
	for {
		select {
		case <-p.stopTrack:
			return
		case now := <-t.C:
			p.lookIfDue(now, true)
			// Not before firstScan: a look on the reader's goroutine
			// may be running, and the next is due after it ends.
			t.Reset(max(time.Until(p.pace.silentUntil()), firstScan))
		}
	}
}

// heard looks for the child's descendants if a look is due: the child was
// heard from (a message of its was read), so it ran, and has started
// whatever it started to answer. It is called on the reader's goroutine,
// awake anyway, so that the look costs no wake-up of its own.
func (p *proc) heard() {
	if p.tree != nil {
		p.lookIfDue(time.Now(), false)
	}
}

// lookIfDue looks at the processes created since the last look (see
// proctree.Tracker.ScanIfNew) if the pace says a look is due at now.
func (p *proc) lookIfDue(now time.Time, silent bool) {
	if !p.pace.begin(now, silent) {
		return
	}
	start := time.Now()
	p.tree.ScanIfNew()
	p.pace.end(start, time.Now())
}

// requested restarts the pace of the looks: a request may start helpers.
func (p *proc) requested() { p.pace.request() }

// sent returns the signals stop sent to the group, in order.
func (p *proc) sent() []syscall.Signal {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]syscall.Signal(nil), p.signals...)
}

func statusOf(ps *os.ProcessState) exitStatus {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	switch {
	case !ok:
		return exitStatus{code: ps.ExitCode()}
	case ws.Signaled():
		return exitStatus{code: -1, signal: unix.SignalName(ws.Signal())}
	default:
		return exitStatus{code: ws.ExitStatus()}
	}
}

// GroupAlive reports whether a process of the process group pgid is still
// running (a [Conn]'s group id is its Pid). After Close has returned nil it
// is false for the group of the child Close ended.
//
// On Linux and macOS a zombie (a dead process its parent, or init for an
// orphaned grandchild, has not reaped yet) does not count. Elsewhere it
// does, since it cannot be told apart; a killed orphan is reaped by init in
// its own time.
func GroupAlive(pgid int) bool {
	if pgid <= 0 || syscall.Kill(-pgid, 0) == syscall.ESRCH {
		return false
	}
	running, ok := groupRunning(pgid)
	return running || !ok
}

// groupRunning reports whether a process of group pgid is running (not a
// zombie), by reading the process table. ok is false when it cannot be
// read.
func groupRunning(pgid int) (running, ok bool) {
	ps, err := proctree.Group(pgid)
	return len(ps) > 0, err == nil
}
