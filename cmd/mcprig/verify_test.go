package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
)

// A cassette that holds a server's answer to a subscriptions/listen the
// client ended as it closed (recorded so before the recorder left that
// answer out; the client's cancellation is not in it) verifies at once:
// verify ends the listen, as the recorded client did, before it awaits
// the answer. Before, it waited for --timeout and said only "context
// deadline exceeded".
func TestVerifyEndsARecordedListen(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join("testdata", "closing-listen-2026.jsonl")
	code, stdout, stderr := runMcprig("verify", "--timeout", "20s", "--env", "GORACE="+noExitSleep, path, "--", self(t), "fakeserver")
	if code != 0 || !strings.Contains(stdout, "no drift") {
		t.Errorf("verify %s: exit %d\n%s%s", path, code, stdout, stderr)
	}
}

// A live server that never gives a recorded answer fails verify at
// --timeout with an error that names the answer it waited for and where
// the cassette holds it.
func TestVerifyNamesWhatItWaitedFor(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join("testdata", "docs.jsonl")
	// The timeout covers starting the child too: long enough for a loaded
	// machine to answer initialize.
	code, stdout, stderr := runMcprig("verify", "--timeout", "5s", "--env", "GORACE="+noExitSleep, path, "--", self(t), "fakeserver", "--fault", "hang=lookup")
	want := "waiting for the answer to tools/call (id 6): context deadline exceeded"
	if code != 3 || !strings.Contains(stderr, want) || !strings.Contains(stderr, path+":") {
		t.Errorf("verify against a server whose lookup hangs: exit %d, stderr %q; want 3 and %q with the cassette's line\n%s", code, stderr, want, stdout)
	}
}
