package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// The real-peer tests drive @modelcontextprotocol/server-everything and the
// MCP Inspector's CLI, installed by scripts/real-peers, which exports where
// they are. They skip, saying why, when it did not run:
//
//	scripts/real-peers go test -run RealPeer ./cmd/mcprig
//
// With -update, TestRealPeerEverythingStdio rewrites the committed cassette
// that TestEverythingCassette replays with no Node.js at all.

// everythingCassette is the committed recording of server-everything over
// stdio, driven by driveEverything.
var everythingCassette = filepath.Join("..", "..", "testdata", "cassettes", "everything-stdio.jsonl")

// minNode is the oldest Node.js major the peers run on (the Inspector needs
// 22.19 or later).
const minNode = 22

// realPeer returns the path in the environment variable name, set by
// scripts/real-peers, and checks that its Node.js is recent enough; it skips
// the test when either is missing.
func realPeer(t *testing.T, name string) string {
	t.Helper()
	path := os.Getenv(name)
	if path == "" {
		t.Skipf("%s not set: run under scripts/real-peers (it installs server-everything and the Inspector with npm)", name)
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s: %v: run scripts/real-peers again", name, err)
	}
	node := os.Getenv("MCPRIG_NODE")
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Skipf("MCPRIG_NODE=%q --version: %v", node, err)
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
	major, _ := strconv.Atoi(strings.SplitN(v, ".", 2)[0])
	if major < minNode {
		t.Skipf("Node.js %s is older than %d", v, minNode)
	}
	return path
}

// noNodePATH returns a PATH on which no node can be found.
func noNodePATH(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if p, err := exec.LookPath(filepath.Join(dir, "node")); err == nil {
		t.Fatalf("node found at %s", p)
	}
	return dir
}

// everythingResults is what driveEverything sees.
type everythingResults struct {
	Protocol string
	Tools    []string
	Echo     []string
	Sum      []string
}

