// Package proctree reads the process table from /proc: one process, the
// members of a process group, the children of a process, and the
// descendants of one process over its life. It is this module's one /proc
// scanner: transport/stdio uses it to find and end the descendants of a
// child that left its process group, and mcptest to list what a test left
// running.
//
// A [Proc] is identified by its pid and its start time, so that a pid the
// kernel has reused for an unrelated process is never taken for the one
// that was seen. [Signal] signals a Proc only while it is still that
// process (through a pidfd where the kernel has them).
//
// Everything here reads Linux's /proc. On other systems, or where /proc is
// not mounted, the functions return an error wrapping [ErrUnsupported], and
// a [Tracker] tracks nothing.
package proctree
