package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/transport/stdio"
)

const recordUsage = `usage: mcprig record -o FILE [flags] -- CMD [ARGS...]
       mcprig record -o FILE [flags] --upstream URL [--listen ADDR]

Records one MCP session to the cassette FILE.

With CMD, mcprig is a recording stdio proxy: an MCP client launches
"mcprig record -o FILE -- CMD ARGS..." in place of the server. mcprig speaks
MCP to the client on its own stdin and stdout, runs CMD as a supervised child
(its own process group, an environment allowlist, bounded stderr, reaped on
exit) and forwards every message, unchanged, in both directions. When the
client closes its end (or mcprig gets SIGINT or SIGTERM), the child is closed
and every message, redacted, is written to FILE at once (a temporary file
renamed over it, so a failed session leaves an earlier cassette intact).
The child's standard error is passed on to mcprig's. A child that
exits first ends the session: it is recorded so, and mcprig exits with the
child's status, as the child would have.

With --upstream, mcprig is a recording HTTP proxy: it listens on ADDR
(loopback only, unless --allow-remote) and forwards to the Streamable HTTP
server at URL, recording at the HTTP level. The recording is written when
the client ends its session: a 2025-11-25 session with its DELETE, a
2026-07-28 one (which has no DELETE) when the client closes the
subscriptions/listen stream it holds for list changes, as a client does
when it closes the session; or, with --idle D, once no request has been
in flight for D (for clients that do neither); or at SIGINT or SIGTERM.
A request the upstream fails with no response reaches the client as a
connection closed with no response, as it would have without the proxy.
The proxy reads a request's headers within 10 s and its body within 10 s (a
body still arriving is cut and its connection closed), closes a connection
idle for 60 s, and keeps at most 256 open (the next is answered 503). It
reads a request's body whole before it forwards anything: a body over
--max-body (4 MiB by default) is answered 413 and neither forwarded nor
recorded.

A web page open in your browser can send requests to the proxy, under a
host name its author controls (DNS rebinding) or from its own site. The
proxy answers 403, forwarding and recording nothing, to a request whose
Host is not a loopback name (localhost, 127.0.0.0/8, [::1]), or whose
Origin header is "null" or not a loopback origin. --allow-host and
--allow-origin admit other names and sites (each replaces the loopback
default of its header); with --allow-remote and no --allow-host, the Host
is not checked, and an Origin must be the request's own.

The cassette holds no timestamps: recording the same session twice gives the
same bytes. A progress line goes to stderr every --progress messages.

The cassette's header declares what it was recorded with: each --volatile
PATH (a value that changes every run, which replay, diff and verify then
ignore with no flag), and the digest of the --redact-pattern and
--redact-path rules (replay and verify refuse other rules).

Flags:
`

// recordFlags are the flags of mcprig record.
type recordFlags struct {
	out         string
	child       childFlags
	stderr      bool
	progress    int64
	redact      redactFlags
	volatile    multiFlag
	upstream    string
	listen      string
	allowRemote bool
	idle        time.Duration
	door        doorFlags
}

func (f *recordFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.out, "o", "", "write the cassette to `FILE` (required)")
	f.child.define(fs)
	fs.BoolVar(&f.stderr, "stderr", false, "also record the tail of the child's standard error")
	fs.Int64Var(&f.progress, "progress", 1000, "print a progress line to stderr every `N` messages (0: never)")
	f.redact.define(fs)
	fs.Var(&f.volatile, "volatile", "declare the value at `PATH` volatile (\"params.arguments.now\"): written into the cassette, ignored by replay, diff and verify; repeatable")
	fs.StringVar(&f.upstream, "upstream", "", "record the Streamable HTTP server at `URL` (with --listen)")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:0", "with --upstream: serve the recording proxy on `ADDR`")
	fs.BoolVar(&f.allowRemote, "allow-remote", false, "with --upstream: allow --listen on a non-loopback address")
	fs.DurationVar(&f.idle, "idle", 0, "with --upstream: also end the recording once no request has been in flight for `D` (0: never)")
	f.door.define(fs, "with --upstream: ")
}

