package main

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/looprig/mcp/cassette"
)

// TestReplayHelpNamesEveryFault: replay --help gives the fault grammar and
// every kind, fail@ included, with the rule for polls.
func TestReplayHelpNamesEveryFault(t *testing.T) {
	code, stdout, stderr := runMcprig("replay", "--help")
	help := stdout + stderr
	if code != 0 {
		t.Fatalf("replay --help: exit %d, want 0", code)
	}
	for _, want := range []string{"KIND@TARGET[:ARG]", "METHOD[=NAME][#NTH]", "drop@T", "delay@T:DURATION", "end@T", "status@T:CODE", "fail@T", "fail@tasks/get", "the first poll of a state", "Exit status:"} {
		if !strings.Contains(help, want) {
			t.Errorf("replay --help lacks %q:\n%s", want, help)
		}
	}
}

// TestReplayBadFaultExits2: a fault refused, by its grammar or by the
// cassette it names, is a usage error: exit 2 and the reason, over stdio
// and over HTTP alike, before anything is served.
func TestReplayBadFaultExits2(t *testing.T) {
	docs := filepath.Join("testdata", "docs.jsonl")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--fault", "bogus@1", docs}, "unknown kind"},
		{[]string{"--fault", "end@999", docs}, "messages"},
		{[]string{"--fault", "fail@tasks/get#2", taskCassette}, "tasks/get#1 (message "},
		{[]string{"--listen", "127.0.0.1:0", "--fault", "bogus@1", taskCassette}, "unknown kind"},
		{[]string{"--listen", "127.0.0.1:0", "--fault", "end@999", taskCassette}, "messages"},
		{[]string{"--listen", "127.0.0.1:0", "--fault", "fail@tasks/get#2", taskCassette}, "tasks/get#1 (message "},
	} {
		args := append([]string{"replay"}, tc.args...)
		code, _, stderr := runMcprig(args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("mcprig %s: exit %d, stderr %q; want 2 and %q", strings.Join(args, " "), code, stderr, tc.want)
		}
	}
}

// TestReplayListenServesItsOrigin: where the recording renamed the recorded
// server's origin (http://ORIGIN), mcprig replay --listen serves its own
// listener's origin, the one the client reached it at.
func TestReplayListenServesItsOrigin(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "http.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte(`"Mcp-Session-Id":["session-1"]}}`), []byte(`"Link":["<http://ORIGIN/docs>; rel=help"],"Mcp-Session-Id":["session-1"]}}`), 1)
	path := filepath.Join(t.TempDir(), "origin.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	rep := serveMcprig(t, nil, "replay", "--listen", "127.0.0.1:0", "--allow-unused", path)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rep.url, bytes.NewReader(c.Interactions[0].Message))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	u, err := url.Parse(rep.url)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resp.Header.Get("Link"), "<http://"+u.Host+"/docs>; rel=help"; got != want {
		t.Errorf("Link = %q, want %q", got, want)
	}
}
