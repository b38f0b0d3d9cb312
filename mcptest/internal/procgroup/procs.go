package procgroup

import "github.com/looprig/mcp/internal/proctree"

// Procs returns the running (not zombie) processes of group pgid, by
// pid, with their command names, read from /proc.
func Procs(pgid int) []Proc {
	members, err := proctree.Group(pgid)
	if err != nil {
		return fallbackProcs(pgid)
	}
	ps := make([]Proc, 0, len(members))
	for _, m := range members {
		ps = append(ps, Proc{Pid: m.Pid, Name: m.Name})
	}
	return ps
}
