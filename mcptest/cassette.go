package mcptest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
)

// Cassette returns live with its transport replaced by a cassette at path,
// in the mode the environment asks for (cassette.ModeFromEnv):
//
//   - MCPRIG_RECORD=1 (or any cassette.Mode name): record the session against
//     the live server, rewriting the cassette when the client closes;
//   - else, when CI is set: replay, with no server; a missing cassette fails
//     the test with the command that records it;
//   - else: replay the cassette if it exists, record it if not.
//
// A Streamable HTTP server is recorded at the HTTP level when live's
// Transport is a *cassette.LiveHTTP (its endpoint and streamablehttp
// options).
//
// opts configures redaction and matching (its Mode is ignored); nil means
// defaults. The cassette holds one session: connect the returned Definition
// once. When replaying, every mismatch and (with opts.Strict) every recorded
// request never sent fails the test at cleanup.
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
	if mode != cassette.ModeReplay && mode != cassette.ModePassthrough {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("mcptest.Cassette: %v", err)
		}
	}
	f, err := cassette.Open(path, live.Transport, &o)
	if errors.Is(err, cassette.ErrNotRecorded) {
		t.Fatalf("mcptest.Cassette: %v\nTo record it, run against the live server:\n\t%s=1 go test -run '^%s$' .", err, cassette.EnvRecord, t.Name())
	}
	if err != nil {
		t.Fatalf("mcptest.Cassette: %v", err)
	}
	switch f := f.(type) {
	case *cassette.Player:
		t.Cleanup(func() {
			if err := f.Err(); err != nil {
				t.Errorf("mcptest: replaying %s: %v", path, err)
			}
		})
	case *cassette.Recorder:
		t.Logf("mcptest: recording %s (mode %s)", path, mode)
	case *cassette.HTTPRecorder:
		t.Logf("mcptest: recording %s (mode %s)", path, mode)
		t.Cleanup(func() { // writes the cassette if the session ended without its DELETE
			if err := f.Close(); err != nil {
				t.Errorf("mcptest: recording %s: %v", path, err)
			}
		})
	}
	def := live
	def.Transport = f
	return def
}
