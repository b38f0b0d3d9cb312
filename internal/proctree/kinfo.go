package proctree

import "bytes"

// A kinfo is what macOS's process table (struct kinfo_proc, from sysctl
// kern.proc) says of one process, as plain values: proc_darwin.go fills it
// in, and its reading is tested on every system.
type kinfo struct {
	pid, ppid, pgid int32
	stat            int8 // p_stat: one of the s* constants below
	startSec        int64
	startUsec       int32
	comm            [17]byte // NUL-terminated
}

// The values of kinfo_proc's p_stat (<sys/proc.h>).
const (
	sIdl   = 1 // being created
	sRun   = 2 // runnable
	sSleep = 3 // sleeping on an address
	sStop  = 4 // stopped (SIGSTOP, a debugger)
	sZomb  = 5 // exited, awaiting collection by its parent
)

// proc converts k. A state this code does not know reads as '?', which
// counts as running: a process is never taken for dead on a guess.
func (k kinfo) proc() Proc {
	state := byte('?')
	switch k.stat {
	case sIdl, sRun:
		state = 'R'
	case sSleep:
		state = 'S'
	case sStop:
		state = 'T'
	case sZomb:
		state = 'Z'
	}
	name := k.comm[:]
	if i := bytes.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	return Proc{
		Pid:   int(k.pid),
		PPid:  int(k.ppid),
		Pgid:  int(k.pgid),
		State: state,
		Start: uint64(k.startSec)*1e6 + uint64(k.startUsec),
		Name:  string(name),
	}
}
