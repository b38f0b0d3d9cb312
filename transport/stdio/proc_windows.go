//go:build windows

package stdio

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// reapTimeout bounds how long teardown waits, after terminating the job,
// for its processes to be gone; only a process stuck in the kernel takes
// that long.
const reapTimeout = 2 * time.Second

// exitStatus is how the child ended.
type exitStatus struct {
	code   int    // -1 when Close's termination ended it
	signal string // "SIGKILL" when Close's termination ended it, else ""
}

// proc supervises one child process and its descendants through a job
// object. The child is created suspended, assigned to the job, and only
// then run. So every process it starts is in the job too, since the job
// allows no breakaway. Terminating the job ends them all. The job is made
// to kill its processes when its last handle closes. So they end with this
// process too, however it ends.
type proc struct {
	cmd *exec.Cmd
	pid int
	job windows.Handle

	exited chan struct{} // closed once the child has exited and status is set

	mu         sync.Mutex // guards status, signals, terminated, closed
	status     exitStatus
	signals    []syscall.Signal // the terminations, as SIGKILL
	terminated bool             // Close has terminated the job
	closed     bool             // the job's handle is closed
}

// startProc starts path, suspended, with exactly env and the given stdin,
// stdout and stderr, assigns it to a new job object and resumes it.
func startProc(path string, args []string, dir string, env []string, stdio [3]*os.File) (*proc, error) {
	job, err := newJob()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Env = env // never nil: see environ
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio[0], stdio[1], stdio[2]
	// Suspended until it is in the job; a process group of its own, so
	// that a Ctrl+C at this program's console does not reach it (as a
	// process group of its own keeps a terminal's SIGINT from it on Unix).
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP}
	if err := cmd.Start(); err != nil {
		windows.CloseHandle(job)
		return nil, err
	}
	pid := cmd.Process.Pid
	if err := assign(job, pid); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		windows.CloseHandle(job)
		return nil, err
	}
	if err := resume(pid); err != nil {
		windows.TerminateJobObject(job, jobKilledCode)
		cmd.Wait()
		windows.CloseHandle(job)
		return nil, err
	}
	p := &proc{cmd: cmd, pid: pid, job: job, exited: make(chan struct{})}
	jobs.add(p)
	go p.wait()
	return p, nil
}

// newJob makes a job object that kills its processes when its last handle
// closes.
func newJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("job object limits: %w", err)
	}
	return job, nil
}

// assign puts process pid in job. The process cannot have been replaced:
// exec.Cmd holds its handle until Wait.
func assign(job windows.Handle, pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("job object: opening process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		return fmt.Errorf("job object: assigning process %d: %w", pid, err)
	}
	return nil
}

