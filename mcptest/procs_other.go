//go:build !linux

package mcptest

// groupProcs cannot list a group's processes without /proc: it reports the
// group's leader when the group is alive.
func groupProcs(pgid int) []proc { return fallbackProcs(pgid) }
