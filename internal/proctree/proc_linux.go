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
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// procTable reads /proc afresh at each call: a process's children come
// from its threads' children files, so a scan reads only the processes it
// walks, never the whole table.
type procTable struct{}

func (procTable) stat(pid int) (Proc, error)      { return stat(pid) }
func (procTable) children(pid int) ([]int, error) { return Children(pid) }
func (procTable) threads(pid int) ([]int, error)  { return threads(pid) }

func current() (table, error) { return procTable{}, nil }

// lastPid is the pid the kernel gave out last in this pid namespace (to a
// process or a thread), the fifth field of /proc/loadavg: the pids given
// out since a look are those after the one it saw, in order.
func lastPid() (int, bool) {
	fd := loadavgFD()
	if fd < 0 {
		return 0, false
	}
	var buf [128]byte
	for {
		n, err := unix.Pread(fd, buf[:], 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return 0, false
		}
		f := bytes.Fields(buf[:n])
		if len(f) < 5 {
			return 0, false
		}
		return atoi(f[4])
	}
}

// loadavg is /proc/loadavg, opened once and kept for the life of the
// process (one descriptor, not inherited by children): the kernel writes
// it afresh at each read from its start, and a tracker reads it at every
// look, where a path lookup in /proc costs more than the read, much more
// while processes come and go.
var loadavg struct {
	once sync.Once
	fd   int // -1 when it cannot be opened
}

func loadavgFD() int {
	loadavg.once.Do(func() {
		fd, err := open("/proc/loadavg", unix.O_RDONLY)
		if err != nil {
			fd = -1
		}
		loadavg.fd = fd
	})
	return loadavg.fd
}

// Stat reads process pid from /proc/PID/stat. The error wraps fs.ErrNotExist
// when there is no such process, and ErrUnsupported when /proc is not
// mounted.
func Stat(pid int) (Proc, error) {
	p, err := stat(pid)
	if errors.Is(err, fs.ErrNotExist) && !mounted() {
		return Proc{}, fmt.Errorf("proctree: %w: no /proc", ErrUnsupported)
	}
	return p, err
}

// stat is Stat without telling a process that is gone from a /proc that is
// not mounted: a tracker, which had /proc when it was made, asks after
// many processes that are gone.
func stat(pid int) (Proc, error) {
	var buf [512]byte
	b, err := readFile("/proc/"+strconv.Itoa(pid)+"/stat", buf[:0], true)
	if err != nil {
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

// readFile appends the whole of the small file path to buf, by raw system
// calls: a file of /proc is generated as it is read, so os.ReadFile's
// fstat for its size and its poller registration are wasted calls. With
// line set the file is one line, complete at its newline, so the read that
// would return end of file is saved too. A process that is gone (ENOENT)
// or exiting (ESRCH) is fs.ErrNotExist.
func readFile(path string, buf []byte, line bool) ([]byte, error) {
	fd, err := open(path, unix.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, max(512, cap(buf)))
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return nil, pathError("read", path, err)
		case n == 0:
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		if line && buf[len(buf)-1] == '\n' {
			return buf, nil
		}
	}
}

func open(path string, mode int) (int, error) {
	for {
		fd, err := unix.Open(path, mode|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, pathError("open", path, err)
		}
		return fd, nil
	}
}

func pathError(op, path string, err error) error {
	if err == unix.ESRCH {
		err = unix.ENOENT // the process exited while it was read
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
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
	pid, ok := atoi(bytes.TrimSpace(b[:open]))
	if !ok {
		return Proc{}, false
	}
	// The fields after comm, from state (0) to starttime (19).
	var f [20][]byte
	rest := b[end+1:]
	for i := range f {
		rest = bytes.TrimLeft(rest, " ")
		j := bytes.IndexByte(rest, ' ')
		if j < 0 {
			j = len(rest)
		}
		f[i], rest = bytes.TrimRight(rest[:j], "\n"), rest[j:]
		if len(f[i]) == 0 {
			return Proc{}, false
		}
	}
	if len(f[0]) != 1 {
		return Proc{}, false
	}
	num := func(i int) int { n, _ := atoi(f[i]); return n }
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

// atoi parses a decimal number, signed, without allocating.
func atoi(b []byte) (int, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = 10*n + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// All reads every process in /proc, by pid. Processes that exit while it
// reads are left out.
func All() ([]Proc, error) {
	names, err := readDirNames("/proc")
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
	return group(all, pgid), nil
}

// Children returns the pids of pid's children, from each thread's children
// file (a child is listed under the thread that forked it), or, on a
// kernel without those files, from a scan of every process's parent.
//
// A thread's file is read as /proc/TID/task/TID/children, through the
// thread's own (hidden) directory, not as /proc/PID/task/TID/children: a
// file opened under /proc/PID/task/TID stays in the dentry cache under
// /proc/PID, and when the process is reaped the kernel's invalidation of
// /proc/PID walks into the directories its exiting threads are still
// invalidating, and spins until they are done: measured, milliseconds of
// the reaper's CPU per child under load, for a child read a few times in
// its life. Under /proc/TID the same file costs the reaper nothing.
func Children(pid int) ([]int, error) {
	tids, err := readDirNames("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return nil, err
	}
	var kids []int
	var buf [256]byte
	for _, tid := range tids {
		b, err := readFile("/proc/"+tid+"/task/"+tid+"/children", buf[:0], false)
		if errors.Is(err, fs.ErrNotExist) {
			if _, err := os.Stat("/proc/" + tid + "/task/" + tid); err == nil {
				return childrenByScan(pid) // CONFIG_PROC_CHILDREN is off
			}
			continue // the thread ended meanwhile
		}
		if err != nil {
			continue
		}
		for _, f := range bytes.Fields(b) {
			if n, ok := atoi(f); ok {
				kids = append(kids, n)
			}
		}
	}
	slices.Sort(kids)
	return slices.Compact(kids), nil
}

// threads returns the ids of process pid's threads, its own pid among
// them, from the names in /proc/PID/task: one directory read, where
// reading each thread's stat file costs a read each and makes /proc/TID
// an entry the kernel must invalidate when the process is reaped.
func threads(pid int) ([]int, error) {
	names, err := readDirNames("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return nil, err
	}
	tids := make([]int, 0, len(names))
	for _, n := range names {
		if tid, ok := atoi([]byte(n)); ok {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

func childrenByScan(pid int) ([]int, error) {
	all, err := All()
	if err != nil {
		return nil, err
	}
	return newListTable(all).children(pid)
}

// readDirNames lists dir by raw system calls (see readFile).
func readDirNames(dir string) ([]string, error) {
	fd, err := open(dir, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !mounted() {
			return nil, fmt.Errorf("proctree: %w: no /proc", ErrUnsupported)
		}
		return nil, err
	}
	defer unix.Close(fd)
	var names []string
	buf := make([]byte, 4096)
	for {
		n, err := unix.ReadDirent(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, pathError("readdirent", dir, err)
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
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
