//go:build darwin

package proctree

import (
	"fmt"
	"io/fs"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// On macOS the kernel gives the process table whole (sysctl kern.proc.all),
// and a process's children only by its parent field, so a Tracker's scan
// walks one snapshot of the table.
// lastPid is unknown here: every scan reads the table.
func lastPid() (int, bool) { return 0, false }

func current() (table, error) {
	ps, err := All()
	if err != nil {
		return nil, err
	}
	return newListTable(ps), nil
}

// sysctlProcs reads the processes a kern.proc sysctl names.
func sysctlProcs(name string, args ...int) ([]Proc, error) {
	ks, err := unix.SysctlKinfoProcSlice(name, args...)
	if err != nil {
		return nil, fmt.Errorf("proctree: sysctl %s: %w", name, err)
	}
	ps := make([]Proc, 0, len(ks))
	for i := range ks {
		k := &ks[i]
		ps = append(ps, kinfo{
			pid:       k.Proc.P_pid,
			ppid:      k.Eproc.Ppid,
			pgid:      k.Eproc.Pgid,
			stat:      k.Proc.P_stat,
			startSec:  int64(k.Proc.P_starttime.Sec),
			startUsec: int32(k.Proc.P_starttime.Usec),
			comm:      k.Proc.P_comm,
		}.proc())
	}
	slices.SortFunc(ps, func(a, b Proc) int { return a.Pid - b.Pid })
	return ps, nil
}

// Stat reads process pid (sysctl kern.proc.pid). The error wraps
// fs.ErrNotExist when there is no such process.
func Stat(pid int) (Proc, error) {
	ps, err := sysctlProcs("kern.proc.pid", pid)
	if err != nil {
		return Proc{}, err
	}
	if len(ps) != 1 || ps[0].Pid != pid {
		return Proc{}, fmt.Errorf("proctree: process %d: %w", pid, fs.ErrNotExist)
	}
	return ps[0], nil
}

// All reads every process (sysctl kern.proc.all), by pid.
func All() ([]Proc, error) {
	ps, err := sysctlProcs("kern.proc.all")
	if err == nil && len(ps) == 0 {
		err = fmt.Errorf("proctree: %w: the process table is empty", ErrUnsupported)
	}
	return ps, err
}

// Group returns the running (not zombie) members of process group pgid
// (sysctl kern.proc.pgrp), by pid.
func Group(pgid int) ([]Proc, error) {
	ps, err := sysctlProcs("kern.proc.pgrp", pgid)
	if err != nil {
		return nil, err
	}
	return group(ps, pgid), nil
}

// Children returns the pids of pid's children: the processes whose parent
// it is.
func Children(pid int) ([]int, error) {
	ps, err := All()
	if err != nil {
		return nil, err
	}
	return newListTable(ps).children(pid)
}

// Signal sends sig to p if p is still the process it was when read (same
// pid, same start time), and reports whether it was sent. macOS has no
// pidfds: the window between the check and the signal is a few
// microseconds.
func Signal(p Proc, sig syscall.Signal) (bool, error) {
	cur, err := Stat(p.Pid)
	if err != nil || !cur.Same(p) {
		return false, nil
	}
	if err := unix.Kill(p.Pid, sig); err != nil {
		if err == unix.ESRCH {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// SetSubreaper needs Linux: macOS has no subreapers.
func SetSubreaper() error {
	return fmt.Errorf("proctree: %w: macOS has no subreapers", ErrUnsupported)
}

// IsSubreaper is false: macOS has no subreapers.
func IsSubreaper() bool { return false }
