package fakeserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// child is the test binary re-run as a stdio fake server, on plain pipes.
type child struct {
	cmd    *exec.Cmd
	stdin  *os.File // write end of the child's stdin
	stdout *os.File // read end of the child's stdout
	stderr *syncBuffer
	done   chan struct{} // closed when the child has been reaped
	err    error         // Wait's error, set before done is closed
}

type syncBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const noExitSleep = "GORACE=atexit_sleep_ms=0"

// startChild starts the fake server with args in its own process group
// (where there are process groups); at cleanup the group (or the child) is
// killed and the child reaped.
func startChild(t *testing.T, env []string, args ...string) *child {
	t.Helper()
	cmd := ChildCommand(args...)
	if env != nil {
		cmd.Env = append(env, ChildEnv+"=1")
	}
	// A race-enabled child otherwise sleeps a second at exit.
	cmd.Env = append(cmd.Env, noExitSleep)
	ownGroup(cmd)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: inW, stdout: outR, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		c.stdin.Close()
		killGroup(cmd)
		<-c.done
		c.stdout.Close()
	})
	return c
}

// connect runs the MCP handshake over the child's pipes; the client's
// frames are bounded by maxLine (0: the go-sdk's default).
func (c *child) connect(t *testing.T, opts *mcp.ClientOptions, maxLine int) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.IOTransport{Reader: c.stdout, Writer: c.stdin, MaxLineLength: maxLine}
	cs, err := testkit.TryConnect(t, tr, &testkit.ConnectOptions{Client: testkit.NewClient(opts), Version: stable.ProtocolVersion})
	if err != nil {
		t.Fatalf("Connect: %v (stderr: %s)", err, c.stderr)
	}
	return cs
}

// wait waits for the child to exit and returns its exit code.
func (c *child) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		t.Fatalf("child did not exit; stderr:\n%s", c.stderr)
	}
	var ee *exec.ExitError
	if errors.As(c.err, &ee) {
		return ee.ExitCode()
	}
	if c.err != nil {
		t.Fatalf("Wait: %v", c.err)
	}
	return 0
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}

func TestStdioServe(t *testing.T) {
	leakcheck.Check(t)
	dir := t.TempDir()
	counts, stop, pid := filepath.Join(dir, "counts"), filepath.Join(dir, "stop"), filepath.Join(dir, "pid")
	c := startChild(t, nil, "--count-file", counts, "--stop-file", stop, "--pid-file", pid)
	cs := c.connect(t, nil, 0)
	for _, q := range []string{"a", "b"} {
		if diff := cmp.Diff(outcome{Text: "docs: " + q}, call(t, cs, "lookup", `{"query":"`+q+`"}`)); diff != "" {
			t.Errorf("lookup mismatch (-want +got):\n%s", diff)
		}
	}
	got, err := ReadCounts(counts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int{"lookup": 2}, got.Executions); diff != "" {
		t.Errorf("counts mismatch (-want +got):\n%s", diff)
	}
	if got, want := strings.TrimSpace(readFile(t, pid)), strconv.Itoa(c.cmd.Process.Pid); got != want {
		t.Errorf("pid file = %q, want %q", got, want)
	}
	cs.Close() // closes the child's stdin
	if code := c.wait(t); code != 0 {
		t.Errorf("exit code after stdin EOF = %d, want 0; stderr:\n%s", code, c.stderr)
	}
	if got := readFile(t, stop); got != "stdin-eof\n" {
		t.Errorf("stop file = %q, want %q", got, "stdin-eof\n")
	}
	if s := c.stderr.String(); s != "" {
		t.Errorf("stderr = %q, want nothing", s)
	}
}

func TestStdioCrash(t *testing.T) {
	leakcheck.Check(t)
	counts := filepath.Join(t.TempDir(), "counts")
	c := startChild(t, nil, "--fault", "crash=lookup:7", "--count-file", counts)
	cs := c.connect(t, nil, 0)
	if o, err := callTool(context.Background(), cs, "lookup", `{"query":"q"}`); err == nil {
		t.Errorf("call to a crashing tool = %+v, want an error", o)
	}
	if code := c.wait(t); code != 7 {
		t.Errorf("exit code = %d, want 7", code)
	}
	// The execution was counted before the crash.
	got, err := ReadCounts(counts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int{"lookup": 1}, got.Executions); diff != "" {
		t.Errorf("counts mismatch (-want +got):\n%s", diff)
	}
}

func TestStdioHang(t *testing.T) {
	leakcheck.Check(t)
	c := startChild(t, nil, "--fault", "hang=lookup")
	cs := c.connect(t, nil, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := callTool(ctx, cs, "lookup", `{"query":"q"}`); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("hung call error = %v, want context.DeadlineExceeded", err)
	}
	// The process is alive and serving.
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Errorf("Ping after a hung call: %v", err)
	}
}

func TestStdioDelay(t *testing.T) {
	leakcheck.Check(t)
	c := startChild(t, nil, "--fault", "delay=lookup:30ms")
	cs := c.connect(t, nil, 0)
	start := time.Now()
	if diff := cmp.Diff(outcome{Text: "docs: q"}, call(t, cs, "lookup", `{"query":"q"}`)); diff != "" {
		t.Errorf("lookup mismatch (-want +got):\n%s", diff)
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("delayed call returned after %v", d)
	}
}

