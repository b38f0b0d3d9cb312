package mcpscript

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/looprig/mcp/mcptest/internal/golden"
	"github.com/looprig/mcp/mcptest/internal/procgroup"
	"github.com/looprig/mcp/mcptest/internal/testmain"
	"github.com/looprig/mcp/mcptest/oauthtest"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/safetext"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/testscript"
)

// flags returns a flag set for a command, whose errors fail the script.
func flags(ts *testscript.TestScript, name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() { ts.Fatalf("usage: %s", usage) }
	return fs
}

func parse(ts *testscript.TestScript, fs *flag.FlagSet, args []string) {
	if err := fs.Parse(args); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			ts.Logf("%s: %v", fs.Name(), err)
		}
		fs.Usage()
	}
}

// expect fails the script when err's presence does not match neg.
func expect(ts *testscript.TestScript, neg bool, what string, err error) {
	switch {
	case err != nil && !neg:
		ts.Fatalf("%s: %v", what, err)
	case err == nil && neg:
		ts.Fatalf("%s: unexpected success", what)
	}
}

const connectUsage = `connect [-profile P] [-record FILE] [-timeout D] [-tasks] [-poll D] [-max-polls N] [-elicit ACTION] [-sample TEXT] [-root URI]... CLIENT (inprocess SERVER | stdio [STDIO FLAGS] PROG [ARGS...] | http [HTTP FLAGS] URL | sse [HTTP FLAGS] URL | replay [-fault SPEC]... [-allow-unused] FILE)`

func cmdConnect(ts *testscript.TestScript, neg bool, args []string) {
	fs := flags(ts, "connect", connectUsage)
	record := fs.String("record", "", "")
	timeout := fs.Duration("timeout", 0, "")
	profile := fs.String("profile", "default", "")
	tasks := fs.Bool("tasks", false, "")
	poll := fs.Duration("poll", 0, "")
	maxPolls := fs.Int("max-polls", 0, "")
	var hf handlerFlags
	hf.register(fs)
	parse(ts, fs, args)
	prof, err := client.ParseProfile(*profile)
	ts.Check(err)
	if fs.NArg() < 2 {
		fs.Usage()
	}
	st := stateOf(ts)
	name, kind, rest := fs.Arg(0), fs.Arg(1), fs.Args()[2:]
	st.mu.Lock()
	_, dup := st.clients[name]
	st.mu.Unlock()
	if dup {
		ts.Fatalf("connect: client %q exists", name)
	}
	f, copts, err := scriptFactory(ts, st, fs, kind, rest)
	if err != nil {
		// A transport that cannot be made is a failure to start, which a
		// script may expect: ! connect … then stderr 'class: start'.
		err = &client.Error{Class: client.ClassStart, Op: client.OpConnect, Server: name, Err: err}
		printError(ts.Stderr(), err)
		expect(ts, neg, "connect "+name, err)
		return
	}
	var after func() error // closes the cassette, reporting its error
	if cf, ok := f.(*cassette.Factory); ok {
		after = cf.Close
	}
	groups := &procgroup.Tracker{}
	if kind == "stdio" {
		f = procgroup.Tracked{Factory: f, Tr: groups}
	}
	if *record != "" {
		copts.Mode = cassette.ModeRecord
		cf, err := cassette.Open(ts.MkAbs(*record), f, &copts)
		ts.Check(err)
		f, after = cf, cf.Close
	}
	def := client.Definition{Name: name, Profile: prof, Transport: f, Tasks: *tasks,
		Limits: client.Limits{ConnectTimeout: *timeout, TaskPollMin: *poll, TaskPollMax: *poll, MaxTaskPolls: *maxPolls}}
	c, err := client.Connect(context.Background(), def, hf.handlers(ts))
	if err != nil {
		printError(ts.Stderr(), err)
		if after != nil {
			after()
		}
		if r := groups.Leaked(testmain.GroupTimeout); r != "" {
			ts.Fatalf("connect %s failed and left processes running:\n%s", name, r)
		}
	}
	expect(ts, neg, "connect "+name, err)
	if err == nil {
		fmt.Fprintf(ts.Stdout(), "protocol %s\n", c.ProtocolVersion())
		st.mu.Lock()
		st.clients[name] = &scriptClient{c: c, groups: groups, after: after}
		st.mu.Unlock()
	}
}

