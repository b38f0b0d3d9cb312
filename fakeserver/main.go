package fakeserver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// ChildEnv is the environment variable that turns a test binary into a fake
// server: when it is set, [MainIfChild] runs [Main] instead of the tests.
const ChildEnv = "MCPRIG_FAKESERVER_CHILD"

// sleepEnv turns the program into a grandchild that sleeps until killed.
const sleepEnv = "MCPRIG_FAKESERVER_SLEEP"

// ExitSIGTERM is Main's exit code after SIGTERM (128 + 15), unless the
// ignore-sigterm fault is set.
const ExitSIGTERM = 143

// MainIfChild runs the fake server and exits when ChildEnv is set; it
// returns at once otherwise. Call it first in TestMain, so that a test can
// run its own binary as a stdio fake server (see [ChildCommand]):
//
//	func TestMain(m *testing.M) {
//		fakeserver.MainIfChild()
//		os.Exit(m.Run())
//	}
//
// The fake server's arguments are those after the first "--" in os.Args
// (all of os.Args[1:] if there is none).
func MainIfChild() {
	if os.Getenv(ChildEnv) == "" {
		return
	}
	args := os.Args[1:]
	if i := slices.Index(args, "--"); i >= 0 {
		args = args[i+1:]
	}
	os.Exit(Main(args))
}

// ChildCommand returns a command that re-runs the current binary (a test
// binary whose TestMain calls [MainIfChild]) as a stdio fake server with
// the given flags: the binary, "--", args, and the environment plus
// ChildEnv=1.
func ChildCommand(args ...string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	cmd := exec.Command(exe, append([]string{"--"}, args...)...)
	cmd.Env = append(os.Environ(), ChildEnv+"=1")
	return cmd
}

const usage = `usage: fakeserver [flags]

Serves a deterministic fake MCP server over stdin and stdout (newline-delimited
JSON), logging to stderr. It exits 0 when stdin ends, 143 on SIGTERM, 2 on bad
flags.

Flags:
  --catalog NAME              docs (default: tool lookup, resource docs://readme,
                              prompt summarize), rich (sampling, elicitation,
                              roots, logging, progress, list-changed,
                              pagination), or a catalog registered by the
                              program (fakeserver.Register)
  --fault SPEC                a scripted fault, KIND[@TOOL][:ARG], repeatable
                              (FAULTS.md lists every kind; KIND=TOOL is read
                              as KIND@TOOL):
                                delay@TOOL:DURATION   hang@TOOL
                                error@TOOL[:MESSAGE]  panic@TOOL[:MESSAGE]
                                oversize@TOOL:BYTES   crash@TOOL[:CODE]
                                flood-notifications@TOOL:COUNT
                                malformed@TOOL        flood-stderr[@TOOL]:BYTES
                                ignore-eof            ignore-sigterm
                                grandchild[:setsid]   env
                                task@TOOL             task-required@TOOL
                                task-fail@TOOL[:MESSAGE]  task-input@TOOL
                                task-expire:DURATION  task-poll-error@TOOL:COUNT
                                skill-digest@SKILL    skill-size@SKILL
                                skill-frontmatter@SKILL  skill-changed@SKILL
  --count-file PATH           rewrite PATH atomically with the tool execution
                              counts as JSON after each execution
  --stop-file PATH            append "stdin-eof" when stdin ends and "sigterm"
                              when SIGTERM arrives, one per line, synced
  --pid-file PATH             write this process's pid to PATH at start
  --grandchild-pid-file PATH  write the grandchild's pid (--fault grandchild)
  --http ADDR                 serve over Streamable HTTP on ADDR (e.g.
                              127.0.0.1:0) instead of stdio, print the endpoint
                              URL on stdout, serve until SIGINT or SIGTERM
                              (headers and bodies read within 10 s each, idle
                              connections closed after 60 s, at most 256 open);
                              HTTP faults:
                                drop@TOOL:EVENTS      drop-no-id@TOOL:EVENTS
                                delay-headers[@TOOL]:DURATION
                                unauthorized[@TOOL]   forbidden[@TOOL]
                                gone@TOOL             no-get
                                server-error[@TOOL][:STATUS]
                                redirect[@TOOL][:STATUS]
                                foreign-endpoint (with --sse)
  --stateless                 with --http, serve Streamable HTTP without
                              sessions (2026-07-28's stateless mode)
  --revision REV              serve one protocol revision only: 2025-11-25
                              (no server/discover) or 2026-07-28 (no
                              initialize); default both
  --sse                       with --http, serve the legacy 2024-11-05
                              HTTP+SSE shape instead
  --help                      print this text
`

type config struct {
	catalog, countFile, stopFile, pidFile, grandchildPIDFile, revision string
	faults                                                             []Fault
	http                                                               string // listen address; "" for stdio
	sse, stateless                                                     bool
}