func TestStdioFloodStderr(t *testing.T) {
	leakcheck.Check(t)
	c := startChild(t, nil, "--fault", "flood-stderr:100000", "--fault", "flood-stderr=lookup:5000")
	cs := c.connect(t, nil, 0)
	call(t, cs, "lookup", `{"query":"q"}`)
	cs.Close()
	c.wait(t)
	got := c.stderr.String()
	if len(got) != 105000 || strings.Trim(got, "E\n") != "" {
		t.Errorf("stderr has %d bytes (%.80q…), want 105000 of the flood pattern", len(got), got)
	}
}

func TestStdioOversize(t *testing.T) {
	leakcheck.Check(t)
	c := startChild(t, nil, "--fault", "oversize=lookup:10000")
	cs := c.connect(t, nil, 4096)
	if o, err := callTool(context.Background(), cs, "lookup", `{"query":"q"}`); err == nil {
		t.Errorf("oversize result with a 4096-byte frame limit = %.40q…, want an error", o.Text)
	}
}

func TestStdioEnv(t *testing.T) {
	leakcheck.Check(t)
	c := startChild(t, []string{"ZED=last", "ALPHA=first"}, "--fault", "env")
	cs := c.connect(t, nil, 0)
	want := outcome{Text: "ALPHA=first\n" + noExitSleep + "\n" + ChildEnv + "=1\nZED=last"}
	if diff := cmp.Diff(want, call(t, cs, "env", `{}`)); diff != "" {
		t.Errorf("env mismatch (-want +got):\n%s", diff)
	}
}

// rawExchange writes lines to the child's stdin, reads n lines from its
// stdout, then closes stdin and waits for the child to exit. (Closing stdin
// early would end the session before the replies are written.)
func rawExchange(t *testing.T, c *child, n int, lines ...string) []string {
	t.Helper()
	for _, l := range lines {
		if _, err := c.stdin.WriteString(l + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	r := bufio.NewReader(c.stdout)
	var out []string
	for range n {
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading reply %d of %d: %v; got %q; stderr:\n%s", len(out)+1, n, err, out, c.stderr)
		}
		out = append(out, strings.TrimSuffix(l, "\n"))
	}
	c.stdin.Close()
	if code := c.wait(t); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
	return out
}

// script is a session as a client sends it, written in one go. The go-sdk
// may answer calls concurrently, so replies are compared as sorted lines.
var script = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"v0"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"lookup","arguments":{"query":"bytes"}}}`,
	`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"docs://readme"}}`,
	`{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"summarize","arguments":{"topic":"go"}}}`,
	`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"lookup","arguments":{"query":1}}}`,
}

func TestStdioMalformed(t *testing.T) {
	leakcheck.Check(t)
	c := startChild(t, nil, "--fault", "malformed=lookup")
	lines := rawExchange(t, c, 4, script[:4]...)
	// Replies to concurrent requests may come in any order (the reply to
	// tools/list may come between), but the malformed line comes before the
	// call's reply.
	i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, `"id":3`) })
	j := slices.Index(lines, strings.TrimSuffix(malformedFrame, "\n"))
	if len(lines) != 4 || j < 0 || j > i {
		t.Errorf("stdout lines = %q, want %q before the reply to the call (id 3)", lines, malformedFrame)
	}
}

// Same requests, same bytes out, across processes.
func TestStdioDeterministic(t *testing.T) {
	leakcheck.Check(t)
	var outs [][]string
	for range 2 {
		lines := rawExchange(t, startChild(t, nil), 6, script...)
		slices.Sort(lines)
		outs = append(outs, lines)
	}
	if diff := cmp.Diff(outs[0], outs[1]); diff != "" {
		t.Errorf("second run differs (-first +second):\n%s", diff)
	}
}

func TestMainFlags(t *testing.T) {
	tests := []struct {
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{[]string{"--help"}, 0, "usage: fakeserver", ""},
		{[]string{"--bogus"}, 2, "", "flag provided but not defined"},
		{[]string{"--fault", "explode"}, 2, "", "invalid fault"},
		{[]string{"--catalog", "huge"}, 2, "", `unknown catalog "huge"`},
		{[]string{"--fault", "hang=sample"}, 2, "", `catalog "docs" has no tool "sample"`},
		{[]string{"extra"}, 2, "", `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, strings.NewReader(""), &stdout, &stderr)
		// The error ends stderr, where a supervisor's tail of it keeps it.
		last := strings.TrimSpace(stderr.String())
		last = last[strings.LastIndexByte(last, '\n')+1:]
		if code != tt.wantCode || !strings.Contains(stdout.String(), tt.wantStdout) || !strings.Contains(last, tt.wantStderr) {
			t.Errorf("run(%q) = %d, stdout %.60q, stderr %.80q; want %d, %q, %q", tt.args, code, stdout.String(), stderr.String(), tt.wantCode, tt.wantStdout, tt.wantStderr)
		}
	}
}