// handlerFlags are a script client's answers to a server's requests for
// input: deterministic, so that a script's output is the same every run.
type handlerFlags struct {
	elicit, sample string
	roots          []string
}

func (h *handlerFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&h.elicit, "elicit", "", "")
	fs.StringVar(&h.sample, "sample", "", "")
	fs.Func("root", "", func(v string) error { h.roots = append(h.roots, v); return nil })
}

// handlers returns the Handlers the flags ask for, or nil.
func (h *handlerFlags) handlers(ts *testscript.TestScript) *client.Handlers {
	var out client.Handlers
	set := false
	switch h.elicit {
	case "":
	case "accept", "decline", "cancel":
		action := h.elicit
		out.Elicitation = func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			res := &mcp.ElicitResult{Action: action}
			if action == "accept" {
				res.Content = map[string]any{"answer": "yes"}
			}
			return res, nil
		}
		set = true
	default:
		ts.Fatalf("connect: -elicit %q: want accept, decline or cancel", h.elicit)
	}
	if h.sample != "" {
		text := h.sample
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageParams, mcp.CreateMessageResult
		out.Sampling = func(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageResult
			return &mcp.CreateMessageResult{Model: "mcptest", Role: "assistant", Content: &mcp.TextContent{Text: text}}, nil
		}
		set = true
	}
	for _, r := range h.roots {
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.Root
		out.Roots = append(out.Roots, &mcp.Root{URI: r})
		set = true
	}
	if !set {
		return nil
	}
	return &out
}

// scriptFactory makes the transport connect names, and the cassette
// options that redact its credential if it is recorded. An error it
// returns is one a script may expect: a program not found, a cassette
// missing, options a transport refuses. Usage errors fail the script.
func scriptFactory(ts *testscript.TestScript, st *state, fs *flag.FlagSet, kind string, rest []string) (transport.Factory, cassette.Options, error) {
	var none cassette.Options
	switch kind {
	case "inprocess":
		if len(rest) != 1 {
			fs.Usage()
		}
		srv := st.server(rest[0])
		if srv == nil {
			ts.Fatalf("connect: no server %q: serve it first", rest[0])
		}
		return srv.Factory(), none, nil
	case "stdio":
		sfs := flags(ts, "connect stdio", connectUsage)
		var sf stdioFlags
		sf.register(sfs)
		parse(ts, sfs, rest)
		if sfs.NArg() < 1 {
			fs.Usage()
		}
		dir := ts.MkAbs(".")
		prog, err := lookPath(sfs.Arg(0), ts.Getenv("PATH"), dir)
		if err != nil {
			return nil, none, err
		}
		so := sf.options(dir)
		if _, ok := so.Env["GORACE"]; !ok {
			so.Env["GORACE"] = procgroup.NoExitSleep // a race-enabled child would sleep a second at exit
		}
		f, err := stdio.New(prog, sfs.Args()[1:], so)
		return f, none, err
	case "replay":
		rfs := flags(ts, "connect replay", connectUsage)
		allowUnused := rfs.Bool("allow-unused", false, "")
		var faults []cassette.Fault
		rfs.Func("fault", "", func(v string) error {
			f, err := cassette.ParseFault(v)
			faults = append(faults, f)
			return err
		})
		parse(ts, rfs, rest)
		if rfs.NArg() != 1 {
			fs.Usage()
		}
		f, err := cassette.Open(ts.MkAbs(rfs.Arg(0)), nil, &cassette.Options{Mode: cassette.ModeReplay, AllowUnused: *allowUnused, Faults: faults})
		return f, none, err
	case "http", "sse":
		return remoteFactory(ts, kind, rest)
	}
	fs.Usage()
	return nil, none, nil
}

// callTimeout bounds a script's call unless call -timeout says otherwise:
// a call that gets no answer fails the script there (class timeout), not
// at Limits.CallTimeout's five minutes.
const callTimeout = 30 * time.Second

