package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/atomicfile"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/looprig/mcp/transport/streamablehttp"
)

const verifyUsage = `usage: mcprig verify [flags] FILE -- CMD [ARGS...]
       mcprig verify [flags] FILE --upstream URL

Re-drives a live server with the client messages recorded in the cassette
FILE, in order, each recorded answer awaited before the next message, and
reports where the live server drifted from the recording, as mcprig diff
does (session, catalog and result drift; diffs read --- recorded +++ live).
The live server is CMD, started as a supervised stdio child, or the
Streamable HTTP server at URL; a cassette of any transport verifies
against either, compared by messages. Recorded answers to the server's
requests (sampling, elicitation, roots) answer the live server's.

Every recorded request is sent again, tool calls included: verify a
server whose tools are safe to run again. A request the recorded server
refused with 401 or 403 and the recorded client sent again (a DPoP nonce
asked for, the tokenless first request) is sent once.

Each drift has a severity, as mcprig diff classes it; --format junit,
json or markdown writes a report for CI instead of text.

Exit status: 0 when no drift is at or above --fail-on (default info: any
drift), 1 when some is, 2 on a usage error or a cassette that does not
load, 3 when the live server could not be started or its session failed.

Flags:
`

type verifyFlags struct {
	child     childFlags
	upstream  string
	bearerEnv string
	ignore    multiFlag
	redact    redactFlags
	timeout   time.Duration
	out       string
	report    reportFlags
}

func (f *verifyFlags) define(fs *flag.FlagSet) {
	f.child.define(fs)
	fs.StringVar(&f.upstream, "upstream", "", "verify against the Streamable HTTP server at `URL` instead of a child")
	fs.StringVar(&f.bearerEnv, "bearer-env", "", "with --upstream: send the value of the environment variable `NAME` as a bearer token")
	fs.Var(&f.ignore, "ignore", "ignore the value at `PATH` when comparing (\"result.content.*.text\"); repeatable")
	f.redact.define(fs)
	fs.DurationVar(&f.timeout, "timeout", time.Minute, "give up on the live session after `D`")
	fs.StringVar(&f.out, "o", "", "write the live session, as verify drove it, to the cassette `FILE`")
	f.report.define(fs)
}

