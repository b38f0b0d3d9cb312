// Package stdio runs an MCP server as a supervised child process: one child
// per connection, speaking newline-delimited JSON-RPC on its stdin and stdout.
//
//	f, err := stdio.New("docs-server", []string{"--stdio"}, &stdio.Options{
//		Env: map[string]string{"DOCS_TOKEN": token}, // nothing else but the allowlist reaches it
//	})
//	c, err := client.Connect(ctx, client.Definition{Name: "docs", Transport: f}, nil)
//
// The factory starts nothing; each connection's Connect starts a child and
// owns it until Close:
//
//   - The child leads its own process group (on Windows: it runs in a job
//     object of its own), so teardown reaches the processes it starts.
//   - Its environment is the allowlisted names copied from the parent
//     ([Options.InheritEnv], [DefaultInheritEnv]) plus explicit values
//     ([Options.Env]), nothing else; each system has its own allowlist, and
//     on Windows names compare ignoring case.
//   - Its stderr is drained continuously into a bounded ring; the tail is
//     attached to [*StartError] and [*ExitError] and reported by
//     [Conn.Diagnose].
//   - Inbound frames are bounded ([Options.MaxFrameBytes]); an oversize or
//     malformed frame ends the connection with a [*FrameError]. Lines are
//     framed, decoded and batched exactly as the go-sdk's own
//     [mcp.IOTransport] reads them (same framing, same decoder, same
//     errors), but each message is decoded once, where the go-sdk decodes a
//     line three times with a fresh 32 KiB buffer each time.
//   - When the child exits on its own, Read reports an [*ExitError] with the
//     exit status and stderr tail.
//   - Close closes the child's stdin first, waits [Options.CloseGrace], sends
//     SIGTERM to the group, waits [Options.TermGrace], then sends SIGKILL to
//     the group in every case (grandchildren may outlive the child), reaps the
//     child and waits until no process of the group runs. It returns within
//     CloseGrace+TermGrace+5.5s, may be called concurrently, and leaves neither
//     a process of the group nor a goroutine behind. (Windows has no
//     SIGTERM: see below.)
//
// On Linux the child is not reaped until the group has been sent SIGKILL, so
// its process group id cannot be reused by an unrelated process before then.
//
// # Descendants that leave the group
//
// A descendant that calls setsid or setpgid (a daemon, a double fork) leaves
// the child's process group, and the group's signals miss it. On Linux each
// connection therefore tracks the child's descendants in /proc while it runs:
// each time the child is heard from (a message of its is read: it ran, and has
// started what it started to answer), at a slowing pace after its start and
// after each request sent to it (a millisecond after the last look, then twice
// as long each time, down to 50ms), and every 50ms while it is silent, it
// looks at the processes created since its last look (the kernel gives pids
// out in order and says which it gave out last; the child's own threads,
// listed in one read, are no processes), and walks the children of the
// child and of every descendant it has seen when one of them is a child of
// theirs. Looking takes at most 1/32 of one CPU: after a look the next waits
// at least 32 times what it took. A descendant once seen stays known (by pid
// and start time, so a reused pid is never mistaken for it) after its parent
// exits and it is re-parented. Close scans once more before it closes stdin (a
// child that exits at the end of its input orphans its children), sends
// SIGTERM to the descendants outside the group along with the group, and
// before SIGKILL stops (SIGSTOP) the group and every such descendant, scanning
// again until no new one appears, so that none starts or escapes between the
// last scan and SIGKILL (when the child has exited and no descendant was ever
// seen, there is nothing to scan for or to stop, and the group's SIGKILL is
// all). Signals go through pidfds, which cannot reach a process that reused
// the pid.
// [Conn.Descendants] lists what the scans have seen.
//
// What the scans cannot see: a descendant started and orphaned between two
// scans (a quick double fork whose intermediate exits within milliseconds)
// is re-parented to init, or to the nearest subreaper above this process,
// with nothing left in /proc to tie it to the child. [BecomeSubreaper] makes
// this process that subreaper, so that such orphans are re-parented here
// and Close ends them too; read its documentation for what it costs. A
// double fork that keeps the process group needs no scan: the group's
// SIGKILL ends the orphan, and a subreaper's Close also reaps it (without
// one, init reaps it). Close
// stays bounded either way: an escaped process that holds the child's
// stderr open delays Close by at most half a second.
//
// On macOS the tracking is the same, through the kernel's own process table
// (sysctl kern.proc) instead of /proc: every look reads the whole table
// (macOS does not say which pids it gave out last), at the same pace, and
// macOS has neither subreapers nor pidfds (a signal goes to a pid checked
// against its start time just before). On other Unix systems, and on Linux
// without /proc, only the group is signalled.
//
// # Windows
//
// On Windows the child runs in a job object of its own, which every process
// it starts joins (the job allows no breakaway), so there is nothing to
// track: [Conn.Descendants] lists the job's processes. The child is created
// suspended, assigned to the job and only then resumed, so not even its
// first instruction runs outside it. Close closes the child's stdin first,
// waits [Options.CloseGrace], then terminates the job in every case (the
// child and every descendant; Windows has no SIGTERM, so [Options.TermGrace]
// is not used, and the termination reads as SIGKILL in [*ExitError] and
// [Conn.Diagnose]) and waits until the job is empty. The job is also made
// to kill its processes when its last handle closes: if this program ends
// without closing the connection, even by a crash, the child and its
// descendants end with it. The child runs in a process group of its own,
// out of reach of a Ctrl+C at this program's console.
//
// The package needs a Unix system or Windows; elsewhere Connect fails with
// errors.ErrUnsupported.
package stdio
