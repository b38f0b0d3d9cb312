package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/looprig/mcp/transport/streamablehttp"
)

const checkUsage = `usage: mcprig check [flags] FILE...
       mcprig check [flags] [FILE...] -- CMD [ARGS...]
       mcprig check [flags] [FILE...] --url URL

Checks the catalogs recorded in cassettes, and the catalog of a live server
(CMD, started as a supervised stdio child, or the Streamable HTTP server at
URL), for what agents trip over and attackers use. Each finding has a
severity:

  hidden-instructions  dangerous: a description or the instructions tell
                       the model to ignore its instructions, hide
                       something from the user, read secrets or send data
                       out, or use <IMPORTANT>-like tags
  invisible-unicode    dangerous: tag characters (U+E0000 to U+E007F),
                       zero-width characters, bidi controls, control
                       characters
  schema               breaking: an input or output schema that is not
                       valid JSON Schema 2020-12, or an input schema not of
                       type "object"; info: another draft declared
  model-names          breaking: a model name (mcp__SERVER__TOOL) two
                       servers share; minor: one made unique in a server
  fingerprint          dangerous: the catalog is not the one --fingerprint
                       pins (client.Definition.Fingerprint's value)

Each catalog is named as a harness names it: by its server's name (or
--name for the live server). Model names are checked across servers of
different names; cassettes of one server share theirs. The report has a
case per catalog and check.

Exit status: 0 when no finding is at or above --fail-on (default info: any
finding), 1 when some is, 2 on a usage error or a cassette that does not
load, 3 when the live server could not be started or listed.

Flags:
`

type checkFlags struct {
	child        childFlags
	url          string
	bearerEnv    string
	name         string
	fingerprints multiFlag
	timeout      time.Duration
	report       reportFlags
}

func (f *checkFlags) define(fs *flag.FlagSet) {
	f.child.define(fs)
	fs.StringVar(&f.url, "url", "", "check the Streamable HTTP server at `URL`")
	fs.StringVar(&f.bearerEnv, "bearer-env", "", "with --url: send the value of the environment variable `NAME` as a bearer token")
	fs.StringVar(&f.name, "name", "", "name the live server `NAME` (default: the name it gives)")
	fs.Var(&f.fingerprints, "fingerprint", "pin the catalog to `[NAME=]sha256:HEX` (NAME= when several are checked); repeatable")
	fs.DurationVar(&f.timeout, "timeout", time.Minute, "give up on the live server after `D`")
	f.report.define(fs)
}

// A checked is one catalog checked: where it came from and its target.
type checked struct {
	source string
	target cassette.CheckTarget
}

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f checkFlags
	fs := newFlagSet("mcprig check", checkUsage, stderr)
	f.define(fs)
	files, cmd, err := parseFilesThenCommand(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		if errors.Is(err, errFlags) {
			return exitUsage
		}
		return usageError(stderr, "mcprig check", err.Error())
	}
	if err := f.validate(files, cmd); err != nil {
		return usageError(stderr, "mcprig check", err.Error())
	}
	var all []checked
	for _, file := range slices.Compact(slices.Sorted(slices.Values(files))) {
		c, err := cassette.Load(file)
		if err != nil {
			fmt.Fprintf(stderr, "mcprig check: %v\n", err)
			return exitUsage
		}
		cat, instructions, err := cassette.CatalogOf(c)
		if err != nil {
			fmt.Fprintf(stderr, "mcprig check: %v\n", err)
			return exitUsage
		}
		all = append(all, checked{file, cassette.CheckTarget{Name: serverName(c), Source: file, Instructions: instructions, Catalog: cat}})
	}
	rep := newReport("check", f.report.failOn)
	if len(cmd) > 0 || f.url != "" {
		live, err := f.live(ctx, cmd, stderr)
		if err != nil {
			rep.add(reportCase{Name: f.describeLive(cmd), New: f.describeLive(cmd), Error: err.Error()})
			fmt.Fprintf(stderr, "mcprig check: %v\n", err)
			return finishCheck(rep, nil, f.report.format, stdout, stderr)
		}
		all = append(all, live)
	}
	pins, err := f.pins(all)
	if err != nil {
		return usageError(stderr, "mcprig check", err.Error())
	}
	targets := make([]cassette.CheckTarget, len(all))
	for i, c := range all {
		targets[i] = c.target
	}
	findings := cassette.Check(targets, &cassette.CheckOptions{Fingerprints: pins})
	for _, c := range all {
		for _, check := range cassette.Checks {
			if _, pinned := pins[c.target.Name]; check == cassette.CheckFingerprint && !pinned {
				continue
			}
			rc := reportCase{Name: c.source + ": " + check, New: c.source}
			for _, fd := range findings {
				if fd.Source == c.source && fd.Check == check {
					rc.Items = append(rc.Items, reportItem{Severity: fd.Severity, Kind: fd.Check, Subject: fd.Subject, Reason: fd.Message})
				}
			}
			rep.add(rc)
		}
	}
	return finishCheck(rep, all, f.report.format, stdout, stderr)
}

