package main

import (
	"bufio"
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// A served is "mcprig ARGS…" running as a child, serving HTTP on url.
type served struct {
	url    string
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	done   chan error
}

// serveMcprig starts "mcprig ARGS…", which prints the URL it serves on as
// its first line, and kills it at cleanup if it is still running.
// env adds to (or replaces in) the test's environment.
func serveMcprig(t *testing.T, env []string, args ...string) *served {
	t.Helper()
	cmd := exec.Command(self(t), args...)
	cmd.Env = append(append(cmd.Environ(), "GORACE="+noExitSleep), env...)
	s := &served{cmd: cmd, stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	cmd.Stderr = s.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-s.done
	})
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("mcprig %s printed no URL: %v\nstderr:\n%s", strings.Join(args, " "), err, s.stderr)
	}
	s.url = strings.TrimSpace(line)
	return s
}

// wait waits for the child to exit on its own and returns its exit code.
func (s *served) wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(10 * time.Second):
		t.Fatalf("mcprig did not exit after the session ended\nstderr:\n%s", s.stderr)
		return -1
	}
}

// driveHTTP connects to url over Streamable HTTP and drives the docs session.
func driveHTTP(t *testing.T, url string) docsResults {
	t.Helper()
	f, err := streamablehttp.New(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// testdata/http.jsonl is a 2025-11-25 session.
	c, err := client.Connect(ctx, client.Definition{Name: "docs", Profile: client.Profile20251125, Transport: f}, nil)
	if err != nil {
		t.Fatalf("Connect %s: %v", url, err)
	}
	got := driveDocs(t, c)
	closeClient(t, c)
	return got
}

// TestRecordReplayHTTP records the fake server over Streamable HTTP through
// the recording HTTP proxy, then serves the cassette with "mcprig replay
// --listen": the client sees the same results, and each mcprig exits 0 once
// the client has deleted its session.
func TestRecordReplayHTTP(t *testing.T) {
	leakcheck.Check(t)
	fake, err := fakeserver.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	h := fake.Server().HTTPHandler(nil)
	upstream := httptest.NewServer(h)
	t.Cleanup(func() {
		upstream.Close()
		h.Close()
	})
	path := filepath.Join(t.TempDir(), "docs-http.jsonl")

	rec := serveMcprig(t, nil, "record", "-o", path, "--upstream", upstream.URL+"/mcp", "--listen", "127.0.0.1:0")
	if !strings.HasSuffix(rec.url, "/mcp") {
		t.Errorf("record serves on %q, want the upstream's path /mcp", rec.url)
	}
	recorded := driveHTTP(t, rec.url)
	if code := rec.wait(t); code != 0 {
		t.Fatalf("mcprig record exited %d\nstderr:\n%s", code, rec.stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "http.jsonl", data)
	code, stdout, stderr := runMcprig("inspect", path)
	if code != 0 || !strings.Contains(stdout, "transport: streamablehttp") {
		t.Errorf("inspect of the HTTP cassette: exit %d\n%s%s", code, stdout, stderr)
	}

	rep := serveMcprig(t, nil, "replay", "--listen", "127.0.0.1:0", path)
	replayed := driveHTTP(t, rep.url)
	if code := rep.wait(t); code != 0 {
		t.Fatalf("mcprig replay exited %d\nstderr:\n%s", code, rep.stderr)
	}
	if diff := cmp.Diff(recorded, replayed); diff != "" {
		t.Errorf("replayed session mismatch (-recorded +replayed):\n%s", diff)
	}
}

// TestListenLoopbackOnly: record and replay refuse to listen where other
// machines could connect, unless told to.
func TestListenLoopbackOnly(t *testing.T) {
	for _, args := range [][]string{
		{"record", "-o", "x.jsonl", "--upstream", "http://127.0.0.1:1/mcp", "--listen", ":0"},
		{"record", "-o", "x.jsonl", "--upstream", "http://127.0.0.1:1/mcp", "--listen", "0.0.0.0:0"},
		{"replay", "--listen", "0.0.0.0:0", filepath.Join("testdata", "http.jsonl")},
	} {
		code, _, stderr := runMcprig(args...)
		if code != 2 || !strings.Contains(stderr, "not a loopback address") {
			t.Errorf("mcprig %s: exit %d, stderr %q; want 2 and a refusal", strings.Join(args, " "), code, stderr)
		}
	}
}

// TestReplayListenStdioCassette: a stdio cassette cannot be served over HTTP,
// and the error says so.
func TestReplayListenStdioCassette(t *testing.T) {
	code, _, stderr := runMcprig("replay", "--listen", "127.0.0.1:0", filepath.Join("testdata", "docs.jsonl"))
	if code != 2 || !strings.Contains(stderr, "recorded over stdio") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
