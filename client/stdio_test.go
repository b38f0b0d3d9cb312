package client_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/safetext"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/stdio"
)

// fakeChild returns a stdio factory that runs this test binary as the fake
// server with flags.
func fakeChild(t *testing.T, opts *stdio.Options, flags ...string) *stdio.Factory {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if opts == nil {
		opts = &stdio.Options{}
	}
	// GORACE: a race-enabled child otherwise sleeps a second at exit.
	opts.Env = map[string]string{fakeserver.ChildEnv: "1", "GORACE": "atexit_sleep_ms=0"}
	if opts.CloseGrace == 0 {
		opts.CloseGrace, opts.TermGrace = 2*time.Second, time.Second
	}
	f, err := stdio.New(exe, append([]string{"--"}, flags...), opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func connectChild(t *testing.T, f *stdio.Factory) *client.Client {
	t.Helper()
	c, err := client.Connect(context.Background(), client.Definition{Name: "docs", Transport: f}, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestStdioCallRunsOnce(t *testing.T) {
	leakcheck.Check(t)
	counts := filepath.Join(t.TempDir(), "counts.json")
	c := connectChild(t, fakeChild(t, nil, "--count-file", counts))
	for i := 1; i <= 2; i++ {
		if _, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "x"}); err != nil {
			t.Fatal(err)
		}
		n, err := fakeserver.ReadCounts(counts)
		if err != nil {
			t.Fatal(err)
		}
		if n.Executions["lookup"] != i {
			t.Fatalf("after %d calls the child ran lookup %d times", i, n.Executions["lookup"])
		}
	}
}

func TestStdioFailuresAreClassified(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    *stdio.Options
		flags   []string
		class   client.FailureClass
		target  error
		stderr  string // in the diagnosis' stderr tail
		ranOnce bool   // the tool was counted once, and never again
	}{
		{
			name:  "malformed frame",
			flags: []string{"--fault", "malformed=lookup", "--fault", "flood-stderr:100"},
			class: client.ClassProtocol, stderr: "EEEE",
		},
		{
			name:  "oversize frame",
			opts:  &stdio.Options{MaxFrameBytes: 64 << 10},
			flags: []string{"--fault", "oversize=lookup:200000"},
			class: client.ClassPolicy, target: transport.ErrLimit,
		},
		{
			name:  "crash mid-call",
			flags: []string{"--fault", "crash=lookup:3"},
			class: client.ClassServer, target: client.ErrOutcomeUnknown, ranOnce: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			counts := filepath.Join(t.TempDir(), "counts.json")
			c := connectChild(t, fakeChild(t, tc.opts, append(tc.flags, "--count-file", counts)...))
			_, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "x"})
			assertClass(t, err, tc.class, tc.target)
			var e *client.Error
			if errors.As(err, &e) {
				if e.Diagnosis == nil {
					t.Fatalf("error %v has no diagnosis", err)
				}
				if tc.stderr != "" && !strings.Contains(e.Stderr(), tc.stderr) {
					t.Errorf("stderr tail %q lacks %q", e.Stderr(), tc.stderr)
				}
				if tc.ranOnce && (!e.Diagnosis.Exited || e.Diagnosis.ExitCode != 3) {
					t.Errorf("diagnosis = %v, want exit status 3", e.Diagnosis)
				}
			}
			if tc.ranOnce {
				n, _ := fakeserver.ReadCounts(counts)
				if n.Executions["lookup"] != 1 {
					t.Errorf("lookup ran %d times, want 1", n.Executions["lookup"])
				}
			}
			// The connection is gone: the next call fails too, and is not
			// retried behind the caller's back.
			_, err = c.CallTool(context.Background(), "lookup", map[string]any{"query": "y"})
			if err == nil {
				t.Error("a call after the failure succeeded")
			}
			// It was never sent, so its outcome is known: it did not run.
			if errors.Is(err, client.ErrOutcomeUnknown) {
				t.Errorf("the call on the closed connection says %v", err)
			}
		})
	}
}

