//go:build linux

package proctree

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Stat reads process pid from /proc/PID/stat. The error wraps fs.ErrNotExist
// when there is no such process, and ErrUnsupported when /proc is not
// mounted.
func Stat(pid int) (Proc, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !mounted() {
			return Proc{}, fmt.Errorf("proctree: %w: no /proc", ErrUnsupported)
		}
		return Proc{}, err
	}
	p, ok := parseStat(b)
	if !ok {
		return Proc{}, fmt.Errorf("proctree: unreadable /proc/%d/stat", pid)
	}
	return p, nil
}

func mounted() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

// parseStat parses one /proc/PID/stat line:
// "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt
// cmajflt utime stime cutime cstime priority nice num_threads itrealvalue
// starttime …", where comm may hold spaces and parentheses.
func parseStat(b []byte) (Proc, bool) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return Proc{}, false
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil {
		return Proc{}, false
	}
	f := bytes.Fields(b[end+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return Proc{}, false
	}
	num := func(i int) int { n, _ := strconv.Atoi(string(f[i])); return n }
	start, err := strconv.ParseUint(string(f[19]), 10, 64)
	if err != nil {
		return Proc{}, false
	}
	return Proc{
		Pid:     pid,
		State:   f[0][0],
		PPid:    num(1),
		Pgid:    num(2),
		Sid:     num(3),
		Threads: num(17),
		Start:   start,
		Name:    string(b[open+1 : end]),
	}, true
}

// All reads every process in /proc, by pid. Processes that exit while it
// reads are left out.
func All() ([]Proc, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, fmt.Errorf("proctree: %w: %v", ErrUnsupported, err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("proctree: %w: %v", ErrUnsupported, err)
	}
	ps := make([]Proc, 0, len(names))
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if p, err := Stat(pid); err == nil {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("proctree: %w: /proc lists no process", ErrUnsupported)
	}
	slices.SortFunc(ps, func(a, b Proc) int { return a.Pid - b.Pid })
	return ps, nil
}

// Group returns the running (not zombie) members of process group pgid, by
// pid.
func Group(pgid int) ([]Proc, error) {
	all, err := All()
	if err != nil {
		return nil, err
	}
	var ps []Proc
	for _, p := range all {
		if p.Pgid == pgid && p.Running() {
			ps = append(ps, p)
		}
	}
	return ps, nil
}

// Children returns the pids of pid's children, from
// /proc/PID/task/TID/children (one file per thread: a child is listed under
// the thread that forked it), or, on a kernel without those files, from a
// scan of every process's parent.
func Children(pid int) ([]int, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tids, err := readDirNames(dir)
	if err != nil {
		return nil, err
	}
	var kids []int
	for _, tid := range tids {
		b, err := os.ReadFile(dir + "/" + tid + "/children")
		if errors.Is(err, fs.ErrNotExist) {
			if _, err := os.Stat(dir + "/" + tid); err == nil {
				return childrenByScan(pid) // CONFIG_PROC_CHILDREN is off
			}
			continue // the thread ended meanwhile
		}
		if err != nil {
			continue
		}
		for _, f := range bytes.Fields(b) {
			if n, err := strconv.Atoi(string(f)); err == nil {
				kids = append(kids, n)
			}
		}
	}
	slices.Sort(kids)
	return slices.Compact(kids), nil
}

func childrenByScan(pid int) ([]int, error) {
	all, err := All()
	if err != nil {
		return nil, err
	}
	var kids []int
	for _, p := range all {
		if p.PPid == pid {
			kids = append(kids, p.Pid)
		}
	}
	return kids, nil
}

func readDirNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !mounted() {
			return nil, fmt.Errorf("proctree: %w: no /proc", ErrUnsupported)
		}
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}

// Signal sends sig to p if p is still the process it was when read (same
// pid, same start time), and reports whether it was sent. Where the kernel
// has pidfds the check and the signal cannot be split by the pid's reuse;
// elsewhere the window between them is a few microseconds.
func Signal(p Proc, sig syscall.Signal) (bool, error) {
	fd, err := unix.PidfdOpen(p.Pid, 0)
	switch {
	case err == nil:
		defer unix.Close(fd)
	case err == unix.ESRCH:
		return false, nil
	default:
		fd = -1 // no pidfds here (ENOSYS) or not allowed: check, then kill
	}
	cur, err := Stat(p.Pid)
	if err != nil || !cur.Same(p) {
		return false, nil
	}
	if fd >= 0 {
		err = unix.PidfdSendSignal(fd, sig, nil, 0)
	} else {
		err = syscall.Kill(p.Pid, sig)
	}
	if err == unix.ESRCH {
		return false, nil
	}
	return err == nil, err
}

// SetSubreaper makes the calling process a child subreaper
// (PR_SET_CHILD_SUBREAPER): a descendant whose parent exits is re-parented
// to it rather than to init. It is a property of the whole process and
// lasts until it exits.
func SetSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("proctree: PR_SET_CHILD_SUBREAPER: %w", err)
	}
	return nil
}

// IsSubreaper reports whether the calling process is a child subreaper.
func IsSubreaper() bool {
	var v int32
	if err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&v)), 0, 0, 0); err != nil {
		return false
	}
	return v != 0
}

// Reap collects p, a child of the calling process that has exited (a
// zombie), and so frees its pid, without waiting. It reports whether p is
// gone: false while p runs, or is a zombie that cannot be collected yet (a
// thread group leader whose other threads are still exiting), or is not a
// child of the calling process.
func Reap(p Proc) bool {
	cur, err := Stat(p.Pid)
	if err != nil || !cur.Same(p) {
		return true
	}
	if cur.PPid != os.Getpid() || cur.Running() {
		return false
	}
	var ws unix.WaitStatus
	pid, _ := unix.Wait4(p.Pid, &ws, unix.WNOHANG, nil)
	return pid == p.Pid
}