func cmdCall(ts *testscript.TestScript, neg bool, args []string) {
	fs := flags(ts, "call", "call [-timeout D] CLIENT TOOL [JSON]")
	timeout := fs.Duration("timeout", callTimeout, "")
	parse(ts, fs, args)
	args = fs.Args()
	if len(args) < 2 || len(args) > 3 {
		fs.Usage()
	}
	sc := stateOf(ts).client(ts, args[0])
	var in map[string]any
	if len(args) == 3 {
		if err := json.Unmarshal([]byte(args[2]), &in); err != nil {
			ts.Fatalf("call: arguments: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	res, err := sc.c.CallTool(ctx, args[1], in)
	printResult(ts.Stdout(), res)
	if err != nil {
		printError(ts.Stderr(), err)
	}
	if merr := (*cassette.MismatchError)(nil); errors.As(err, &merr) {
		sc.mismatches = append(sc.mismatches, merr)
	}
	expect(ts, neg, "call "+args[1], err)
}

func cmdCatalog(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: catalog CLIENT")
	}
	cat := stateOf(ts).client(ts, args[0]).c.Catalog()
	b, err := json.MarshalIndent(struct {
		Fingerprint string `json:"fingerprint"`
		golden.Catalog
	}{cat.Fingerprint, golden.New(cat)}, "", "  ")
	ts.Check(err)
	ts.Stdout().Write(append(b, '\n'))
}

func cmdClose(ts *testscript.TestScript, neg bool, args []string) {
	fs := flags(ts, "close", "close [-within D] CLIENT")
	within := fs.Duration("within", 0, "")
	parse(ts, fs, args)
	if fs.NArg() != 1 {
		fs.Usage()
	}
	st := stateOf(ts)
	sc := st.client(ts, fs.Arg(0))
	st.mu.Lock()
	sc.closed = true
	st.mu.Unlock()
	start := time.Now()
	err := sc.close()
	took := time.Since(start)
	if err == nil && *within > 0 && took > *within {
		err = fmt.Errorf("took %v, longer than %v", took.Round(time.Millisecond), *within)
	}
	if err != nil {
		printError(ts.Stderr(), err)
	}
	expect(ts, neg, "close "+fs.Arg(0), err)
}

func cmdCmpJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: cmpjson FILE1 FILE2")
	}
	var a, b any
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &a); err != nil {
		ts.Fatalf("cmpjson: %s: %v", args[0], err)
	}
	if err := json.Unmarshal([]byte(ts.ReadFile(args[1])), &b); err != nil {
		ts.Fatalf("cmpjson: %s: %v", args[1], err)
	}
	diff := cmp.Diff(b, a)
	switch {
	case diff != "" && !neg:
		ts.Fatalf("%s differs from %s (-%s +%s):\n%s", args[0], args[1], args[1], args[0], diff)
	case diff == "" && neg:
		ts.Fatalf("%s and %s are the same JSON", args[0], args[1])
	}
}

func cmdDiagnose(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: diagnose CLIENT")
	}
	writeDiagnosis(ts.Stdout(), stateOf(ts).client(ts, args[0]).c.Diagnose())
}

// writeDiagnosis writes d as diagnose shows it, the child's stderr and
// error with their control characters as escapes.
func writeDiagnosis(w io.Writer, d *transport.Diagnosis) {
	if d == nil {
		fmt.Fprintln(w, "running")
		return
	}
	fmt.Fprintf(w, "exited: %v\nexit-code: %d\nsignal: %s\n", d.Exited, d.ExitCode, d.Signal)
	if d.Err != nil {
		fmt.Fprintf(w, "error: %s\n", safetext.Text(d.Err.Error()))
	}
	fmt.Fprintf(w, "stderr-bytes: %d\n", len(d.Stderr))
	if len(d.Stderr) > 0 {
		fmt.Fprintf(w, "stderr-tail:\n%s\n", safetext.Text(string(d.Stderr)))
	}
}

func cmdExecutions(ts *testscript.TestScript, neg bool, args []string) {
	countCmd(ts, neg, "executions", args, func(c fakeserver.Counts) map[string]int { return c.Executions })
}

func cmdRounds(ts *testscript.TestScript, neg bool, args []string) {
	countCmd(ts, neg, "rounds", args, func(c fakeserver.Counts) map[string]int { return c.Rounds })
}

// countCmd prints one of a server's counters (executions or rounds) for a
// tool, and checks it against N if given.
func countCmd(ts *testscript.TestScript, neg bool, what string, args []string, pick func(fakeserver.Counts) map[string]int) {
	if len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: %s (SERVER | COUNTFILE) TOOL [N]", what)
	}
	var counts fakeserver.Counts
	if srv := stateOf(ts).server(args[0]); srv != nil {
		counts = srv.Counts()
	} else {
		c, err := fakeserver.ReadCounts(ts.MkAbs(args[0]))
		ts.Check(err)
		counts = c
	}
	n := pick(counts)[args[1]]
	fmt.Fprintf(ts.Stdout(), "%d\n", n)
	if len(args) == 3 {
		want, err := strconv.Atoi(args[2])
		ts.Check(err)
		switch {
		case n != want && !neg:
			ts.Fatalf("%s: %s %d, want %d", args[1], what, n, want)
		case n == want && neg:
			ts.Fatalf("%s: %s %d", args[1], what, n)
		}
	}
}

