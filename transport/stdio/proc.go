//go:build unix

package stdio

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

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
		cmd:     cmd,
		pid:     cmd.Process.Pid,
		exited:  make(chan struct{}),
		reapNow: make(chan struct{}),
		reaped:  make(chan struct{}),
	}
	go p.wait()
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

// stop ends the child once its stdin is closed: it waits closeGrace for the
// leader to exit, sends SIGTERM to the group and waits termGrace, then sends
// SIGKILL to the group in every case (grandchildren may outlive the leader)
// and reaps the leader.
func (p *proc) stop(closeGrace, termGrace time.Duration) error {
	if !waitFor(p.exited, closeGrace) {
		p.signalGroup(syscall.SIGTERM)
		waitFor(p.exited, termGrace)
	}
	p.signalGroup(syscall.SIGKILL)
	close(p.reapNow)
	if !waitFor(p.reaped, reapTimeout) {
		return ErrUnresponsive
	}
	// SIGKILL is delivered asynchronously: wait until the group's other
	// members have died too.
	deadline := time.Now().Add(reapTimeout)
	for delay := 100 * time.Microsecond; GroupAlive(p.pid); delay = min(2*delay, 20*time.Millisecond) {
		if time.Now().After(deadline) {
			return ErrUnresponsive
		}
		time.Sleep(delay) // polling with a deadline: nothing notifies us of a grandchild's death
	}
	return nil
}

func (p *proc) signalGroup(sig syscall.Signal) {
	p.mu.Lock()
	p.signals = append(p.signals, sig)
	p.mu.Unlock()
	syscall.Kill(-p.pid, sig) // ESRCH: the group is already empty
}

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

// waitFor reports whether ch was closed within d.
func waitFor(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// GroupAlive reports whether a process of the process group pgid is still
// running (a [Conn]'s group id is its Pid). After Close has returned nil it
// is false for the group of the child Close ended.
//
// On Linux a zombie (a dead process its parent, or init for an orphaned
// grandchild, has not reaped yet) does not count. Elsewhere it does, since
// it cannot be told apart; a killed orphan is reaped by init in its own time.
func GroupAlive(pgid int) bool {
	if pgid <= 0 || syscall.Kill(-pgid, 0) == syscall.ESRCH {
		return false
	}
	running, ok := groupRunning(pgid)
	return running || !ok
}