// finishCheck writes the report and returns the exit status.
func finishCheck(rep *report, all []checked, format string, stdout, stderr io.Writer) int {
	code := rep.exit()
	if format != "text" {
		if err := rep.write(stdout, format); err != nil {
			fmt.Fprintf(stderr, "mcprig check: %v\n", err)
		}
		return code
	}
	if code == exitNotRun {
		return code
	}
	var names []string
	for _, c := range all {
		names = append(names, fmt.Sprintf("%s (server %q)", c.source, c.target.Name))
	}
	if len(rep.Cases) > 0 && rep.summary() == "nothing" {
		fmt.Fprintf(stdout, "no findings: %s\n", visible(strings.Join(names, ", ")))
		return code
	}
	for i, c := range all {
		fmt.Fprintf(stdout, "%s:\n", visible(names[i]))
		n := 0
		for _, rc := range rep.Cases {
			if rc.New != c.source {
				continue
			}
			for _, it := range rc.Items {
				fmt.Fprintf(stdout, "  [%s] %s: %s: %s\n", it.Severity, it.Kind, visible(it.Subject), visible(it.Reason))
				n++
			}
		}
		if n == 0 {
			io.WriteString(stdout, "  no findings\n")
		}
	}
	io.WriteString(stdout, rep.textVerdict())
	return code
}

// validate checks the flags against the catalogs asked for.
func (f *checkFlags) validate(files, cmd []string) error {
	switch {
	case f.url != "" && len(cmd) > 0:
		return errors.New("give either --url URL or -- CMD, not both")
	case len(files) == 0 && f.url == "" && len(cmd) == 0:
		return errors.New("nothing to check: give cassettes, -- CMD [ARGS...] or --url URL")
	case f.bearerEnv != "" && f.url == "":
		return errors.New("--bearer-env goes with --url")
	case f.name != "" && f.url == "" && len(cmd) == 0:
		return errors.New("--name names the live server: give -- CMD or --url")
	}
	return nil
}

// pins returns the pinned fingerprints by server name.
func (f *checkFlags) pins(all []checked) (map[string]string, error) {
	var names []string
	for _, c := range all {
		if !slices.Contains(names, c.target.Name) {
			names = append(names, c.target.Name)
		}
	}
	pins := map[string]string{}
	for _, p := range f.fingerprints {
		name, fp, named := strings.Cut(p, "=")
		switch {
		case !named && len(names) != 1:
			return nil, fmt.Errorf("--fingerprint %q: name the server (NAME=sha256:HEX) when checking several", p)
		case !named:
			name, fp = names[0], p
		case !slices.Contains(names, name):
			return nil, fmt.Errorf("--fingerprint %q: no server %q is checked", p, name)
		}
		if !strings.HasPrefix(fp, "sha256:") {
			return nil, fmt.Errorf("--fingerprint %q: want sha256:HEX", p)
		}
		pins[name] = fp
	}
	return pins, nil
}

// live connects to the live server and returns its catalog to check.
func (f *checkFlags) live(ctx context.Context, cmd []string, stderr io.Writer) (checked, error) {
	factory, err := f.factory(cmd, stderr)
	if err != nil {
		return checked{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	cl, err := client.Connect(ctx, client.Definition{Name: "mcprig-check", Transport: factory}, nil)
	if err != nil {
		return checked{}, fmt.Errorf("%s: %w", f.describeLive(cmd), err)
	}
	defer cl.Close()
	res := cl.Session().InitializeResult()
	name := f.name
	if name == "" && res.ServerInfo != nil {
		name = res.ServerInfo.Name
	}
	src := f.describeLive(cmd)
	return checked{src, cassette.CheckTarget{Name: name, Source: src, Instructions: res.Instructions, Catalog: cl.Catalog()}}, nil
}

// factory returns the live server's transport.
func (f *checkFlags) factory(cmd []string, stderr io.Writer) (transport.Factory, error) {
	if f.url != "" {
		o := &streamablehttp.Options{}
		if f.bearerEnv != "" {
			v, ok := os.LookupEnv(f.bearerEnv)
			if !ok {
				return nil, fmt.Errorf("--bearer-env %s: not set", f.bearerEnv)
			}
			o.Credentials = auth.Bearer(auth.NewToken(v))
		}
		return streamablehttp.New(f.url, o)
	}
	so, err := f.child.stdioOptions(stderr)
	if err != nil {
		return nil, err
	}
	return stdio.New(cmd[0], cmd[1:], so)
}

func (f *checkFlags) describeLive(cmd []string) string {
	if f.url != "" {
		return f.url
	}
	return cmd[0]
}

// serverName is the name a cassette's server gives itself, or the
// cassette's file name when its header names none.
func serverName(c *cassette.Cassette) string {
	if c.Header.Server != "" {
		return c.Header.Server
	}
	return filepath.Base(c.File)
}

// parseFilesThenCommand parses "[flags] FILE... [-- CMD ARGS...]": flags
// may come between the files; everything after the first "--" is the
// command.
func parseFilesThenCommand(fs *flag.FlagSet, args []string) (files, cmd []string, err error) {
	if i := slices.Index(args, "--"); i >= 0 {
		args, cmd = args[:i], args[i+1:]
		if len(cmd) == 0 {
			return nil, nil, errors.New("want a command after --")
		}
	}
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, nil, err
			}
			return nil, nil, errFlags
		}
		if fs.NArg() == 0 {
			return files, cmd, nil
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
