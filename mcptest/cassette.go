package mcptest

import (
	"errors"
	"testing"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
)

// Cassette returns live with its transport replaced by a cassette at path,
// in the mode the environment asks for (cassette.ModeFromEnv):
//
//   - MCPRIG_RECORD=1 (or any cassette.Mode name): record the session against
//     the live server, rewriting the cassette at cleanup if the test passed
//     (a failed test leaves the cassette as it was);
//   - else, when CI is set: replay, with no server; a missing cassette fails
//     the test with the command that records it;
//   - else: replay the cassette if it exists, record it if not.
//
// Every transport is recorded, a plain streamablehttp Definition included
// (its requests are recorded below its credentials, redacted). live's
// Transport may be nil when the cassette is only replayed.
//
// opts configures redaction and matching (its Mode is ignored); nil means
// defaults. The cassette holds one session: connect the returned Definition
// once. At cleanup the cassette's factory is closed: a recording that could
// not be written, the first replay mismatch and (unless opts.AllowUnused) a
// recorded request never sent fail the test.
//
// The mode cannot change within a parallel test (t.Setenv panics there).
// A recording is written only as its test ends. See "Cassettes" in the
// package doc for recording then replaying in one run.
func Cassette(t testing.TB, path string, live client.Definition, opts *cassette.Options) client.Definition {
	t.Helper()
	mode, err := cassette.ModeFromEnv()
	if err != nil {
		t.Fatalf("mcptest.Cassette: %v", err)
	}
	var o cassette.Options
	if opts != nil {
		o = *opts
	}
	o.Mode = mode
	o.WriteAtClose = true // a failed test's recording is discarded at cleanup
	f, err := cassette.Open(path, live.Transport, &o)
	if errors.Is(err, cassette.ErrNotRecorded) {
		t.Fatalf("mcptest.Cassette: %v\nTo record it, run against the live server:\n\t%s=1 go test -run '^%s$' .", err, cassette.EnvRecord, t.Name())
	}
	if err != nil {
		t.Fatalf("mcptest.Cassette: %v", err)
	}
	if f.Mode() == cassette.ModeRecord {
		t.Logf("mcptest: recording %s (mode %s)", path, mode)
	}
	t.Cleanup(func() {
		if f.Mode() == cassette.ModeRecord && t.Failed() {
			// A session cut short by the failure would replay as a
			// truncated recording, for good: keep the cassette as it was.
			t.Logf("mcptest: the test failed: %s is not rewritten", path)
			f.Discard()
			return
		}
		if err := f.Close(); err != nil {
			t.Errorf("mcptest: cassette %s: %v", path, err)
		}
	})
	def := live
	def.Transport = f
	return def
}