// options returns the cassette options the flags ask for.
func (f *recordFlags) options() (*cassette.Options, error) {
	o := &cassette.Options{Stderr: f.stderr, IgnorePaths: f.volatile}
	if err := o.Validate(); err != nil {
		var oerr *cassette.OptionsError
		if errors.As(err, &oerr) {
			return nil, fmt.Errorf("--volatile %q: %w", oerr.Value, oerr.Err)
		}
		return nil, err
	}
	ns, err := f.child.notSecretValues()
	if err != nil {
		return nil, err
	}
	o.NotSecret = ns
	return o, f.redact.apply(o)
}

// redactFlags are the redaction flags shared by record and replay (replay
// redacts live messages with the recording's rules before matching them).
type redactFlags struct {
	env, patterns, paths multiFlag
}

func (f *redactFlags) define(fs *flag.FlagSet) {
	fs.Var(&f.env, "redact-env", "redact the value of the environment variable `NAME` wherever it appears; repeatable")
	fs.Var(&f.patterns, "redact-pattern", "redact every match of the regular expression `RE` (its first group, if it has one); repeatable")
	fs.Var(&f.paths, "redact-path", "redact the whole value at `PATH` in messages (\"params.arguments.password\", \"*\" matches any key); repeatable")
}

func (f *redactFlags) apply(o *cassette.Options) error {
	o.RedactPaths = f.paths
	for _, name := range f.env {
		v, ok := os.LookupEnv(name)
		if !ok {
			return fmt.Errorf("--redact-env %s: not set", name)
		}
		o.Secrets = append(o.Secrets, v)
	}
	for _, p := range f.patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return fmt.Errorf("--redact-pattern: %w", err)
		}
		o.Patterns = append(o.Patterns, re)
	}
	return nil
}

// childFlags are the flags of a command that starts the server as a stdio
// child.
type childFlags struct {
	env       multiFlag
	notSecret multiFlag
	inherit   *string // nil when --inherit was not given
	maxFrame  int
}

func (f *childFlags) define(fs *flag.FlagSet) {
	fs.Var(&f.env, "env", "pass `NAME` (copied from mcprig's environment) or NAME=VALUE to the child; repeatable")
	fs.Var(&f.notSecret, "not-secret", "the --env value of `NAME` is no secret: write it as it is (every --env value of 8 bytes or more is redacted otherwise); repeatable")
	fs.Func("inherit", "comma-separated `NAMES` copied from mcprig's environment to the child, in place of the default allowlist ("+strings.Join(stdio.DefaultInheritEnv, ",")+"); \"-\" for none", func(v string) error {
		if v == "" {
			return errors.New(`empty; "-" inherits nothing`)
		}
		f.inherit = &v
		return nil
	})
	fs.IntVar(&f.maxFrame, "max-frame", stdio.DefaultMaxFrameBytes, "bound one message, in `BYTES`, in each direction")
}

// notSecretValues returns the values of the --env names --not-secret
// names.
func (f *childFlags) notSecretValues() ([]string, error) {
	if len(f.notSecret) == 0 {
		return nil, nil
	}
	so, err := f.stdioOptions(io.Discard)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, name := range f.notSecret {
		v, ok := so.Env[name]
		if !ok {
			return nil, fmt.Errorf("--not-secret %s: no --env gives the child %s", name, name)
		}
		out = append(out, v)
	}
	return out, nil
}

// stdioOptions returns the child's options.
func (f *childFlags) stdioOptions(stderr io.Writer) (*stdio.Options, error) {
	o := &stdio.Options{Env: map[string]string{}, MaxFrameBytes: f.maxFrame, Stderr: stderr}
	switch {
	case f.inherit == nil:
	case *f.inherit == "-":
		o.InheritEnv = []string{}
	default:
		o.InheritEnv = strings.Split(*f.inherit, ",")
	}
	for _, e := range f.env {
		name, val, ok := strings.Cut(e, "=")
		if name == "" {
			return nil, fmt.Errorf("--env %q: no name", e)
		}
		if !ok {
			if val, ok = os.LookupEnv(name); !ok {
				continue
			}
		}
		o.Env[name] = val
	}
	return o, nil
}

