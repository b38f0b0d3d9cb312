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
//   - The child leads its own process group, so teardown reaches the
//     processes it starts.
//   - Its environment is the allowlisted names copied from the parent
//     ([Options.InheritEnv], [DefaultInheritEnv]) plus explicit values
//     ([Options.Env]), nothing else.
//   - Its stderr is drained continuously into a bounded ring; the tail is
//     attached to [*StartError] and [*ExitError] and reported by
//     [Conn.Diagnose].
//   - Inbound frames are bounded ([Options.MaxFrameBytes]); an oversize or
//     malformed frame ends the connection with a [*FrameError]. Framing
//     itself is the go-sdk's ([mcp.IOTransport]).
//   - When the child exits on its own, Read reports an [*ExitError] with the
//     exit status and stderr tail.
//   - Close closes the child's stdin first, waits [Options.CloseGrace], sends
//     SIGTERM to the group, waits [Options.TermGrace], then sends SIGKILL to
//     the group in every case (grandchildren may outlive the child), reaps the
//     child and waits until no process of the group runs. It returns within
//     CloseGrace+TermGrace+5s, may be called concurrently, and leaves neither
//     a process of the group nor a goroutine behind.
//
// On Linux the child is not reaped until the group has been sent SIGKILL, so
// its process group id cannot be reused by an unrelated process before then.
//
// The package needs a Unix system; elsewhere Connect fails with
// errors.ErrUnsupported.
package stdio
