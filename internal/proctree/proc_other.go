//go:build !linux

package proctree

import (
	"fmt"
	"syscall"
)

var errNoProc = fmt.Errorf("proctree: %w: no /proc on this system", ErrUnsupported)

// Stat cannot read a process here.
func Stat(int) (Proc, error) { return Proc{}, errNoProc }

// All cannot read the process table here.
func All() ([]Proc, error) { return nil, errNoProc }

// Group cannot list a group's members here.
func Group(int) ([]Proc, error) { return nil, errNoProc }

// Children cannot list a process's children here.
func Children(int) ([]int, error) { return nil, errNoProc }

// Signal cannot verify a process here, so it sends nothing.
func Signal(Proc, syscall.Signal) (bool, error) { return false, errNoProc }

// SetSubreaper is Linux-only.
func SetSubreaper() error { return errNoProc }

// IsSubreaper is false here.
func IsSubreaper() bool { return false }

// Reap does nothing here.
func Reap(Proc) bool { return false }
