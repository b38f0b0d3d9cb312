//go:build linux

package stdio

import (
	"bytes"
	"os"
	"strconv"
)

// groupRunning reports whether a process of group pgid is running (not a
// zombie), by reading /proc. ok is false when /proc cannot be read.
func groupRunning(pgid int) (running, ok bool) {
	d, err := os.Open("/proc")
	if err != nil {
		return false, false
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return false, false
	}
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // it exited meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 3 {
			continue
		}
		if g, _ := strconv.Atoi(string(f[2])); g == pgid && f[0][0] != 'Z' && f[0][0] != 'X' {
			return true, true
		}
	}
	return false, true
}
