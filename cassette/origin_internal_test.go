package cassette

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/cassette/internal/redact"
	"github.com/looprig/mcp/cassette/internal/replay"
	"github.com/looprig/mcp/internal/testkit"
)

// TestRenameOrigin: the recorded origin is renamed where it is a whole
// host and port, with or without its scheme, and nowhere else: not a
// longer port, a longer host, another port of the same host.
func TestRenameOrigin(t *testing.T) {
	loop := auth.Origin{Scheme: "http", Host: "127.0.0.1", Port: 3422}
	web := auth.Origin{Scheme: "https", Host: "mcp.example.com", Port: 443}
	for _, tc := range []struct {
		o        auth.Origin
		in, want string
	}{
		{loop, `Bearer resource_metadata="http://127.0.0.1:3422/.well-known/oauth-protected-resource/mcp"`, `Bearer resource_metadata="http://ORIGIN/.well-known/oauth-protected-resource/mcp"`},
		{loop, `{"resource":"http://127.0.0.1:3422/mcp","at":"http://127.0.0.1:3422"}`, `{"resource":"http://ORIGIN/mcp","at":"http://ORIGIN"}`},
		{loop, "dial tcp 127.0.0.1:3422: connection refused", "dial tcp ORIGIN: connection refused"},
		{loop, "http://127.0.0.1:34220/mcp 127.0.0.1:34220 127.0.0.1:3422", "http://127.0.0.1:34220/mcp 127.0.0.1:34220 ORIGIN"},
		{loop, "http://127.0.0.1:8080/x 10.127.0.0.1:3422 1127.0.0.1:3422", "http://127.0.0.1:8080/x 10.127.0.0.1:3422 1127.0.0.1:3422"},
		{web, "https://mcp.example.com/mcp https://mcp.example.com:443/x", "https://ORIGIN/mcp https://ORIGIN/x"},
		{web, "https://mcp.example.com.evil/x https://mcp.example.com:8443/x", "https://mcp.example.com.evil/x https://mcp.example.com:8443/x"},
		{auth.Origin{}, "http://127.0.0.1:3422", "http://127.0.0.1:3422"},
	} {
		if got := redact.RenameOrigin(tc.o, tc.in); got != tc.want {
			t.Errorf("redact.RenameOrigin(%v, %q) mismatch (-want +got):\n%s", tc.o, tc.in, cmp.Diff(tc.want, got))
		}
	}
	for in, want := range map[string]string{
		`resource_metadata="http://ORIGIN/.well-known/x"`: `resource_metadata="http://cassette.localhost/.well-known/x"`,
		"https://ORIGIN/mcp and http://ORIGIN":            "http://cassette.localhost/mcp and http://cassette.localhost",
		"http://ORIGINAL/x dial tcp ORIGIN: refused":      "http://ORIGINAL/x dial tcp ORIGIN: refused",
	} {
		if got := redact.RestoreOrigin(in, replay.ReplayOrigin); got != want {
			t.Errorf("redact.RestoreOrigin(%q) mismatch (-want +got):\n%s", in, cmp.Diff(want, got))
		}
	}
}

// TestReplayRestoresOrigin: a recorded response's headers and events that
// name the renamed origin are served with the origin of the request replay
// answers.
func TestReplayRestoresOrigin(t *testing.T) {
	data, err := os.ReadFile("testdata/http.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte(`"Mcp-Session-Id":["session-1"]}}`), []byte(`"Link":["<http://ORIGIN/docs>; rel=help"],"Mcp-Session-Id":["session-1"]}}`), 1)
	data = bytes.Replace(data, []byte(`"serverInfo":{"name":"counter","version":"v1.0.0"}`), []byte(`"serverInfo":{"name":"counter","version":"v1.0.0","websiteUrl":"http://ORIGIN/about"}`), 1)
	c, err := Parse("origin.jsonl", data)
	if err != nil {
		t.Fatal(err)
	}
	fc := c.toFormat()
	infos, err := format.Analyse(fc)
	if err != nil {
		t.Fatal(err)
	}
	p, err := replay.NewPlayer(fc, infos, replayConfig(&Options{AllowUnused: true}))
	if err != nil {
		t.Fatal(err)
	}
	h := replay.NewPlayHTTP(p, &replay.Report{})
	req, err := http.NewRequestWithContext(testkit.Context(t), http.MethodPost, "http://127.0.0.1:9/mcp", bytes.NewReader(c.Interactions[0].Message))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := h.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if got, want := resp.Header.Get("Link"), "<http://127.0.0.1:9/docs>; rel=help"; got != want {
		t.Errorf("Link = %q, want %q", got, want)
	}
	var body strings.Builder
	buf := make([]byte, 4096)
	for !strings.Contains(body.String(), "websiteUrl") {
		n, err := resp.Body.Read(buf)
		body.Write(buf[:n])
		if err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
	}
	if !strings.Contains(body.String(), `"websiteUrl":"http://127.0.0.1:9/about"`) {
		t.Errorf("the answer to initialize names no restored origin:\n%s", body.String())
	}
}
