package cassette_test

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPRandomSessionIDsRenamed: a server that makes its session ids up
// at random is re-recorded byte for byte alike: the ids are renamed
// session-1, … wherever they appear, and the renamed session replays.
func TestHTTPRandomSessionIDsRenamed(t *testing.T) {
	leakcheck.Check(t)
	var ids []string
	random := func() *counter {
		return newCounterWith(&mcp.ServerOptions{GetSessionID: func() string {
			b := make([]byte, 16)
			rand.Read(b)
			id := hex.EncodeToString(b)
			ids = append(ids, id)
			return id
		}})
	}
	var runs [2][]byte
	for i := range runs {
		s := newHTTPServer(t, random(), false, nil)
		runs[i], _ = record(t, tempPath(t, "random.jsonl"), httpLive(t, s.url(), nil), nil, rev2025, script...)
	}
	if diff := cmp.Diff(string(runs[0]), string(runs[1])); diff != "" {
		t.Errorf("two recordings differ (-first +second):\n%s", diff)
	}
	if !bytes.Contains(runs[0], []byte(`"Mcp-Session-Id":["session-1"]`)) {
		t.Errorf("recording does not name the session session-1:\n%s", runs[0])
	}
	for _, id := range ids {
		if strings.Contains(string(runs[0])+string(runs[1]), id) {
			t.Errorf("session id %s is in a recording", id)
		}
	}
	path := tempPath(t, "renamed.jsonl")
	data, _ := record(t, path, httpLive(t, newHTTPServer(t, random(), false, nil).url(), nil), nil, rev2025, script...)
	if !bytes.Equal(data, runs[0]) {
		t.Fatal("third recording differs")
	}
	got := replay(t, path, nil, nil, rev2025, script...)
	if got[0].Text != "first #1" || got[2].Text != "second #3" {
		t.Errorf("replayed %+v", got)
	}
}
