package cassette

import "github.com/looprig/mcp/cassette/internal/redact"

// A Revealer holds a secret behind an explicit accessor, as auth.Token and
// auth.Secret do. The recorder calls Reveal only to know what to redact.
type Revealer interface {
	Reveal() string
}

// MinAutoSecret is the length from which a value the recorder learns by
// itself (an environment value handed to a stdio child, a cookie's value)
// is redacted: shorter ones ("1", "docs", "en") are ordinary words, which
// redacting everywhere would garble. Name them in Options.Secrets to
// redact them anyway. Credentials sent in Authorization, and values of
// Options.RedactHeaders, are learned whatever their length.
const MinAutoSecret = redact.MinAutoSecret

// newRedactor returns the redactor of o's options.
func newRedactor(o *Options) *redact.Redactor { return redact.New(redactConfig(o)) }

// redactConfig returns what o's options redact.
func redactConfig(o *Options) redact.Config {
	c := redact.Config{Secrets: append([]string(nil), o.Secrets...), Auto: o.auto, NotSecret: o.NotSecret, Patterns: o.Patterns, Paths: o.RedactPaths}
	for _, rv := range o.Revealers {
		c.Secrets = append(c.Secrets, rv.Reveal())
	}
	return c
}

// secretHeaderSet returns the canonical names of the headers whose values
// are replaced by placeholders.
func secretHeaderSet(o *Options) map[string]bool { return redact.SecretHeaders(o.RedactHeaders) }
