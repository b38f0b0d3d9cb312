package cassette_test

import (
	"bytes"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
)

type token string

func (t token) Reveal() string { return string(t) }

func TestSecretsAreNotWritten(t *testing.T) {
	leakcheck.Check(t)
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
	path := filepath.Join(t.TempDir(), "secrets.jsonl")
	data, live := record(t, path, opts, calls...)
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
	// Values at paths are numbered before pattern matches in the same
	// message; both after the literal secrets.
	if live[0].Text != "echo: a "+literal+" and "+held {
		t.Fatalf("live outcome %q: the recorder changed what the client saw", live[0].Text)
	}

	// Replay with the same rules: the live requests carry the real secrets
	// and still match; the answers carry the placeholders.
	p, err := cassette.Replay(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := session(t, p, calls...)
	if err != nil {
		t.Fatalf("replaying Close: %v", err)
	}
	want := []outcome{{Text: "echo: a REDACTED-1 and REDACTED-2"}, {Text: "echo: key=REDACTED-4"}, {Text: "echo: REDACTED-1"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replayed outcomes mismatch (-want +got):\n%s", diff)
	}
}