func runRecord(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f recordFlags
	fs := newFlagSet("mcprig record", recordUsage, stderr)
	f.define(fs)
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	cmd := fs.Args()
	switch {
	case f.out == "":
		return usageError(stderr, "mcprig record", "-o FILE is required")
	case f.upstream != "" && len(cmd) > 0:
		return usageError(stderr, "mcprig record", "give either --upstream URL or -- CMD, not both")
	case f.upstream == "" && len(cmd) == 0:
		return usageError(stderr, "mcprig record", "nothing to record: give -- CMD [ARGS...] or --upstream URL")
	}
	opts, err := f.options()
	if err != nil {
		return usageError(stderr, "mcprig record", err.Error())
	}
	if f.upstream != "" {
		return recordHTTP(ctx, &f, opts, stdout, stderr)
	}
	if err := recordStdio(ctx, &f, opts, cmd, os.Stdin, stdout, stderr); err != nil {
		if se, ok := err.(*serverEnd); ok && se.diag != nil && se.diag.Exited {
			// Its stderr has been passed on already: say how it ended, once.
			d := *se.diag
			d.Stderr = nil
			fmt.Fprintf(stderr, "mcprig record: the server ended the session: %v\n", &d)
		} else {
			fmt.Fprintf(stderr, "mcprig record: %v\n", err)
		}
		return exitStatus(err)
	}
	return 0
}

// recordStdio proxies the client on in and out to the child cmd, recording
// the session to f.out.
func recordStdio(ctx context.Context, f *recordFlags, opts *cassette.Options, cmd []string, in io.Reader, out, stderr io.Writer) (err error) {
	// A client that goes away while the child still talks must not kill
	// the proxy (SIGPIPE on stdout) before the cassette is written.
	signal.Ignore(syscall.SIGPIPE)
	stderr = &lockedWriter{w: stderr} // shared by the child's stderr and the progress lines
	childErr := newAsyncWriter(stderr, 256)
	defer func() {
		if n := childErr.Close(); n > 0 {
			fmt.Fprintf(stderr, "mcprig record: %d bytes of the server's stderr dropped (stderr not read fast enough)\n", n)
		}
	}()
	so, err := f.child.stdioOptions(childErr)
	if err != nil {
		return err
	}
	live, err := stdio.New(cmd[0], cmd[1:], so)
	if err != nil {
		return err
	}
	opts.Mode = cassette.ModeRecord
	rec, err := cassette.Open(f.out, live, opts)
	if err != nil {
		return err
	}
	t, err := rec.Transport()
	if err != nil {
		return err
	}
	up, err := t.Connect(ctx)
	if err != nil {
		rec.Close()
		return err // the transport's error names the command
	}
	down, err := stdioConn(ctx, in, out, f.child.maxFrame)
	if err != nil {
		up.Close()
		rec.Close()
		return err
	}
	r := &relay{down: down, up: up, maxBytes: cassette.MaxSize, every: f.progress,
		progress: func(c, s int64) {
			fmt.Fprintf(stderr, "mcprig record: %d messages (%d from the client, %d from the server)\n", c+s, c, s)
		}}
	runErr := r.run(ctx)
	if err := rec.Close(); err != nil {
		return errors.Join(runErr, err)
	}
	c, s := r.Messages()
	fmt.Fprintf(stderr, "mcprig record: wrote %s (%d messages: %d from the client, %d from the server)\n", f.out, c+s, c, s)
	// A server that ended the session (a crash) is recorded so; the proxy
	// then says so and exits as the server did.
	return runErr
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// newFlagSet returns a flag set that prints usage (then the flags) to w.
func newFlagSet(name, usage string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprint(w, usage)
		fs.PrintDefaults()
	}
	return fs
}

// usageExit is the exit status for a flag parse error: 0 for -h/--help.
func usageExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

func usageError(w io.Writer, cmd, msg string) int {
	fmt.Fprintf(w, "%s: %s\nRun '%s --help' for usage.\n", cmd, msg, cmd)
	return 2
}