// driveEverything connects through f and makes the same calls every time.
func driveEverything(t *testing.T, f transport.Factory) everythingResults {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// server-everything announces tools/list_changed as the session starts,
	// and the client re-discovers the catalog while the calls below are
	// made: the order of the requests differs from run to run, which a
	// cassette replays (see the cassette package, "Concurrent requests").
	c, err := client.Connect(ctx, client.Definition{Name: "everything", Transport: f}, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer closeClient(t, c)
	r := everythingResults{Protocol: c.ProtocolVersion()}
	for _, tool := range c.Catalog().Tools {
		r.Tools = append(r.Tools, tool.Name)
	}
	res, err := c.CallTool(ctx, "echo", map[string]any{"message": "hello from mcprig"})
	if err != nil {
		t.Fatalf("echo: %v", err)
	}
	r.Echo = textOf(res)
	res, err = c.CallTool(ctx, "get-sum", map[string]any{"a": 2, "b": 3})
	if err != nil {
		t.Fatalf("get-sum: %v", err)
	}
	r.Sum = textOf(res)
	return r
}

// TestRealPeerEverythingStdio records server-everything over stdio through
// "mcprig record", driven by this project's client, then replays the
// cassette with no Node.js on PATH: the client sees the same results.
func TestRealPeerEverythingStdio(t *testing.T) {
	everything := realPeer(t, "MCPRIG_SERVER_EVERYTHING")
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "everything.jsonl")
	recorded := driveEverything(t, mcprig(t, nil, "record", "-o", path, "--", everything, "stdio"))
	if !client.ProfileDefault.Accepts(recorded.Protocol) {
		t.Errorf("server-everything negotiated %q, which the default profile does not accept", recorded.Protocol)
	}
	if len(recorded.Echo) != 1 || recorded.Echo[0] != "Echo: hello from mcprig" {
		t.Errorf("echo = %q", recorded.Echo)
	}
	replayed := driveEverything(t, mcprig(t, map[string]string{"PATH": noNodePATH(t)}, "replay", path))
	if diff := cmp.Diff(recorded, replayed); diff != "" {
		t.Errorf("replay mismatch (-recorded +replayed):\n%s", diff)
	}
	if *update {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(everythingCassette, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRealPeerInspectorStdio records server-everything through
// "mcprig record" driven by the MCP Inspector's CLI, then has the Inspector
// call the same tool on "mcprig replay" with no Node.js on the replaying
// side's PATH: it prints the same result.
func TestRealPeerInspectorStdio(t *testing.T) {
	everything := realPeer(t, "MCPRIG_SERVER_EVERYTHING")
	inspector := realPeer(t, "MCPRIG_INSPECTOR")
	dir := t.TempDir()
	path := filepath.Join(dir, "inspector.jsonl")
	call := []string{"--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hello from the inspector"}

	recorded := runInspector(t, inspector, dir, os.Getenv("PATH"), append([]string{self(t), "record", "-o", path, "--", everything, "stdio"}, call...)...)
	if !strings.Contains(recorded, "Echo: hello from the inspector") {
		t.Fatalf("inspector through mcprig record printed:\n%s", recorded)
	}
	replayed := runInspector(t, inspector, dir, noNodePATH(t), append([]string{self(t), "replay", path}, call...)...)
	if diff := cmp.Diff(jsonOf(t, recorded), jsonOf(t, replayed)); diff != "" {
		t.Errorf("inspector output mismatch (-recorded +replayed):\n%s", diff)
	}
}

// runInspector runs the Inspector's CLI on target and returns its stdout.
// The Inspector passes PATH on to the server it launches.
func runInspector(t *testing.T, inspector, home, path string, target ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// HOME is a temporary directory: the Inspector keeps a catalog there.
	args := append([]string{"--cli"}, target...)
	cmd := exec.CommandContext(ctx, inspector, args...)
	cmd.Env = []string{"HOME=" + home, "PATH=" + path, "GORACE=" + noExitSleep}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("inspector %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

func jsonOf(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("inspector output is not JSON: %v\n%s", err, s)
	}
	return v
}

// TestEverythingCassette replays the committed recording of server-everything
// with no Node.js, server or network: it runs in every plain go test.
func TestEverythingCassette(t *testing.T) {
	leakcheck.Check(t)
	got := driveEverything(t, mcprig(t, map[string]string{"PATH": noNodePATH(t)}, "replay", everythingCassette))
	if got.Protocol != "2025-11-25" || len(got.Tools) == 0 {
		t.Errorf("replayed session: protocol %q, %d tools", got.Protocol, len(got.Tools))
	}
	want := []string{"Echo: hello from mcprig"}
	if diff := cmp.Diff(want, got.Echo); diff != "" {
		t.Errorf("echo mismatch (-want +got):\n%s", diff)
	}
	if len(got.Sum) != 1 || !strings.Contains(got.Sum[0], "5") {
		t.Errorf("get-sum = %q, want the sum 5", got.Sum)
	}
}

// TestRealPeerEverythingHTTP records server-everything's Streamable HTTP
// transport through "mcprig record --upstream", driven by this project's
// client, then serves the cassette with "mcprig replay --listen" and no
// Node.js on its PATH: the client sees the same results.
func TestRealPeerEverythingHTTP(t *testing.T) {
	everything := realPeer(t, "MCPRIG_SERVER_EVERYTHING")
	leakcheck.Check(t)
	upstream := startEverythingHTTP(t, everything)

	path := filepath.Join(t.TempDir(), "everything-http.jsonl")
	rec := serveMcprig(t, nil, "record", "-o", path, "--upstream", upstream)
	recorded := driveEverything(t, httpFactory(t, rec.url))
	if code := rec.wait(t); code != 0 {
		t.Fatalf("mcprig record exited %d\nstderr:\n%s", code, rec.stderr)
	}
	rep := serveMcprig(t, []string{"PATH=" + noNodePATH(t)}, "replay", "--listen", "127.0.0.1:0", path)
	replayed := driveEverything(t, httpFactory(t, rep.url))
	if code := rep.wait(t); code != 0 {
		t.Fatalf("mcprig replay exited %d\nstderr:\n%s", code, rep.stderr)
	}
	if diff := cmp.Diff(recorded, replayed); diff != "" {
		t.Errorf("replay mismatch (-recorded +replayed):\n%s", diff)
	}
}

func httpFactory(t *testing.T, url string) transport.Factory {
	t.Helper()
	f, err := streamablehttp.New(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// freePort returns a TCP port that was free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// waitListening polls addr until it accepts a connection, for up to 30s.
func waitListening(t *testing.T, addr, logPath string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for delay := 10 * time.Millisecond; ; delay = min(2*delay, 200*time.Millisecond) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(logPath)
			t.Fatalf("server-everything did not listen on %s within 30s: %v\noutput:\n%s", addr, err, out)
		}
		time.Sleep(delay) // polling with a deadline: the server gives no other signal
	}
}

// TestRealPeerInspectorHTTP has the Inspector's CLI call a tool on
// server-everything's Streamable HTTP transport through "mcprig record
// --upstream", then on "mcprig replay --listen" with no Node.js on its PATH:
// it prints the same result.
func TestRealPeerInspectorHTTP(t *testing.T) {
	everything := realPeer(t, "MCPRIG_SERVER_EVERYTHING")
	inspector := realPeer(t, "MCPRIG_INSPECTOR")
	upstream := startEverythingHTTP(t, everything)
	dir := t.TempDir()
	path := filepath.Join(dir, "inspector-http.jsonl")
	call := []string{"--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hello over http"}

	rec := serveMcprig(t, nil, "record", "-o", path, "--upstream", upstream)
	recorded := runInspector(t, inspector, dir, os.Getenv("PATH"), append([]string{rec.url}, call...)...)
	rec.cmd.Process.Signal(os.Interrupt) // the Inspector may not delete its session
	if code := rec.wait(t); code != 0 {
		t.Fatalf("mcprig record exited %d\nstderr:\n%s", code, rec.stderr)
	}
	if !strings.Contains(recorded, "Echo: hello over http") {
		t.Fatalf("inspector through mcprig record printed:\n%s", recorded)
	}
	rep := serveMcprig(t, []string{"PATH=" + noNodePATH(t)}, "replay", "--listen", "127.0.0.1:0", path)
	replayed := runInspector(t, inspector, dir, os.Getenv("PATH"), append([]string{rep.url}, call...)...)
	if diff := cmp.Diff(jsonOf(t, recorded), jsonOf(t, replayed)); diff != "" {
		t.Errorf("inspector output mismatch (-recorded +replayed):\n%s", diff)
	}
}

// startEverythingHTTP starts server-everything's Streamable HTTP transport
// on a free loopback port, stopped at cleanup, and returns its endpoint once
// it listens.
func startEverythingHTTP(t *testing.T, everything string) string {
	t.Helper()
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	srv := exec.CommandContext(ctx, everything, "streamableHttp")
	srv.Env = append(srv.Environ(), "PORT="+port)
	logPath := filepath.Join(t.TempDir(), "server.log")
	log, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	srv.Stdout, srv.Stderr = log, log
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		srv.Wait()
	})
	waitListening(t, "127.0.0.1:"+port, logPath)
	return "http://127.0.0.1:" + port + "/mcp"
}

// linesChanged counts the lines of b that are not in a, in a line diff,
// and b's lines.
func linesChanged(a, b []byte) (changed, total int) {
	al := strings.SplitAfter(string(a), "\n")
	bl := strings.SplitAfter(string(b), "\n")
	// Longest common subsequence, by dynamic programming: cassettes are
	// small.
	dp := make([][]int, len(al)+1)
	for i := range dp {
		dp[i] = make([]int, len(bl)+1)
	}
	for i := len(al) - 1; i >= 0; i-- {
		for j := len(bl) - 1; j >= 0; j-- {
			if al[i] == bl[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return len(bl) - dp[0][0], len(bl)
}

// TestRealPeerEverythingRerecord records server-everything twice over
// stdio and twice over Streamable HTTP: each pair is byte for byte the
// same, so a cassette's git diff shows what the server changed and
// nothing else. Then every command reads those cassettes: inspect shows
// both, diff finds no drift between the transports, and verify re-drives
// the live server, over either transport, from either cassette.
func TestRealPeerEverythingRerecord(t *testing.T) {
	everything := realPeer(t, "MCPRIG_SERVER_EVERYTHING")
	leakcheck.Check(t)
	dir := t.TempDir()
	var stdioRuns, httpRuns [2]string
	for i := range stdioRuns {
		stdioRuns[i] = filepath.Join(dir, "stdio-"+strconv.Itoa(i)+".jsonl")
		driveEverything(t, mcprig(t, nil, "record", "-o", stdioRuns[i], "--", everything, "stdio"))
	}
	for i := range httpRuns {
		upstream := startEverythingHTTP(t, everything)
		httpRuns[i] = filepath.Join(dir, "http-"+strconv.Itoa(i)+".jsonl")
		rec := serveMcprig(t, nil, "record", "-o", httpRuns[i], "--upstream", upstream)
		driveEverything(t, httpFactory(t, rec.url))
		if code := rec.wait(t); code != 0 {
			t.Fatalf("mcprig record exited %d\nstderr:\n%s", code, rec.stderr)
		}
	}
	for name, runs := range map[string][2]string{"stdio": stdioRuns, "http": httpRuns} {
		a, b := readFile(t, runs[0]), readFile(t, runs[1])
		n, total := linesChanged(a, b)
		t.Logf("%s: %d of %d lines changed between two recordings", name, n, total)
		if diff := cmp.Diff(string(a), string(b)); diff != "" {
			t.Errorf("two recordings over %s differ (-first +second):\n%s", name, diff)
		}
	}

	for _, path := range []string{stdioRuns[0], httpRuns[0]} {
		code, stdout, stderr := runMcprig("inspect", path)
		if code != 0 || !strings.Contains(stdout, "tools/call echo {\"message\":\"hello from mcprig\"}") || !strings.Contains(stdout, "tools/call get-sum") ||
			!strings.Contains(stdout, "protocol:  2025-11-25") || !strings.Contains(stdout, "\ntools (") {
			t.Errorf("inspect %s: exit %d\n%s%s", path, code, stdout, stderr)
		}
	}
	if code, stdout, stderr := runMcprig("diff", stdioRuns[0], httpRuns[0]); code != 0 || !strings.Contains(stdout, "no drift") {
		t.Errorf("diff of the stdio and HTTP recordings: exit %d\n%s%s", code, stdout, stderr)
	}
	upstream := startEverythingHTTP(t, everything)
	for _, args := range [][]string{
		{"verify", "--timeout", "30s", stdioRuns[0], "--", everything, "stdio"},
		{"verify", "--timeout", "30s", httpRuns[0], "--upstream", upstream},
		{"verify", "--timeout", "30s", stdioRuns[0], "--upstream", upstream},
		{"verify", "--timeout", "30s", httpRuns[0], "--", everything, "stdio"},
	} {
		code, stdout, stderr := runMcprig(args...)
		if code != 0 || !strings.Contains(stdout, "no drift") {
			t.Errorf("mcprig %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
