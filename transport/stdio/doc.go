// Package stdio runs an MCP server as a supervised child process: one child
// per connection, speaking newline-delimited JSON-RPC on its stdin and stdout.
//
//	f, err := stdio.New("docs-server", []string{"--stdio"}, &stdio.Options{
//		Env: map[string]string{"DOCS_TOKEN": token}, // nothing else but the allowlist reaches it
//	})
//	c, err := client.Connect(ctx, client.Definition{Name: "docs", Transport: f}, nil)
//
// The factory starts nothing. Each connection's Connect starts a child and
// owns it until Close:
//
//   - The child leads its own process group (on Windows: it runs in a job
//     object of its own). So teardown reaches the processes it starts.
//   - Its environment is the allowlisted names copied from the parent
//     ([Options.InheritEnv], [DefaultInheritEnv]) plus explicit values
//     ([Options.Env]), nothing else. Each system has its own allowlist. On
//     Windows names compare ignoring case.
//   - Its stderr is drained continuously into a bounded ring. The tail is
//     attached to [*StartError] and [*ExitError] and reported by
//     [Conn.Diagnose].
//   - Inbound frames are bounded ([Options.MaxFrameBytes]). An oversize or
//     malformed frame ends the connection with a [*FrameError]. Lines are
//     framed, decoded and batched exactly as the go-sdk's own
//     [mcp.IOTransport] reads them: same framing, same decoder, same
//     errors. But each message is decoded once. The go-sdk decodes a line
//     three times, with a fresh 32 KiB buffer each time.
//   - When the child exits on its own, Read reports an [*ExitError] with the
//     exit status and stderr tail.
//   - Close closes the child's stdin first and waits [Options.CloseGrace].
//     It sends SIGTERM to the group and waits [Options.TermGrace]. It then
//     sends SIGKILL to the group in every case, since grandchildren may
//     outlive the child. It reaps the child and waits until no process of
//     the group runs. It returns within CloseGrace+TermGrace+5.5s. It may
//     be called concurrently. It leaves neither a process of the group nor
//     a goroutine behind. (Windows has no SIGTERM: see below.)
//
// On Linux the child is not reaped until the group has been sent SIGKILL. So
// its process group id cannot be reused by an unrelated process before then.
//
// # Descendants that leave the group
//
// A descendant that calls setsid or setpgid (a daemon, a double fork) leaves
// the child's process group, and the group's signals miss it. So on Linux
// each connection tracks the child's descendants in /proc while it runs.
// It looks for them at these times:
//   - each time the child is heard from: a message of its is read, so it
//     ran and has started what it started to answer;
//   - at a slowing pace after its start and after each request sent to it:
//     a millisecond after the last look, then twice as long each time, down
//     to 50ms;
//   - every 50ms while the child is silent.
//
// Each look reads the processes created since the last look. The kernel
// gives pids out in order and says which it gave out last. The child's own
// threads, listed in one read, are no processes. The look walks the
// children of the child, and of every descendant it has seen, when one of
// them is a child of theirs. Looking takes at most 1/32 of one CPU: after a
// look, the next waits at least 32 times what it took. A descendant once
// seen stays known after its parent exits and it is re-parented. It is
// known by pid and start time, so a reused pid is never mistaken for it.
//
// Close scans once more before it closes stdin, since a child that exits
// at the end of its input orphans its children. It sends SIGTERM to the
// descendants outside the group along with the group. Before SIGKILL it
// stops (SIGSTOP) the group and every such descendant. It scans again until
// no new one appears. So none starts or escapes between the last scan and
// SIGKILL. When the child has exited and no descendant was ever seen, there
// is nothing to scan for or to stop, and the group's SIGKILL is all.
// Signals go through pidfds, which cannot reach a process that reused the
// pid. [Conn.Descendants] lists what the scans have seen.
//
// Some descendants the scans cannot see. One may be started and orphaned
// between two scans: a quick double fork whose intermediate exits within
// milliseconds. It is re-parented to init, or to the nearest subreaper
// above this process. Nothing is left in /proc to tie it to the child.
// [BecomeSubreaper] makes this process that subreaper. Such orphans are
// then re-parented here, and Close ends them too. Read its documentation
// for what it costs. A double fork that keeps the process group needs no
// scan. The group's SIGKILL ends the orphan. A subreaper's Close also
// reaps it; without one, init reaps it. Close stays bounded either way. An
// escaped process that holds the child's stderr open delays Close by at
// most half a second.
//
// On macOS the tracking is the same, at the same pace, through the
// kernel's own process table (sysctl kern.proc) instead of /proc. Every
// look reads the whole table, since macOS does not say which pids it gave
// out last. macOS has neither subreapers nor pidfds. A signal goes to a pid
// checked against its start time just before. On other Unix systems, and
// on Linux without /proc, only the group is signalled.
//
// # Windows
//
// On Windows the child runs in a job object of its own. Every process it
// starts joins the job, which allows no breakaway. So there is nothing to
// track: [Conn.Descendants] lists the job's processes. The child is created
// suspended, assigned to the job and only then resumed. So not even its
// first instruction runs outside it.
//
// Close closes the child's stdin first and waits [Options.CloseGrace].
// Then it terminates the job in every case: the child and every
// descendant. Windows has no SIGTERM, so [Options.TermGrace] is not used.
// The termination reads as SIGKILL in [*ExitError] and [Conn.Diagnose].
// Close waits until the job is empty. The job is also made to kill its
// processes when its last handle closes. So if this program ends without
// closing the connection, even by a crash, the child and its descendants
// end with it. The child runs in a process group of its own, out of reach
// of a Ctrl+C at this program's console.
//
// The package needs a Unix system or Windows; elsewhere Connect fails with
// errors.ErrUnsupported.
package stdio
