package cassette

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"

	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/cassette/internal/record"
	"github.com/looprig/mcp/cassette/internal/replay"
)

// What a cassette declares in its header when it is recorded: the paths
// whose values change every run (Header.Volatile), and the redaction rules
// it was recorded with (Header.Redaction).

// recordConfig returns what a recording with o is built with. Its header
// declares o.IgnorePaths, once each and in order, as volatile, and the
// digest of o's redaction rules.
func recordConfig(o *Options) *record.Config {
	c := &record.Config{Redact: redactConfig(o), Secret: secretHeaderSet(o), Redaction: o.RedactionDigest(), Hooks: o.hooks()}
	for _, p := range o.IgnorePaths {
		if !slices.Contains(c.Volatile, p) {
			c.Volatile = append(c.Volatile, p)
		}
	}
	return c
}

// RedactionDigest names the redaction rules of o: "sha256:" and the hex
// SHA-256 of Patterns, RedactPaths and RedactHeaders in canonical JSON.
// It is "" when o configures none of them. Secrets, Revealers and
// NotSecret are values, not rules: they are left out, so a digest never
// reveals a secret, and a job that lacks one still replays.
func (o *Options) RedactionDigest() string {
	if o == nil || len(o.Patterns) == 0 && len(o.RedactPaths) == 0 && len(o.RedactHeaders) == 0 {
		return ""
	}
	patterns := make([]string, 0, len(o.Patterns))
	for _, re := range o.Patterns {
		if re != nil {
			patterns = append(patterns, re.String())
		}
	}
	headers := make([]string, 0, len(o.RedactHeaders))
	for _, h := range o.RedactHeaders {
		headers = append(headers, http.CanonicalHeaderKey(h))
	}
	b := []byte(`{"headers":`)
	b = format.AppendStrings(b, format.SortedSet(headers))
	b = append(b, `,"paths":`...)
	b = format.AppendStrings(b, format.SortedSet(o.RedactPaths))
	b = append(b, `,"patterns":`...)
	b = format.AppendStrings(b, format.SortedSet(patterns))
	b = append(b, '}')
	sum := sha256.Sum256(b)
	return format.DigestPrefix + hex.EncodeToString(sum[:])
}

// A RedactionError reports a replay or Verify whose redaction rules differ
// from those the cassette was recorded with, or that has none: live
// messages would not be redacted as the recorded ones were, and with new
// rules the cassette may hold a value they redact. Use the recording's
// rules, or record the cassette again.
type RedactionError struct {
	Cassette   string // the cassette's file
	Recorded   string // the cassette's Header.Redaction
	Configured string // the Options' RedactionDigest
}

func (e *RedactionError) Error() string {
	now := e.Configured
	if now == "" {
		now = "none"
	}
	return fmt.Sprintf("cassette %s: recorded with redaction rules %s, replayed with %s: use the rules it was recorded with, or record it again", e.Cassette, e.Recorded, now)
}

// checkRedaction returns a *RedactionError when o's redaction rules are
// not those c names, none included. A cassette that names none (recorded
// without rules, or by an older release) is not checked.
func checkRedaction(c *format.Cassette, o *Options) error {
	now := o.RedactionDigest()
	if c.Header.Redaction == "" || now == c.Header.Redaction {
		return nil
	}
	return &RedactionError{Cassette: c.File, Recorded: c.Header.Redaction, Configured: now}
}

// replayConfig returns what a replay with o is played with.
func replayConfig(o *Options) *replay.Config {
	return &replay.Config{Wait: o.wait(), Faults: replayFaults(o.Faults), IgnorePaths: o.IgnorePaths, Hooks: o.hooks(),
		Redact: redactConfig(o), Secret: secretHeaderSet(o), Errors: madeErrors}
}
