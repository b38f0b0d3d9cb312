package cassette_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/safetext"
	"github.com/looprig/mcp/internal/testkit"
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

// TestVerifyErrorShowsRecordedTextVisibly: Verify waiting for a recorded
// server request the live server never sends names it, its control
// characters as escapes.
func TestVerifyErrorShowsRecordedTextVisibly(t *testing.T) {
	leakcheck.Check(t)
	data := depthHeader +
		`{"kind":"message","from":"client","message":{"id":1,"jsonrpc":"2.0","method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"c","version":"1"},"protocolVersion":"2025-11-25"}}}` + "\n" +
		`{"kind":"message","from":"server","message":{"id":1,"jsonrpc":"2.0","result":{"capabilities":{},"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"}}}}` + "\n" +
		`{"kind":"message","from":"client","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}` + "\n" +
		`{"kind":"message","from":"server","message":{"id":1,"jsonrpc":"2.0","method":"x\u001b]52;c;ZXZpbA==\u0007\u202e"}}` + "\n" +
		`{"kind":"message","from":"client","message":{"id":1,"jsonrpc":"2.0","result":{}}}` + "\n" +
		`{"kind":"close","end":"client"}` + "\n" + `{"kind":"end"}` + "\n"
	c, err := cassette.Parse("verify.jsonl", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	fake, err := fakeserver.New(&fakeserver.Options{Custom: weather})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fake.Close() })
	ctx, cancel := context.WithTimeout(testkit.Context(t), 500*time.Millisecond)
	defer cancel()
	err = cassette.Verify(ctx, c, fake.Factory(), nil)
	if err == nil || !strings.Contains(err.Error(), `\x1b]52;c;ZXZpbA==\x07\u202e`) {
		t.Fatalf("Verify = %v, want it to name the request it waited for, its escapes visible", err)
	}
	if r := hidden(err.Error()); r >= 0 {
		t.Errorf("Verify's error shows %U raw: %q", r, err.Error())
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Verify = %v, want it to wrap the deadline", err)
	}
}