func parseFlags(args []string) (*config, error) {
	var c config
	fs := flag.NewFlagSet("fakeserver", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&c.catalog, "catalog", CatalogDocs, "")
	fs.StringVar(&c.countFile, "count-file", "", "")
	fs.StringVar(&c.stopFile, "stop-file", "", "")
	fs.StringVar(&c.pidFile, "pid-file", "", "")
	fs.StringVar(&c.grandchildPIDFile, "grandchild-pid-file", "", "")
	fs.StringVar(&c.http, "http", "", "")
	fs.BoolVar(&c.sse, "sse", false, "")
	fs.BoolVar(&c.stateless, "stateless", false, "")
	fs.StringVar(&c.revision, "revision", "", "")
	fs.Func("fault", "", func(s string) error {
		f, err := ParseFault(s)
		if err != nil {
			return err
		}
		c.faults = append(c.faults, f)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := checkRevision(c.revision); err != nil {
		return nil, err
	}
	if c.sse && c.http == "" {
		return nil, errors.New("--sse needs --http ADDR")
	}
	if c.stateless && (c.http == "" || c.sse) {
		return nil, errors.New("--stateless needs --http ADDR, without --sse")
	}
	if err := CheckPath(c.faults, Path{HTTP: c.http != "", SSE: c.sse, Child: true}); err != nil {
		return nil, err
	}
	return &c, nil
}

// Main runs a fake server over os.Stdin and os.Stdout with the given flags
// (see the usage text, printed by --help). It returns the process's exit
// code: 0 when stdin ends, [ExitSIGTERM] after SIGTERM, 1 when serving
// fails, 2 for bad flags. It is the body of `mcprig fakeserver` and of a
// test binary run through [MainIfChild]. The caller exits with the code,
// since Main may leave goroutines blocked on stdin behind.
func Main(args []string) int {
	if os.Getenv(sleepEnv) != "" {
		sleepForever()
	}
	return run(args, os.Stdin, os.Stdout, os.Stderr)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c, err := parseFlags(args)
	if errors.Is(err, flag.ErrHelp) {
		io.WriteString(stdout, usage)
		return 0
	}
	if err != nil {
		// The error last: a supervisor keeps the tail of a child's stderr.
		fmt.Fprintf(stderr, "fakeserver --help lists the flags and faults\nfakeserver: %v\n", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{
		Level: slog.LevelWarn,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // stderr is reproducible too
			}
			return a
		},
	}))
	proc := &process{stdout: &lockedWriter{w: stdout}, stderr: stderr, exitFn: os.Exit, stopFile: c.stopFile}
	s, err := newServer(&Options{Catalog: c.catalog, Faults: c.faults, CountFile: c.countFile, Logger: logger, Revision: c.revision}, proc)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 2
	}
	if c.pidFile != "" {
		if err := writeFileAtomic(c.pidFile, []byte(strconv.Itoa(os.Getpid())+"\n")); err != nil {
			fmt.Fprintf(stderr, "%v\n", err)
			return 1
		}
	}
	ignoreEOF, ignoreTERM := false, false
	for _, f := range c.faults {
		switch {
		case f.Kind == FaultFloodStderr && f.Tool == "":
			proc.flood(f.Bytes)
		case f.Kind == FaultGrandchild:
			if err := spawnGrandchild(c.grandchildPIDFile, f.Setsid); err != nil {
				fmt.Fprintf(stderr, "%v\n", err)
				return 1
			}
		case f.Kind == FaultIgnoreEOF:
			ignoreEOF = true
		case f.Kind == FaultIgnoreSIGTERM:
			ignoreTERM = true
		}
	}

	if c.http != "" {
		return serveHTTP(s, c, proc, stdout, stderr, ignoreTERM)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := &eofReader{r: stdin, onEOF: func() { proc.recordStop("stdin-eof") }, hold: ignoreEOF, stop: ctx.Done()}
	done := make(chan error, 1)
	go func() { done <- s.srv.ServeStdio(ctx, in, proc.stdout) }()
	for {
		select {
		case err := <-done:
			if err != nil {
				fmt.Fprintf(stderr, "fakeserver: %v\n", strings.TrimSpace(err.Error()))
				return 1
			}
			return 0
		case <-sigs:
			proc.recordStop("sigterm")
			if !ignoreTERM {
				return ExitSIGTERM
			}
		}
	}
}

// serveHTTP serves s over HTTP until SIGINT (exit 0) or SIGTERM (exit
// ExitSIGTERM, unless ignored), after printing the endpoint URL on stdout.
func serveHTTP(s *Server, c *config, proc *process, stdout, stderr io.Writer, ignoreTERM bool) int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	hs, err := s.StartHTTP(c.http, &HTTPOptions{SSE: c.sse, Stateless: c.stateless})
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	defer hs.Close()
	fmt.Fprintf(stdout, "%s\n", hs.URL)
	for sig := range sigs {
		if sig == syscall.SIGINT {
			return 0
		}
		proc.recordStop("sigterm")
		if !ignoreTERM {
			return ExitSIGTERM
		}
	}
	return 0
}
