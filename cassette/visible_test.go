package cassette_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/safetext"
)

// escapes are what a recorded string could carry to a terminal: clear
// screen, an OSC 8 link, an OSC 52 clipboard write, a window title, a C1
// CSI, a bidi override, a zero-width space, a byte that is not UTF-8.
const escapes = "\x1b[2J\x1b]8;;https://evil.example\x1b\\docs\x1b]8;;\x1b\\\x1b]52;c;ZXZpbA==\x07\x1b]0;t\x07\u009b2J\u202e\u200b\xff\r"

// hidden returns the first character of s a terminal would not show as
// it is (newlines and tabs aside), or -1.
func hidden(s string) rune {
	if !utf8.ValidString(s) {
		return utf8.RuneError
	}
	for _, r := range s {
		if safetext.Hidden(r) && r != '\n' && r != '\t' {
			return r
		}
	}
	return -1
}

// TestErrorsShowRecordedTextVisibly: each error that quotes a cassette's
// text shows its control, format and invalid characters as escapes.
func TestErrorsShowRecordedTextVisibly(t *testing.T) {
	for _, err := range []error{
		&cassette.MismatchError{Cassette: "c" + escapes, Position: 3, Method: "tools/" + escapes, Reason: "differs: " + escapes, Diff: "-recorded\n+live " + escapes + "\n"},
		&cassette.UnusedError{Cassette: "c" + escapes, Unused: []cassette.Unused{{Line: 4, Method: escapes}}},
		&cassette.FormatError{File: "c" + escapes, Line: 2, Err: errors.New("bad " + escapes)},
		&cassette.FormatError{File: "c" + escapes, Err: errors.New("bad " + escapes)},
		&cassette.RecordedError{Cassette: "c", Line: 5, Text: "recorded " + escapes},
		&cassette.DriftError{Cassette: "c" + escapes, Drifts: []cassette.Drift{{Kind: "result", Subject: "tools/call " + escapes, Reason: "changed " + escapes, Diff: "-a\n+b" + escapes + "\n"}}},
	} {
		msg := err.Error()
		if r := hidden(msg); r >= 0 {
			t.Errorf("%T: %U shown raw in %q", err, r, msg)
		}
		if !strings.Contains(msg, `\x1b]52;c;ZXZpbA==\x07`) {
			t.Errorf("%T: %q does not show the clipboard write as escapes", err, msg)
		}
	}
}
