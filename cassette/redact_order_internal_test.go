package cassette

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette/internal/redact"
)

// redactOrderRuns is how many times the order tests redact one input: map
// order is random, and a wrong order shows in one run of two.
const redactOrderRuns = 64

// TestPlaceholdersByHeaderName: a DPoP request's two secret headers get
// the same placeholders every time, numbered by sorted header name
// (Authorization before Dpop), whatever the map's order.
func TestPlaceholdersByHeaderName(t *testing.T) {
	secret := secretHeaderSet(&Options{})
	want := http.Header{"Authorization": {"DPoP REDACTED-1"}, "Dpop": {"REDACTED-2"}, "Mcp-Method": {"tools/call"}}
	for run := range redactOrderRuns {
		h := http.Header{"Mcp-Method": {"tools/call"}, "Dpop": {"eyJproof.claims.signature"}, "Authorization": {"DPoP token-abcdefgh"}}
		red := newRedactor(&Options{})
		red.LearnHeaders(secret, h)
		if diff := cmp.Diff(want, redact.Headers(red, secret, h)); diff != "" {
			t.Fatalf("run %d: redacted headers mismatch (-want +got):\n%s", run, diff)
		}
	}
}

// TestPlaceholdersByKey: values found by a pattern are numbered by sorted
// object key, each key before its value, whatever the map's order.
func TestPlaceholdersByKey(t *testing.T) {
	o := &Options{Patterns: []*regexp.Regexp{regexp.MustCompile(`sk-[a-z]+`)}}
	want := `{"a":"REDACTED-1","b":{"REDACTED-2":"REDACTED-3"},"c":"REDACTED-4"}`
	for run := range redactOrderRuns {
		red := newRedactor(o)
		got, err := red.Message([]byte(`{"c":"sk-cat","b":{"sk-bkey":"sk-bval"},"a":"sk-ant"}`))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, string(got)); diff != "" {
			t.Fatalf("run %d: redacted message mismatch (-want +got):\n%s", run, diff)
		}
	}
}

// TestPlaceholdersByPathKey: values at a path with "*" are numbered by
// sorted object key.
func TestPlaceholdersByPathKey(t *testing.T) {
	o := &Options{RedactPaths: []string{"params.*"}}
	want := `{"params":{"a":"REDACTED-1","b":"REDACTED-2","c":"REDACTED-3"}}`
	for run := range redactOrderRuns {
		red := newRedactor(o)
		got, err := red.Message([]byte(`{"params":{"c":"x3","b":"x2","a":"x1"}}`))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, string(got)); diff != "" {
			t.Fatalf("run %d: redacted message mismatch (-want +got):\n%s", run, diff)
		}
	}
}
