package cassette

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/cassette/internal/redact"
)

// tokenRE is what a secret this fuzz target tries looks like: the
// characters of tokens, keys and passwords that need no escaping in JSON.
var tokenRE = regexp.MustCompile(`^[A-Za-z0-9._~+/=-]{4,64}$`)

// FuzzRedaction checks the recorder's redaction against any message and
// any secret: the redacted message, encoded as a cassette line, never
// contains the secret, in its bytes or in any string, key or number it
// decodes to, and redacting it again changes nothing. (Per-rule proofs, the
// secret where the recorder sees it, are the cassette's own tests.)
//
// Secrets are token-like (tokenRE) and not part of a placeholder's
// spelling ("REDACTED-12"): a secret such as "ACTED" is in every redacted
// output by construction.
func FuzzRedaction(f *testing.F) {
	for _, seed := range []struct{ msg, secret string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":{"token":"s3cr3t-v4lue"}}}`, "s3cr3t-v4lue"},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Bearer abc.def.ghi and abc.def.ghi"}]}}`, "abc.def.ghi"},
		{`{"s3cr3tkey":{"nested":["xx s3cr3tkey yy"]}}`, "s3cr3tkey"},
		{`{"pin":12345678,"pins":[12345678.5,-12345678]}`, "12345678"},
		{`{"a":"s3cr3ts3cr3t","b":"s3cr3"}`, "s3cr3t"},
		{`{"esc":"s3\u0063r3t-value"}`, "s3cr3t-value"},
		{`["REDACTED-1", "tok1tok1"]`, "tok1tok1"},
		{`{"t":"1abcabc"}`, "1abc"}, // the first replacement leaves REDACTED-1abc
	} {
		f.Add([]byte(seed.msg), seed.secret)
	}
	f.Fuzz(func(t *testing.T, msg []byte, secret string) {
		if !tokenRE.MatchString(secret) || inPlaceholder(secret) {
			t.Skip()
		}
		tree, err := format.DecodeTree(msg)
		if err != nil {
			return
		}
		red := newRedactor(&Options{Secrets: []string{secret}})
		out := format.EncodeTree(red.Tree(tree))
		if bytes.Contains(out, []byte(secret)) {
			t.Fatalf("redacted line holds the secret %q:\n%s", secret, out)
		}
		back, err := format.DecodeTree(out)
		if err != nil {
			t.Fatalf("redacted line does not decode: %v\n%s", err, out)
		}
		if where := holds(back, secret); where != "" {
			t.Fatalf("redacted message holds the secret %q in %s:\n%s", secret, where, out)
		}
		if again := format.EncodeTree(newRedactor(&Options{Secrets: []string{secret}}).Tree(back)); !bytes.Equal(again, out) {
			t.Fatalf("redacting twice changed the line:\n%s\n%s", out, again)
		}
		// Text (stderr, URLs, headers) is redacted as a string.
		if text := red.Text(string(msg)); strings.Contains(text, secret) {
			t.Fatalf("redacted text holds the secret %q: %q", secret, text)
		}
	})
}

// inPlaceholder reports whether secret is part of a placeholder's spelling,
// for the first thousand placeholders.
func inPlaceholder(secret string) bool {
	for n := 1; n <= 1000; n++ {
		if strings.Contains(redact.PlaceholderPrefix+strconv.Itoa(n), secret) {
			return true
		}
	}
	return false
}

// holds names where in v the secret appears: a string, an object key or a
// number's text.
func holds(v any, secret string) string {
	switch v := v.(type) {
	case string:
		if strings.Contains(v, secret) {
			return "a string"
		}
	case json.Number:
		if strings.Contains(v.String(), secret) {
			return "a number"
		}
	case map[string]any:
		for k, c := range v {
			if strings.Contains(k, secret) {
				return "an object key"
			}
			if w := holds(c, secret); w != "" {
				return w
			}
		}
	case []any:
		for _, c := range v {
			if w := holds(c, secret); w != "" {
				return w
			}
		}
	}
	return ""
}
