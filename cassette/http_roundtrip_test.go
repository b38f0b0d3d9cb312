package cassette_test

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/streamablehttp"
)

func TestHTTPRecordThenReplay(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "http.jsonl")
	data, live := recordHTTP(t, path, nil, nil, script...)
	want := []outcome{{Text: "first #1"}, {Text: `roots=1 sampled="hi" elicited=Ada`}, {Text: "second #3"}}
	if diff := cmp.Diff(want, live); diff != "" {
		t.Fatalf("live outcomes mismatch (-want +got):\n%s", diff)
	}
	_ = data

	p, err := cassette.Replay(path, &cassette.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := session(t, p, script...)
	if err != nil {
		t.Fatalf("replaying Close: %v", err)
	}
	if diff := cmp.Diff(live, replayed); diff != "" {
		t.Errorf("replayed outcomes mismatch (-live +replayed):\n%s", diff)
	}
	if err := p.Err(); err != nil {
		t.Errorf("Player.Err = %v", err)
	}
}

// TestHTTPRerecordGivesIdenticalBytes proves determinism: session ids come
// from the server's generator, event ids are renamed in order, and timing
// does not move a line.
func TestHTTPRerecordGivesIdenticalBytes(t *testing.T) {
	leakcheck.Check(t)
	dir := t.TempDir()
	opts := &cassette.Options{Secrets: []string{"s3cr3t"}}
	calls := append([]call{{Tool: "echo", Args: map[string]any{"text": "token s3cr3t <&>"}}}, script...)
	first, _ := recordHTTP(t, filepath.Join(dir, "a.jsonl"), opts, nil, calls...)
	for i := range 3 {
		again, _ := recordHTTP(t, filepath.Join(dir, "b.jsonl"), opts, nil, calls...)
		if diff := cmp.Diff(string(first), string(again)); diff != "" {
			t.Fatalf("re-recording %d mismatch (-first +again):\n%s", i+1, diff)
		}
	}
	if strings.Contains(string(first), "s3cr3t") {
		t.Errorf("cassette holds the secret:\n%s", first)
	}
}

// TestHTTPBearerTokenNeverWritten records with a bearer credential the
// recorder is told about, and with one it is not: neither is in the file,
// and the redacted cassette still replays.
func TestHTTPBearerTokenNeverWritten(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		name string
		told bool
		want string // the recorded Authorization header
	}{
		{"revealer", true, "Bearer REDACTED-1"},
		{"unknown", false, "Bearer REDACTED-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const secret = "s3cr3t-bearer-9f2c"
			tok := auth.NewToken(secret)
			opts := &cassette.Options{}
			if tc.told {
				opts.Revealers = []cassette.Revealer{tok}
			}
			path := filepath.Join(t.TempDir(), "bearer.jsonl")
			data, live := recordHTTP(t, path, opts, &streamablehttp.Options{Credentials: auth.Bearer(tok)}, script[0])
			if bytes.Contains(data, []byte(secret)) || bytes.Contains(data, []byte("9f2c")) {
				t.Fatalf("cassette holds the token:\n%s", data)
			}
			c, err := cassette.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, in := range c.Interactions {
				if in.Kind == cassette.KindRequest {
					got = append(got, in.Headers.Get("Authorization"))
				}
			}
			for i, g := range got {
				if g != tc.want {
					t.Errorf("request %d Authorization = %q, want %q", i+1, g, tc.want)
				}
			}
			p := c.Player(opts)
			replayed, err := session(t, p, script[0])
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(live, replayed); diff != "" {
				t.Errorf("replayed outcomes mismatch (-live +replayed):\n%s", diff)
			}
		})
	}
}

// TestHTTPRedactsHeadersAndBodies covers configured headers, cookies,
// patterns and paths in bodies.
func TestHTTPRedactsHeadersAndBodies(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "redact.jsonl")
	opts := &cassette.Options{
		Patterns:      []*regexp.Regexp{regexp.MustCompile(`key-[0-9]+`)},
		RedactPaths:   []string{"params.arguments.password"},
		RedactHeaders: []string{"X-Api-Key"},
	}
	rig := newHTTPRig(t, nil)
	rec := cassette.RecordHTTP(rig.url(), headerSetter{base(t)}, path, opts)
	f, err := streamablehttp.New(rig.url(), &streamablehttp.Options{Base: rec})
	if err != nil {
		t.Fatal(err)
	}
	calls := []call{{Tool: "echo", Args: map[string]any{"text": "key-12345", "password": "hunter2"}}}
	live, err := session(t, f, calls...)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for _, leak := range []string{"key-12345", "hunter2", "api-secret", "cookie-secret"} {
		if bytes.Contains(data, []byte(leak)) {
			t.Errorf("cassette holds %q:\n%s", leak, data)
		}
	}
	replayed, err := session(t, mustReplay(t, path, opts), calls...)
	if err != nil {
		t.Fatal(err)
	}
	// The echoed text was redacted in the recording: replay serves the placeholder.
	if diff := cmp.Diff([]outcome{{Text: "echo: REDACTED-2"}}, replayed); diff != "" {
		t.Errorf("replayed outcomes mismatch (-want +got):\n%s\nlive: %v", diff, live)
	}
}

// headerSetter adds an API key and a cookie to every request.
type headerSetter struct{ rt http.RoundTripper }

func (h headerSetter) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("X-Api-Key", "api-secret")
	req.Header.Set("Cookie", "id=cookie-secret")
	return h.rt.RoundTrip(req)
}

func mustReplay(t testing.TB, path string, opts *cassette.Options) *cassette.Player {
	t.Helper()
	p, err := cassette.Replay(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHTTPGoldenCassette proves determinism across runs and processes:
// recording the script over HTTP gives exactly the committed cassette.
func TestHTTPGoldenCassette(t *testing.T) {
	leakcheck.Check(t)
	golden := filepath.Join("testdata", "http.jsonl")
	tok := auth.NewToken("s3cr3t-golden")
	got, _ := recordHTTP(t, filepath.Join(t.TempDir(), "http.jsonl"), &cassette.Options{Revealers: []cassette.Revealer{tok}},
		&streamablehttp.Options{Credentials: auth.Bearer(tok)}, script...)
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestHTTPGoldenCassette -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("recorded cassette mismatch (-%s +recorded):\n%s", golden, diff)
	}
}