func runVerify(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f verifyFlags
	fs := newFlagSet("mcprig verify", verifyUsage, stderr)
	f.define(fs)
	file, cmd, err := parseFileThenCommand(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		if errors.Is(err, errFlags) {
			return 2
		}
		return usageError(stderr, "mcprig verify", err.Error())
	}
	switch {
	case f.upstream != "" && len(cmd) > 0:
		return usageError(stderr, "mcprig verify", "give either --upstream URL or -- CMD, not both")
	case f.upstream == "" && len(cmd) == 0:
		return usageError(stderr, "mcprig verify", "nothing to verify against: give -- CMD [ARGS...] or --upstream URL")
	case f.bearerEnv != "" && f.upstream == "":
		return usageError(stderr, "mcprig verify", "--bearer-env goes with --upstream")
	}
	if err := f.report.check(); err != nil {
		return usageError(stderr, "mcprig verify", err.Error())
	}
	opts := &cassette.Options{IgnorePaths: f.ignore}
	if err := f.redact.apply(opts); err != nil {
		return usageError(stderr, "mcprig verify", err.Error())
	}
	if opts.NotSecret, err = f.child.notSecretValues(); err != nil {
		return usageError(stderr, "mcprig verify", err.Error())
	}
	c, err := cassette.Load(file)
	if err != nil {
		fmt.Fprintf(stderr, "mcprig verify: %v\n", err)
		return 2
	}
	// The child's stderr and verify's own messages share stderr: one
	// lock orders their writes.
	stderr = &lockedWriter{w: stderr}
	childErr := newAsyncWriter(stderr, 256)
	defer childErr.Close()
	live, err := f.live(cmd, childErr)
	if err != nil {
		return usageError(stderr, "mcprig verify", err.Error())
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	err = cassette.Verify(ctx, c, live, opts)
	var derr *cassette.DriftError
	if errors.As(err, &derr) && f.out != "" {
		if werr := writeCassette(f.out, derr.Live); werr != nil {
			fmt.Fprintf(stderr, "mcprig verify: %v\n", werr)
		}
	}
	return reportVerify(&f, c, describeLive(&f, cmd), err, stdout, stderr)
}

// reportVerify reports what Verify returned and returns the exit status.
func reportVerify(f *verifyFlags, c *cassette.Cassette, live string, err error, stdout, stderr io.Writer) int {
	rep := newReport("verify", f.report.failOn)
	rc := reportCase{Name: c.File, Old: c.File, New: live}
	var derr *cassette.DriftError
	switch {
	case errors.As(err, &derr):
		rc.Items = driftItems(derr.Drifts)
	case err != nil:
		rc.Error = err.Error()
	}
	rep.add(rc)
	code := rep.exit()
	if f.report.format != "text" {
		if werr := rep.write(stdout, f.report.format); werr != nil {
			fmt.Fprintf(stderr, "mcprig verify: %v\n", werr)
		}
		if rc.Error != "" {
			fmt.Fprintf(stderr, "mcprig verify: %v\n", err)
		}
		return code
	}
	switch {
	case derr != nil:
		fmt.Fprintf(stdout, "--- %s (recorded)\n+++ %s (live)\n%s", c.File, live, cassette.FormatDrifts(derr.Drifts, "recorded", "live"))
		io.WriteString(stdout, rep.textVerdict())
	case err != nil:
		fmt.Fprintf(stderr, "mcprig verify: %v\n", err)
	default:
		fmt.Fprintf(stdout, "no drift: %s against %s (%d messages)\n", c.File, live, len(c.Messages()))
	}
	return code
}

// live returns the factory of the live server.
func (f *verifyFlags) live(cmd []string, stderr io.Writer) (transport.Factory, error) {
	if f.upstream != "" {
		o := &streamablehttp.Options{}
		if f.bearerEnv != "" {
			v, ok := os.LookupEnv(f.bearerEnv)
			if !ok {
				return nil, fmt.Errorf("--bearer-env %s: not set", f.bearerEnv)
			}
			o.Credentials = auth.Bearer(auth.NewToken(v))
		}
		return streamablehttp.New(f.upstream, o)
	}
	so, err := f.child.stdioOptions(stderr)
	if err != nil {
		return nil, err
	}
	return stdio.New(cmd[0], cmd[1:], so)
}

func describeLive(f *verifyFlags, cmd []string) string {
	if f.upstream != "" {
		return f.upstream
	}
	return cmd[0]
}

// writeCassette writes c to path atomically.
func writeCassette(path string, c *cassette.Cassette) error {
	if c == nil {
		return errors.New("no live session to write")
	}
	data, err := c.Marshal()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, 0o644)
}

// errFlags is returned by parseFileThenCommand when fs has reported a bad
// flag itself.
var errFlags = errors.New("bad flags")

// parseFileThenCommand parses "[flags] FILE [flags] [-- CMD ARGS...]": flags
// may come before and after FILE, and everything after "--" is the
// command. Anything else is an error naming it.
func parseFileThenCommand(fs *flag.FlagSet, args []string) (file string, cmd []string, err error) {
	parse := func(a []string) error {
		if err := fs.Parse(a); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return errFlags
		}
		return nil
	}
	if err := parse(args); err != nil {
		return "", nil, err
	}
	if fs.NArg() == 0 {
		return "", nil, errors.New("want a cassette FILE")
	}
	file = fs.Arg(0)
	if file == "--" {
		return "", nil, errors.New("want a cassette FILE before --")
	}
	rest := fs.Args()[1:]
	if err := parse(rest); err != nil {
		return "", nil, err
	}
	left := fs.Args()
	if k := len(rest) - len(left); len(left) > 0 && (k == 0 || rest[k-1] != "--") {
		return "", nil, fmt.Errorf("unexpected argument %q (the command goes after --)", left[0])
	}
	return file, left, nil
}
