package cassette_test

import (
	"bytes"
	"net/http"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/looprig/mcp/transport/streamablehttp"
)

type token string

func (t token) Reveal() string { return string(t) }

// TestSecretsAreNotWritten: every kind of secret is replaced before the
// cassette is written, on the message level and the HTTP level, and the
// redacted cassette still replays the live requests, which carry the real
// values.
func TestSecretsAreNotWritten(t *testing.T) {
	const (
		literal = "lit-8f3a2c"
		held    = "tok-91d0ee"
		matched = "sk-abc123"
		atPath  = "hunter2"
	)
	opts := &cassette.Options{
		Secrets:     []string{literal},
		Revealers:   []cassette.Revealer{token(held)},
		Patterns:    []*regexp.Regexp{regexp.MustCompile(`key=(sk-[a-z0-9]+)`)},
		RedactPaths: []string{"params.arguments.password"},
	}
	calls := []call{
		{Tool: "echo", Args: map[string]any{"text": "a " + literal + " and " + held}},
		{Tool: "echo", Args: map[string]any{"text": "key=" + matched, "password": atPath}},
		{Tool: "echo", Args: map[string]any{"text": literal}},
	}
	for _, level := range []struct {
		name string
		live func(t *testing.T) transport.Factory
	}{
		{"message", func(t *testing.T) transport.Factory { return inprocess.New(newCounter().srv) }},
		{"http", func(t *testing.T) transport.Factory {
			return httpLive(t, newHTTPServer(t, statefulCounter(), false, nil).url(), nil)
		}},
	} {
		t.Run(level.name, func(t *testing.T) {
			leakcheck.Check(t)
			path := tempPath(t, "secrets.jsonl")
			data, live := record(t, path, level.live(t), opts, rev2025, calls...)
			for _, s := range []string{literal, held, matched, atPath} {
				if bytes.Contains(data, []byte(s)) {
					t.Errorf("cassette contains the secret %q:\n%s", s, data)
				}
			}
			for _, s := range []string{"REDACTED-1", "REDACTED-2", `"password":"REDACTED-3"`, "key=REDACTED-4"} {
				if !bytes.Contains(data, []byte(s)) {
					t.Errorf("cassette lacks the placeholder %s:\n%s", s, data)
				}
			}
			if live[0].Text != "echo: a "+literal+" and "+held {
				t.Fatalf("live outcome %q: the recorder changed what the client saw", live[0].Text)
			}
			got := replay(t, path, nil, opts, rev2025, calls...)
			want := []outcome{{Text: "echo: a REDACTED-1 and REDACTED-2"}, {Text: "echo: key=REDACTED-4"}, {Text: "echo: REDACTED-1"}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("replayed outcomes mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBearerTokenNeverWritten records with a bearer credential the
// recorder is told about, and with one it is not: neither is in the file,
// and the redacted cassette still replays, through the same factory.
func TestBearerTokenNeverWritten(t *testing.T) {
	for _, told := range []bool{true, false} {
		leakcheck.Check(t)
		const secret = "s3cr3t-bearer-9f2c"
		tok := auth.NewToken(secret)
		opts := &cassette.Options{}
		if told {
			opts.Revealers = []cassette.Revealer{tok}
		}
		path := tempPath(t, "bearer.jsonl")
		s := newHTTPServer(t, statefulCounter(), false, nil)
		live := httpLive(t, s.url(), &streamablehttp.Options{Credentials: auth.Bearer(tok)})
		data, outs := record(t, path, live, opts, rev2025, script[0])
		if bytes.Contains(data, []byte(secret)) || bytes.Contains(data, []byte("9f2c")) {
			t.Fatalf("told=%v: cassette holds the token:\n%s", told, data)
		}
		if n := bytes.Count(data, []byte(`"Authorization":["Bearer REDACTED-1"]`)); n == 0 {
			t.Errorf("told=%v: no redacted Authorization header:\n%s", told, data)
		}
		s.Close()
		if got := replay(t, path, live, opts, rev2025, script[0]); !cmp.Equal(outs, got) {
			t.Errorf("told=%v: replayed %v, want %v", told, got, outs)
		}
	}
}

// TestRedactsHeadersAndBodies covers configured headers, cookies, patterns
// and paths in HTTP bodies.
func TestRedactsHeadersAndBodies(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "redact.jsonl")
	opts := &cassette.Options{
		Patterns:      []*regexp.Regexp{regexp.MustCompile(`key-[0-9]+`)},
		RedactPaths:   []string{"params.arguments.password"},
		RedactHeaders: []string{"X-Api-Key"},
	}
	s := newHTTPServer(t, statefulCounter(), false, nil)
	live := httpLive(t, s.url(), &streamablehttp.Options{Base: headerSetter{&http.Transport{}}})
	calls := []call{{Tool: "echo", Args: map[string]any{"text": "key-12345", "password": "hunter2"}}}
	data, _ := record(t, path, live, opts, rev2025, calls...)
	for _, leak := range []string{"key-12345", "hunter2", "api-secret", "cookie-secret"} {
		if bytes.Contains(data, []byte(leak)) {
			t.Errorf("cassette holds %q:\n%s", leak, data)
		}
	}
	// The echoed text was redacted in the recording: replay serves the
	// placeholder.
	if got := replay(t, path, nil, opts, rev2025, calls...); !cmp.Equal([]outcome{{Text: "echo: REDACTED-2"}}, got) {
		t.Errorf("replayed %v, want the placeholder", got)
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
