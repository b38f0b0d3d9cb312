// Package proctree reads the process table: one process, the members of a
// process group, the children of a process, and the descendants of one
// process over its life. It is this module's one process-table scanner:
// transport/stdio uses it to find and end the descendants of a child that
// left its process group, and mcptest to list what a test left running.
//
// A [Proc] is identified by its pid and its start time, so that a pid the
// kernel has reused for an unrelated process is never taken for the one
// that was seen. [Signal] signals a Proc only while it is still that
// process (through a pidfd where the kernel has them).
//
// On Linux it reads /proc, one small file at a time, by raw system calls
// into one buffer, so that a scan costs few system calls and no garbage,
// and [Tracker.ScanIfNew] reads only the processes created since its last
// look. On macOS it takes the whole table at once from the kernel (sysctl
// kern.proc.all, kern.proc.pid, kern.proc.pgrp): a scan walks one snapshot
// of it, and ScanIfNew always scans. On other systems (Windows among them,
// where a job object does this work), or where /proc is not mounted, the
// functions return an error wrapping [ErrUnsupported], and no [Tracker] can
// be made.
package proctree