func TestStdioStartFailures(t *testing.T) {
	t.Run("missing executable", func(t *testing.T) {
		leakcheck.Check(t)
		f, err := stdio.New(filepath.Join(t.TempDir(), "no-such-server"), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = client.Connect(context.Background(), client.Definition{Name: "docs", Transport: f}, nil)
		assertClass(t, err, client.ClassStart, fs.ErrNotExist)
		var e *client.Error
		if errors.As(err, &e) && e.ConnectionRetryable() {
			t.Error("a missing executable is ConnectionRetryable")
		}
	})
	t.Run("not on PATH", func(t *testing.T) {
		leakcheck.Check(t)
		f, err := stdio.New("no-such-mcp-server-on-path", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = client.Connect(context.Background(), client.Definition{Name: "docs", Transport: f}, nil)
		assertClass(t, err, client.ClassStart, exec.ErrNotFound)
	})
	t.Run("exit before initialize", func(t *testing.T) {
		leakcheck.Check(t)
		_, err := client.Connect(context.Background(), client.Definition{Name: "docs", Transport: fakeChild(t, nil, "--no-such-flag")}, nil)
		assertClass(t, err, client.ClassStart, nil)
		var e *client.Error
		if errors.As(err, &e) && !strings.Contains(e.Stderr(), "no-such-flag") {
			t.Errorf("stderr tail %q does not say what was wrong", e.Stderr())
		}
		// The stdio error quotes the tail's last line and the diagnosis
		// holds the whole tail: the message says it once.
		if n := strings.Count(err.Error(), "no-such-flag"); n != 1 {
			t.Errorf("the error says the stderr tail %d times, want once:\n%v", n, err)
		}
	})
}

func TestStdioCloseReapsChild(t *testing.T) {
	leakcheck.Check(t)
	c, err := client.Connect(context.Background(), client.Definition{Name: "docs",
		Transport: fakeChild(t, &stdio.Options{CloseGrace: 100 * time.Millisecond, TermGrace: 100 * time.Millisecond},
			"--fault", "ignore-eof", "--fault", "ignore-sigterm", "--fault", "grandchild")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	pid := c.Conn().(*stdio.Conn).Pid()
	if !stdio.GroupAlive(pid) {
		t.Errorf("process group %d not alive before Close", pid)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if stdio.GroupAlive(pid) {
		t.Errorf("process group %d alive after Close", pid)
	}
}

// TestStdioStderrShownVisibly: a child whose standard error carries
// terminal escapes (a window title, an OSC 52 clipboard write, a C1 CSI,
// a bidi override) fails to start; the error and Stderr show them as
// escapes, the line that says what went wrong once; the diagnosis keeps
// the bytes as read.
func TestStdioStderrShownVisibly(t *testing.T) {
	leakcheck.Check(t)
	flag := "--no-such-flag\x1b]0;pwned\x07\x1b]52;c;ZXZpbGNt\x07\u009b2J\u202e"
	_, err := client.Connect(context.Background(), client.Definition{Name: "docs", Transport: fakeChild(t, nil, flag)}, nil)
	var e *client.Error
	if !errors.As(err, &e) || e.Diagnosis == nil {
		t.Fatalf("Connect = %v, want a *client.Error with a diagnosis", err)
	}
	for what, s := range map[string]string{"Error": err.Error(), "Stderr": e.Stderr()} {
		for _, r := range s {
			if safetext.Hidden(r) && r != '\n' && r != '\t' {
				t.Errorf("%s shows %U raw: %q", what, r, s)
				break
			}
		}
		if !strings.Contains(s, `\x1b]52;c;ZXZpbGNt\x07`) {
			t.Errorf("%s = %q, want the clipboard write shown as escapes", what, s)
		}
	}
	if n := strings.Count(err.Error(), "ZXZpbGNt"); n != 1 {
		t.Errorf("the error says the stderr line %d times, want once:\n%v", n, err)
	}
	if !strings.Contains(string(e.Diagnosis.Stderr), "\x1b]52;c;") {
		t.Errorf("Diagnosis.Stderr = %q, want the bytes as read", e.Diagnosis.Stderr)
	}
}
