//go:build !linux && !darwin

package proctree

import (
	"fmt"
	"syscall"
)

var errNoTable = fmt.Errorf("proctree: %w: the process table is read on Linux and macOS only", ErrUnsupported)

// lastPid is unknown here: every scan reads the table.
func lastPid() (int, bool) { return 0, false }

func current() (table, error) { return nil, errNoTable }

// Stat cannot read a process here.
func Stat(int) (Proc, error) { return Proc{}, errNoTable }

// All cannot read the process table here.
func All() ([]Proc, error) { return nil, errNoTable }

// Group cannot list a group's members here.
func Group(int) ([]Proc, error) { return nil, errNoTable }

// Children cannot list a process's children here.
func Children(int) ([]int, error) { return nil, errNoTable }

// Signal cannot verify a process here, so it sends nothing.
func Signal(Proc, syscall.Signal) (bool, error) { return false, errNoTable }

// SetSubreaper is Linux-only.
func SetSubreaper() error { return errNoTable }

// IsSubreaper is false here.
func IsSubreaper() bool { return false }

// Reap does nothing here.
func Reap(Proc) bool { return false }
