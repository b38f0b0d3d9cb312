package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/looprig/mcp/cassette"
)

const replayUsage = `usage: mcprig replay [flags] FILE

Serves the session recorded in the cassette FILE as an MCP server, with no
server, process or network behind it: on stdin and stdout by default, so any
MCP client can launch "mcprig replay FILE" in place of the server, or over
Streamable HTTP with --listen ADDR, until the client ends its session as
mcprig record's proxy sees it end (a DELETE; on 2026-07-28 the close of
its list-change listen; with --idle D, D with no request in flight).

Each client message must match the next recorded one (by method and params;
ids are rewritten and "_meta" is ignored); each recorded answer is served
once, in order, so a recorded tool call is never answered twice. A request
that matches nothing gets a JSON-RPC error (code -32050) saying where the
session departed from the recording, with a diff; mcprig then exits 1 at the
end of the session and prints the mismatches to stderr. So it does, unless
--allow-unused, when the client did not make every recorded request.

The session ends as recorded: where the recorded server exited (a crash
mid-call), mcprig writes the tail of its standard error that the cassette
holds to stderr and exits with the server's status.

With --listen, the HTTP server reads a request's headers within 10 s and
its body within 10 s (a body still arriving is cut and its connection
closed), closes a connection idle for 60 s, and keeps at most 256 open
(the next is answered 503). A body over --max-body (4 MiB by default) is
answered 413 and not served.

A web page open in your browser can send requests to the server, under
a host name its author controls (DNS rebinding) or from its own site.
With --listen, mcprig answers 403, serving nothing, to a request whose
Host is not a loopback name (localhost, 127.0.0.0/8, [::1]), or whose
Origin header is "null" or not a loopback origin. --allow-host and
--allow-origin admit other names and sites (each replaces the loopback
default of its header); with --allow-remote and no --allow-host, the Host
is not checked, and an Origin must be the request's own.

--fault injects a fault, so that one recorded session exercises a
client's failure paths. Its grammar is KIND@TARGET[:ARG], TARGET a message
number N of mcprig inspect or a request METHOD[=NAME][#NTH] (NAME is
params.name, or params.uri for resources; NTH counts from 1). It is the
grammar of the fake's faults too (mcprig fakeserver --fault); FAULTS.md,
at the repository's root, lists every kind of both:

  drop@T            break the response stream before T's answer (HTTP), or
                    lose the JSON answer to a tasks/get poll
  delay@T:DURATION  hold T's answer DURATION longer
  end@T             end the session at T's answer: the server dies there
  status@T:CODE     answer T's request with 401, 403 or 5xx, once (HTTP)
  fail@T            serve the answer to a tasks/get poll as the task failed

For example end@tools/call=lookup#2, status@tools/list:503 or
fail@tasks/get. A poll that repeats the state of the poll before it is
answered by that one, so fail@ and drop@ name the first poll of a state:
fail@tasks/get#2 is refused when polls 1 and 2 were both "working", and
the refusal names the poll to use.

Exit status: 0 when the session replayed as recorded; 1 on a mismatch,
an unused recorded request (unless --allow-unused) or a failed session;
the recorded server's own status where it exited; 2 on a usage error: a
bad flag, a cassette that does not load, a fault the cassette refuses.

Flags:
`

type replayFlags struct {
	listen      string
	allowRemote bool
	allowUnused bool
	idle        time.Duration
	maxFrame    int
	ignore      multiFlag
	faults      multiFlag
	redact      redactFlags
	door        doorFlags
}

func (f *replayFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.listen, "listen", "", "serve over Streamable HTTP on `ADDR` (loopback only, unless --allow-remote) instead of stdio")
	fs.BoolVar(&f.allowRemote, "allow-remote", false, "allow --listen on a non-loopback address")
	fs.BoolVar(&f.allowUnused, "allow-unused", false, "do not exit 1 when the client did not make every recorded request")
	fs.DurationVar(&f.idle, "idle", 0, "with --listen: also end the replay once no request has been in flight for `D` (0: never)")
	fs.IntVar(&f.maxFrame, "max-frame", 4<<20, "bound one inbound message, in `BYTES`")
	fs.Var(&f.faults, "fault", "inject a fault: drop@T, delay@T:DURATION, end@T, status@T:CODE or fail@T, T a message number of mcprig inspect or a request METHOD[=NAME][#NTH] (end@tools/call=lookup#2, fail@tasks/get; see above); repeatable")
	fs.Var(&f.ignore, "ignore", "ignore the value at `PATH` when matching (\"params.arguments.now\"); repeatable")
	f.redact.define(fs)
	f.door.define(fs, "with --listen: ")
}

func (f *replayFlags) options() (*cassette.Options, error) {
	o := &cassette.Options{Mode: cassette.ModeReplay, AllowUnused: f.allowUnused, IgnorePaths: f.ignore}
	for _, s := range f.faults {
		ft, err := cassette.ParseFault(s)
		if err != nil {
			return nil, fmt.Errorf("--fault: %w", err)
		}
		o.Faults = append(o.Faults, ft)
	}
	return o, f.redact.apply(o)
}

func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f replayFlags
	fs := newFlagSet("mcprig replay", replayUsage, stderr)
	f.define(fs)
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "mcprig replay", "want exactly one cassette FILE")
	}
	opts, err := f.options()
	if err != nil {
		return usageError(stderr, "mcprig replay", err.Error())
	}
	c, err := cassette.Load(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "mcprig replay: %v\n", err)
		return 2
	}
	if f.listen != "" {
		return replayHTTP(ctx, &f, c, opts, stdout, stderr)
	}
	p, err := cassette.Replay(c, nil, opts)
	if err != nil {
		return usageError(stderr, "mcprig replay", err.Error()) // as over HTTP: a fault the cassette refuses
	}
	if err := replayStdio(ctx, &f, p, os.Stdin, stdout, stderr); err != nil {
		if se, ok := err.(*serverEnd); !ok || se.diag == nil {
			fmt.Fprintf(stderr, "mcprig replay: %v\n", err)
		}
		return exitStatus(err)
	}
	return 0
}

// replayStdio serves p's cassette to the client on in and out. The
// session ends as recorded. Where the recorded server exited, replay
// writes the tail of its standard error that the cassette holds to
// stderr. It returns a *serverEnd carrying its exit status, which mcprig
// exits with.
func replayStdio(ctx context.Context, f *replayFlags, p *cassette.Factory, in io.Reader, out, stderr io.Writer) error {
	signal.Ignore(syscall.SIGPIPE)
	t, err := p.Transport()
	if err != nil {
		return err
	}
	up, err := t.Connect(ctx)
	if err != nil {
		return err
	}
	down, err := stdioConn(ctx, in, out, f.maxFrame)
	if err != nil {
		up.Close()
		return err
	}
	r := &relay{down: down, up: up}
	runErr := r.run(ctx)
	if r.diag != nil {
		stderr.Write(r.diag.Stderr)
	}
	if err := p.Close(); err != nil {
		return errors.Join(runErr, err)
	}
	return runErr
}

// faultHelp is mcprig help's word on faults, which replay and fakeserver
// share.
const faultHelp = `
replay --fault and fakeserver --fault share one grammar, KIND[@TARGET][:ARG]
(end@tools/call=lookup#2, delay@lookup:200ms): FAULTS.md, at the
repository's root, lists every kind, where it acts, its target and argument.
`
