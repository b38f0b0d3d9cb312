//go:build linux

package mcptest

import (
	"bytes"
	"os"
	"slices"
	"strconv"
)

// groupProcs returns the running (not zombie) processes of group pgid, by
// pid, with their command names, read from /proc.
func groupProcs(pgid int) []proc {
	d, err := os.Open("/proc")
	if err != nil {
		return fallbackProcs(pgid)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return fallbackProcs(pgid)
	}
	var ps []proc
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // it exited meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
		open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if open < 0 || end < open {
			continue
		}
		f := bytes.Fields(b[end+1:])
		if len(f) < 3 || f[0][0] == 'Z' || f[0][0] == 'X' {
			continue
		}
		if g, _ := strconv.Atoi(string(f[2])); g == pgid {
			ps = append(ps, proc{Pid: pid, Name: string(b[open+1 : end])})
		}
	}
	slices.SortFunc(ps, func(a, b proc) int { return a.Pid - b.Pid })
	return ps
}