// resume resumes the threads of the suspended process pid (it has one:
// its first).
func resume(pid int) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("resuming process %d: %w", pid, err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err := windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != uint32(pid) {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("resuming process %d: %w", pid, err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resuming process %d: %w", pid, err)
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("resuming process %d: no thread found", pid)
	}
	return nil
}

// wait publishes the exit status once the child exits. On Windows a pid
// is not reused while a handle to the job holds the process, and nothing
// is signalled by pid: the child is reaped at once.
func (p *proc) wait() {
	p.cmd.Wait()
	code := uint32(1)
	if ps := p.cmd.ProcessState; ps != nil {
		code = uint32(ps.ExitCode())
	}
	p.mu.Lock()
	p.status = jobExit(code, p.terminated)
	p.mu.Unlock()
	close(p.exited)
}

// exitStatus returns the child's exit status and whether it has exited.
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

// stop ends the child once its stdin is closed: it waits closeGrace for
// the child to exit, then terminates the job in every case (the child's
// descendants may outlive it) and waits until no process of the job runs.
// Windows has no SIGTERM: termGrace is not used.
func (p *proc) stop(closeGrace, _ time.Duration) error {
	defer p.closeJob()
	waitFor(p.exited, closeGrace)
	p.mu.Lock()
	p.terminated = true
	p.signals = append(p.signals, syscall.SIGKILL)
	p.mu.Unlock()
	if err := windows.TerminateJobObject(p.job, jobKilledCode); err != nil {
		return fmt.Errorf("stdio: terminating the job object: %w", err)
	}
	deadline := time.Now().Add(reapTimeout)
	for delay := 100 * time.Microsecond; ; delay = min(2*delay, 20*time.Millisecond) {
		n, err := p.active()
		if err != nil {
			return fmt.Errorf("stdio: reading the job object: %w", err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			return errUnresponsive
		}
		time.Sleep(delay) // polling with a deadline: the job's processes die asynchronously
	}
	if !waitFor(p.exited, reapTimeout) {
		return errUnresponsive
	}
	return nil
}

// closeJob closes the job's handle (which kills whatever still runs in it)
// and forgets the job.
func (p *proc) closeJob() {
	jobs.remove(p)
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.closed = true
		windows.CloseHandle(p.job)
	}
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION, which x/sys
// does not declare.
type jobAccounting struct {
	TotalUserTime             int64
	TotalKernelTime           int64
	ThisPeriodTotalUserTime   int64
	ThisPeriodTotalKernelTime int64
	TotalPageFaultCount       uint32
	TotalProcesses            uint32
	ActiveProcesses           uint32
	TotalTerminatedProcesses  uint32
}

// active returns how many processes of the job run (none once the job is
// closed).
func (p *proc) active() (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0, nil
	}
	var acc jobAccounting
	err := windows.QueryInformationJobObject(p.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&acc)), uint32(unsafe.Sizeof(acc)), nil)
	return int(acc.ActiveProcesses), err
}

// members returns the pids of the job's processes.
func (p *proc) members() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	ptr := int(unsafe.Sizeof(uintptr(0)))
	for n := 64; n <= 1<<16; n *= 4 {
		buf := make([]byte, 8+n*ptr)
		err := windows.QueryInformationJobObject(p.job, windows.JobObjectBasicProcessIdList,
			uintptr(unsafe.Pointer(&buf[0])), uint32(len(buf)), nil)
		if err != nil && !errors.Is(err, windows.ERROR_MORE_DATA) {
			return nil
		}
		if pids, whole := jobPids(buf, ptr); whole {
			return pids
		}
	}
	return nil
}

// descendants returns the pids of the job's processes but the child's: the
// child's descendants, every one of them (a job misses none).
func (p *proc) descendants() []int {
	var out []int
	for _, pid := range p.members() {
		if pid != p.pid {
			out = append(out, pid)
		}
	}
	return out
}

// sent returns the terminations stop made, as SIGKILL.
func (p *proc) sent() []syscall.Signal {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]syscall.Signal(nil), p.signals...)
}

// The job sees every descendant: there is nothing to look for.
func (p *proc) requested() {}
func (p *proc) heard()     {}
func (p *proc) look()      {}

// jobs are the children whose job is open, by pid, for GroupAlive.
var jobs = jobSet{m: map[int]*proc{}}

type jobSet struct {
	mu sync.Mutex // guards m
	m  map[int]*proc
}

func (s *jobSet) add(p *proc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[p.pid] = p
}

func (s *jobSet) remove(p *proc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m[p.pid] == p {
		delete(s.m, p.pid)
	}
}

func (s *jobSet) get(pid int) *proc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[pid]
}

// GroupAlive reports whether a process of the process group pgid is still
// running (a [Conn]'s group id is its Pid). After Close has returned nil it
// is false for the group of the child Close ended.
//
// On Windows the child's group is its job object. GroupAlive reports
// whether the job of the open connection whose child has pid pgid holds a
// running process. It reports false once that connection is closed (Close waits until the
// job is empty, then closes it).
func GroupAlive(pgid int) bool {
	p := jobs.get(pgid)
	if p == nil {
		return false
	}
	n, err := p.active()
	return err != nil || n > 0
}

// BecomeSubreaper needs Linux: it returns an error wrapping
// errors.ErrUnsupported. On Windows it is not needed: every descendant of
// a child is in the child's job object, and Close ends the job.
func BecomeSubreaper() error {
	return fmt.Errorf("stdio: subreapers are Linux's; a Windows child's job object holds every descendant: %w", errors.ErrUnsupported)
}