func cmdKillChild(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 || neg {
		ts.Fatalf("usage: killchild CLIENT [SIGNAL]")
	}
	sc := stateOf(ts).client(ts, args[0])
	name := "KILL"
	if len(args) == 2 {
		name = args[1]
	}
	groups := sc.groups.Groups()
	if len(groups) == 0 {
		ts.Fatalf("killchild: client %s has no child process", args[0])
	}
	// The child leads its group: its pid is the group id.
	if err := procgroup.SignalChild(groups[0], name); err != nil {
		ts.Fatalf("killchild: %v", err)
	}
}

func cmdProcs(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: procs CLIENT")
	}
	sc := stateOf(ts).client(ts, args[0])
	groups := sc.groups.Groups()
	for _, g := range groups {
		for _, p := range procgroup.Procs(g) {
			fmt.Fprintf(ts.Stdout(), "%s\n", p)
		}
	}
}

const serveUsage = "serve [-http | -sse] [-stateless] [-auth AUTHSERVER [-auth-scope S]... [-tool-scope TOOL=S]...] SERVER [--catalog NAME] [--revision REV] [--fault SPEC]..."

func cmdServe(ts *testscript.TestScript, neg bool, args []string) {
	fs := flags(ts, "serve", serveUsage)
	var ho fakeserver.HTTPOptions
	overHTTP := fs.Bool("http", false, "")
	fs.BoolVar(&ho.SSE, "sse", false, "")
	fs.BoolVar(&ho.Stateless, "stateless", false, "")
	authName := fs.String("auth", "", "")
	var prot oauthtest.Protection
	fs.Func("auth-scope", "", func(s string) error { prot.Scopes = append(prot.Scopes, s); return nil })
	fs.Func("tool-scope", "", func(s string) error {
		tool, scope, ok := strings.Cut(s, "=")
		if !ok || tool == "" || scope == "" {
			return fmt.Errorf("want TOOL=SCOPE, got %q", s)
		}
		if prot.ToolScopes == nil {
			prot.ToolScopes = map[string][]string{}
		}
		prot.ToolScopes[tool] = append(prot.ToolScopes[tool], scope)
		return nil
	})
	parse(ts, fs, args)
	if neg || fs.NArg() < 1 || *overHTTP && ho.SSE || ho.Stateless && !*overHTTP || *authName != "" && !*overHTTP {
		fs.Usage()
	}
	name := fs.Arg(0)
	if *authName != "" {
		prot.Server = stateOf(ts).auth(ts, *authName)
		ho.Wrap = func(next http.Handler) http.Handler { return prot.Server.Protect(next, &prot) }
	}
	sfs := flags(ts, "serve", serveUsage)
	var opts fakeserver.Options
	sfs.StringVar(&opts.Catalog, "catalog", "", "")
	sfs.StringVar(&opts.Revision, "revision", "", "")
	sfs.Func("fault", "", func(s string) error {
		f, err := fakeserver.ParseFault(s)
		opts.Faults = append(opts.Faults, f)
		return err
	})
	parse(ts, sfs, fs.Args()[1:])
	if sfs.NArg() != 0 {
		sfs.Usage()
	}
	srv, err := fakeserver.New(&opts)
	if err != nil {
		ts.Fatalf("serve %s: %v", name, err)
	}
	if err := fakeserver.CheckPath(opts.Faults, fakeserver.Path{HTTP: *overHTTP || ho.SSE, SSE: ho.SSE}); err != nil {
		ts.Fatalf("serve %s: %v", name, err)
	}
	st := stateOf(ts)
	st.mu.Lock()
	_, dup := st.servers[name]
	if !dup {
		st.servers[name] = srv
	}
	st.mu.Unlock()
	if dup {
		ts.Fatalf("serve: server %q exists", name)
	}
	if *overHTTP || ho.SSE {
		serveScriptHTTP(ts, st, name, srv, &ho)
	}
}
