//go:build unix

package fakeserver

import (
	"bufio"
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
)

// TestMainHTTP runs the fake server as a child with --http (and with
// --stateless): it prints its URL, serves a client over Streamable HTTP,
// counts the call in its count file, and exits ExitSIGTERM on SIGTERM.
func TestMainHTTP(t *testing.T) {
	leakcheck.Check(t)
	for _, mode := range []string{"stateful", "stateless"} {
		t.Run(mode, func(t *testing.T) { mainHTTP(t, mode == "stateless") })
	}
}

func mainHTTP(t *testing.T, stateless bool) {
	counts := filepath.Join(t.TempDir(), "counts.json")
	args := []string{"--http", "127.0.0.1:0", "--count-file", counts}
	if stateless {
		args = append(args, "--stateless")
	}
	ch := startChild(t, nil, args...)
	url, err := bufio.NewReader(ch.stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the URL: %v (stderr: %s)", err, ch.stderr)
	}
	url = strings.TrimSpace(url)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("URL = %q, want http://127.0.0.1:PORT/mcp", url)
	}
	c := mustConnectHTTP(t, &HTTPServer{URL: url}, nil)
	res, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "child"})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if diff := cmp.Diff("docs: child", textOf(res.Content)); diff != "" {
		t.Errorf("result mismatch (-want +got):\n%s", diff)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// Stateless serving offers no standalone stream: a GET gets 405.
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.StatusCode == http.StatusMethodNotAllowed; got != stateless {
		t.Errorf("GET without a session = %d; stateless %v", resp.StatusCode, stateless)
	}
	n, err := ReadCounts(counts)
	if err != nil || n.Executions["lookup"] != 1 {
		t.Errorf("count file = %v, %v; want lookup 1", n, err)
	}
	ch.cmd.Process.Signal(syscall.SIGTERM)
	if code := ch.wait(t); code != ExitSIGTERM {
		t.Errorf("exit code = %d, want %d; stderr:\n%s", code, ExitSIGTERM, ch.stderr)
	}
}
