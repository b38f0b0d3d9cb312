package mcpscript

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/looprig/mcp/transport/stdio"
)

// stdioFlags are the supervision options of a stdio child, as flags shared by
// the connect command and the mcpcall program.
type stdioFlags struct {
	opts    stdio.Options
	inherit *string // nil when -inherit was not given
}

func (s *stdioFlags) register(fs *flag.FlagSet) {
	s.opts.Env = map[string]string{}
	fs.Func("env", "`NAME=VALUE` given to the child explicitly (repeatable)", func(v string) error {
		name, val, ok := strings.Cut(v, "=")
		if !ok || name == "" {
			return fmt.Errorf("want NAME=VALUE, got %q", v)
		}
		s.opts.Env[name] = val
		return nil
	})
	fs.Func("inherit", "comma-separated `NAMES` copied from the parent's environment (default: stdio.DefaultInheritEnv; \"-\": none)", func(v string) error {
		if strings.TrimSpace(v) == "" {
			return errors.New(`-inherit: empty; "-" inherits nothing`)
		}
		s.inherit = &v
		return nil
	})
	fs.IntVar(&s.opts.StderrBytes, "stderr-bytes", 0, "`N` bytes of stderr tail kept (default: stdio's)")
	fs.IntVar(&s.opts.MaxFrameBytes, "max-frame-bytes", 0, "bound on one inbound frame, `N` bytes (default: stdio's)")
	fs.DurationVar(&s.opts.CloseGrace, "close-grace", 0, "wait `D` after closing stdin before SIGTERM (default: stdio's)")
	fs.DurationVar(&s.opts.TermGrace, "term-grace", 0, "wait `D` after SIGTERM before SIGKILL (default: stdio's)")
}

// options returns the stdio options; dir is the child's working directory.
func (s *stdioFlags) options(dir string) *stdio.Options {
	o := s.opts
	o.Dir = dir
	if s.inherit != nil {
		o.InheritEnv = []string{}
		if *s.inherit == "-" {
			return &o
		}
		for _, n := range strings.Split(*s.inherit, ",") {
			if n = strings.TrimSpace(n); n != "" {
				o.InheritEnv = append(o.InheritEnv, n)
			}
		}
	}
	return &o
}

// lookPath resolves prog as exec.LookPath does, but against the given PATH
// and working directory rather than this process's.
func lookPath(prog, path, dir string) (string, error) {
	if strings.ContainsRune(prog, filepath.Separator) {
		if !filepath.IsAbs(prog) {
			prog = filepath.Join(dir, prog)
		}
		return prog, nil
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			continue
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		p := filepath.Join(d, prog)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w (the script's)", prog, exec.ErrNotFound)
}
