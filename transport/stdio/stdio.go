package stdio

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults for the zero values of [Options].
const (
	DefaultStderrBytes   = 64 << 10
	DefaultMaxFrameBytes = 4 << 20
	DefaultCloseGrace    = 2 * time.Second
	DefaultTermGrace     = 2 * time.Second
)

// Options configure a [Factory]. The zero value (or a nil *Options) selects
// every default.
type Options struct {
	// Dir is the child's working directory. If empty, it is the parent's.
	Dir string

	// InheritEnv names the variables copied from the parent's environment
	// (at Connect time) when they are set. If nil, [DefaultInheritEnv] is
	// used; an empty, non-nil slice copies nothing. On Windows names are
	// compared ignoring case, as Windows compares them.
	InheritEnv []string

	// Env holds explicit values; they win over inherited ones (on Windows
	// whatever the case of their names; two names that differ only in case
	// are refused there). Nothing but InheritEnv and Env reaches the child.
	Env map[string]string

	// StderrBytes is how many bytes of the child's standard error are kept
	// (the tail). Standard error is drained continuously, so a child that
	// writes a lot never blocks and never grows memory past this. If zero,
	// DefaultStderrBytes (64 KiB) is used.
	StderrBytes int

	// MaxFrameBytes bounds one inbound line (one JSON-RPC message, without
	// its newline). A longer line ends the connection with a [*FrameError]
	// whose Limit is this bound; it matches transport.ErrLimit. A single JSON value spread over several
	// lines is bounded by the go-sdk's own cap, set to twice this. If zero,
	// DefaultMaxFrameBytes (4 MiB) is used.
	MaxFrameBytes int

	// CloseGrace is how long Close waits, after closing the child's stdin,
	// for the child to exit before sending SIGTERM to its process group (on
	// Windows: before terminating its job object). It is also how long Read
	// waits for the exit status once the child has closed its output. If
	// zero, DefaultCloseGrace (2s) is used.
	CloseGrace time.Duration

	// TermGrace is how long Close waits after SIGTERM before sending SIGKILL
	// to the process group. If zero, DefaultTermGrace (2s) is used. Windows
	// has no SIGTERM: there it is not used.
	TermGrace time.Duration

	// Stderr, if not nil, also receives everything the child writes to its
	// standard error (for logs or recordings), from the goroutine that
	// drains it. It must not block; after its first error it is no longer
	// written to. The bounded tail is kept either way.
	Stderr io.Writer
}

// A Factory starts one supervised child process per connection. It
// implements [transport.Factory]; it is safe for concurrent use.
type Factory struct {
	path string
	args []string
	opts Options // resolved: no zero values left but Dir, Env, Stderr
}

// New returns a factory for the command path with args. path is resolved
// against the parent's PATH when it has no slash, at Connect time. New checks
// the options and starts nothing.
func New(path string, args []string, opts *Options) (*Factory, error) {
	if path == "" {
		return nil, errors.New("stdio.New: empty path")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := o.resolve(); err != nil {
		return nil, fmt.Errorf("stdio.New: %w", err)
	}
	return &Factory{path: path, args: slices.Clone(args), opts: o}, nil
}

// resolve checks o and fills in defaults, copying what the caller could
// still change.
func (o *Options) resolve() error {
	for _, check := range []struct {
		name string
		neg  bool
	}{
		{"StderrBytes", o.StderrBytes < 0},
		{"MaxFrameBytes", o.MaxFrameBytes < 0},
		{"CloseGrace", o.CloseGrace < 0},
		{"TermGrace", o.TermGrace < 0},
	} {
		if check.neg {
			return fmt.Errorf("negative %s", check.name)
		}
	}
	if o.InheritEnv == nil {
		o.InheritEnv = DefaultInheritEnv
	}
	o.InheritEnv = slices.Clone(o.InheritEnv)
	for _, name := range o.InheritEnv {
		if err := checkEnvName(name); err != nil {
			return err
		}
	}
	if err := checkEnv(o.Env, foldEnv(runtime.GOOS)); err != nil {
		return err
	}
	o.Env = maps.Clone(o.Env)
	o.StderrBytes = cmp.Or(o.StderrBytes, DefaultStderrBytes)
	o.MaxFrameBytes = cmp.Or(o.MaxFrameBytes, DefaultMaxFrameBytes)
	o.CloseGrace = cmp.Or(o.CloseGrace, DefaultCloseGrace)
	o.TermGrace = cmp.Or(o.TermGrace, DefaultTermGrace)
	return nil
}

// Secrets implements cassette.SecretHolder: the values of Options.Env,
// ordered by name, which a cassette recording the child's session redacts
// wherever they appear.
func (f *Factory) Secrets() []string {
	names := slices.Sorted(maps.Keys(f.opts.Env))
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, f.opts.Env[n])
	}
	return out
}

// Kind returns [transport.KindStdio].
func (f *Factory) Kind() transport.Kind { return transport.KindStdio }

// Transport returns a transport whose Connect starts a new child.
func (f *Factory) Transport() (mcp.Transport, error) { return &Transport{f: f}, nil }

// A Transport starts the child when it is connected. Each Connect starts a
// new child and returns a new [*Conn].
type Transport struct{ f *Factory }

// Connect starts the child in its own process group (on Windows, in a job
// object of its own), with the allowlisted environment, and returns the
// connection to it. ctx bounds only the start:
// the child lives until the connection is closed. A failure to start is a
// [*StartError].
func (t *Transport) Connect(ctx context.Context) (mcp.Connection, error) {
	f := t.f
	if err := ctx.Err(); err != nil {
		return nil, &StartError{Path: f.path, Err: err}
	}
	var p pipes
	if err := p.open(); err != nil {
		return nil, &StartError{Path: f.path, Err: err}
	}
	pr, err := startProc(f.path, f.args, f.opts.Dir, environ(f.opts.InheritEnv, f.opts.Env), p.child())
	p.closeChild()
	if err != nil {
		p.closeParent()
		return nil, &StartError{Path: f.path, Err: err}
	}
	return newConn(pr, &p, &f.opts), nil
}

// pipes are the child's three standard streams.
type pipes struct {
	inR, inW   *os.File // the child's stdin: it reads inR, we write inW
	outR, outW *os.File // the child's stdout
	errR, errW *os.File // the child's stderr
}

func (p *pipes) open() error {
	var err error
	if p.inR, p.inW, err = pipe(true); err != nil {
		return err
	}
	if p.outR, p.outW, err = pipe(false); err != nil {
		p.closeAll()
		return err
	}
	if p.errR, p.errW, err = pipe(false); err != nil {
		p.closeAll()
		return err
	}
	return nil
}

func (p *pipes) child() [3]*os.File { return [3]*os.File{p.inR, p.outW, p.errW} }

func (p *pipes) closeChild() { closeFiles(p.inR, p.outW, p.errW) }

func (p *pipes) closeParent() { closeFiles(p.inW, p.outR, p.errR) }

func (p *pipes) closeAll() { p.closeChild(); p.closeParent() }

func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}
