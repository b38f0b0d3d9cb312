package mcptest

import "github.com/looprig/mcp/internal/proctree"

// groupProcs returns the running (not zombie) processes of group pgid, by
// pid, with their command names, read from /proc.
func groupProcs(pgid int) []proc {
	members, err := proctree.Group(pgid)
	if err != nil {
		return fallbackProcs(pgid)
	}
	ps := make([]proc, 0, len(members))
	for _, m := range members {
		ps = append(ps, proc{Pid: m.Pid, Name: m.Name})
	}
	return ps
}
