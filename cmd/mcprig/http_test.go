package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	return s.waitWithin(t, 10*time.Second)
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
	h, err := fake.Server().HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
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

// crashOnCall serves h, but drops the connection of a tools/call POST
// before any response: a server that dies under the call.
func crashOnCall(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		h.ServeHTTP(w, r)
	})
}

// callFailure calls lookup on the server at url at rev and returns how the
// call failed: its class, whether its outcome is unknown, and its text
// with the URL taken out.
func callFailure(t *testing.T, url string, rev client.Profile) string {
	t.Helper()
	f, err := streamablehttp.New(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.Definition{Name: "docs", Profile: rev, Transport: f}, nil)
	if err != nil {
		t.Fatalf("Connect %s: %v", url, err)
	}
	defer closeClient(t, c)
	_, err = c.CallTool(ctx, "lookup", map[string]any{"query": "close"})
	var ce *client.Error
	if !errors.As(err, &ce) {
		t.Fatalf("CallTool = %v, want a *client.Error", err)
	}
	return fmt.Sprintf("class %s, outcome unknown %v: %s", ce.Class, errors.Is(err, client.ErrOutcomeUnknown), strings.ReplaceAll(err.Error(), url, "URL"))
}

// Recording changes nothing the client sees: a server that dies before it
// sends response headers reaches the client as a connection closed with
// no response (the call's outcome unknown), live, through the recording
// proxy (not a 502 of the proxy's own) and through mcprig replay of what
// it recorded, on both revisions.
func TestRecordingProxyKeepsACrash(t *testing.T) {
	for _, rev := range []client.Profile{client.Profile20251125, client.Profile20260728} {
		t.Run(rev.String(), func(t *testing.T) {
			leakcheck.Check(t)
			fake, err := fakeserver.New(nil)
			if err != nil {
				t.Fatal(err)
			}
			h, err := fake.Server().HTTPHandler(nil)
			if err != nil {
				t.Fatal(err)
			}
			upstream := httptest.NewServer(crashOnCall(h))
			t.Cleanup(func() {
				upstream.Close()
				h.Close()
			})
			live := callFailure(t, upstream.URL+"/mcp", rev)
			if !strings.Contains(live, "class transport, outcome unknown true") {
				t.Fatalf("live: %s; want a transport failure with its outcome unknown", live)
			}
			path := filepath.Join(t.TempDir(), "crash.jsonl")
			rec := serveMcprig(t, nil, "record", "-o", path, "--upstream", upstream.URL+"/mcp")
			if got := callFailure(t, rec.url, rev); got != live {
				t.Errorf("through the recording proxy: %s\nwant what the client saw live: %s", got, live)
			}
			if code := rec.wait(t); code != 0 {
				t.Fatalf("mcprig record exited %d\nstderr:\n%s", code, rec.stderr)
			}
			rep := serveMcprig(t, nil, "replay", "--listen", "127.0.0.1:0", path)
			if got := callFailure(t, rep.url, rev); got != live {
				t.Errorf("replayed: %s\nwant what the client saw live: %s", got, live)
			}
			if code := rep.wait(t); code != 0 {
				t.Errorf("mcprig replay exited %d\nstderr:\n%s", code, rep.stderr)
			}
		})
	}
}

// A 2026-07-28 session has no DELETE: the recording proxy ends it when
// the client closes the subscriptions/listen stream it holds for list
// changes (as this module's client does at Close), with no signal, and
// two recordings of it have the same bytes; mcprig replay --listen ends
// its replay the same way. A server that announces no list changes gets
// no such listen: --idle ends that recording.
func TestRecordHTTPEndsWithAStatelessSession(t *testing.T) {
	leakcheck.Check(t)
	fake, err := fakeserver.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	upstream := startDocsHTTP(t, fake, true)
	dir := t.TempDir()
	var recorded []docsResults
	for _, name := range []string{"a.jsonl", "b.jsonl"} {
		rec := serveMcprig(t, nil, "record", "-o", filepath.Join(dir, name), "--upstream", upstream)
		recorded = append(recorded, driveHTTPAt(t, rec.url, client.Profile20260728))
		if code := rec.wait(t); code != 0 {
			t.Fatalf("mcprig record exited %d\nstderr:\n%s", code, rec.stderr)
		}
	}
	a, _ := os.ReadFile(filepath.Join(dir, "a.jsonl"))
	b, _ := os.ReadFile(filepath.Join(dir, "b.jsonl"))
	if diff := cmp.Diff(string(a), string(b)); diff != "" {
		t.Errorf("second recording differs (-first +second):\n%s", diff)
	}
	rep := serveMcprig(t, nil, "replay", "--listen", "127.0.0.1:0", filepath.Join(dir, "a.jsonl"))
	replayed := driveHTTPAt(t, rep.url, client.Profile20260728)
	if code := rep.wait(t); code != 0 {
		t.Fatalf("mcprig replay exited %d\nstderr:\n%s", code, rep.stderr)
	}
	if diff := cmp.Diff(recorded[0], replayed); diff != "" {
		t.Errorf("replayed session mismatch (-recorded +replayed):\n%s", diff)
	}

	quiet, err := server.New("quiet", "v1", nil) // no list changes: no listen
	if err != nil {
		t.Fatal(err)
	}
	if err := server.RegisterToolFor(quiet, &mcp.Tool{Name: "lookup"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Query string `json:"query"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "quiet: " + in.Query}}}, nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	qh, err := quiet.HTTPHandler(&server.HTTPOptions{Stateless: true})
	if err != nil {
		t.Fatal(err)
	}
	qs := httptest.NewServer(qh)
	t.Cleanup(func() {
		qs.Close()
		qh.Close()
	})
	rec := serveMcprig(t, nil, "record", "-o", filepath.Join(dir, "quiet.jsonl"), "--idle", "200ms", "--upstream", qs.URL)
	if got := callFailureOrText(t, rec.url); got != "quiet: close" {
		t.Errorf("through the proxy: %s", got)
	}
	if code := rec.wait(t); code != 0 {
		t.Fatalf("mcprig record --idle exited %d\nstderr:\n%s", code, rec.stderr)
	}
	if _, err := cassette.Load(filepath.Join(dir, "quiet.jsonl")); err != nil {
		t.Errorf("the idle recording: %v", err)
	}
}

// driveHTTPAt is driveHTTP at the profile p.
func driveHTTPAt(t *testing.T, url string, p client.Profile) docsResults {
	t.Helper()
	f, err := streamablehttp.New(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.Definition{Name: "docs", Profile: p, Transport: f}, nil)
	if err != nil {
		t.Fatalf("Connect %s: %v", url, err)
	}
	got := driveDocs(t, c)
	closeClient(t, c)
	return got
}

// callFailureOrText calls lookup at url (2026-07-28) and returns its text
// or its error.
func callFailureOrText(t *testing.T, url string) string {
	t.Helper()
	f, err := streamablehttp.New(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.Definition{Name: "quiet", Profile: client.Profile20260728, Transport: f}, nil)
	if err != nil {
		t.Fatalf("Connect %s: %v", url, err)
	}
	defer closeClient(t, c)
	res, err := c.CallTool(ctx, "lookup", map[string]any{"query": "close"})
	if err != nil {
		return err.Error()
	}
	return textOf(res)[0]
}
