package cassette_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/inprocess"
)

var script = []call{
	{Tool: "count", Args: map[string]any{"label": "first"}},
	{Tool: "ask"},
	{Tool: "count", Args: map[string]any{"label": "second"}},
}

func TestRecordThenReplay(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "session.jsonl")
	srv := newCounter()
	live, err := session(t, cassette.Record(inprocess.New(srv.srv), path, nil), script...)
	if err != nil {
		t.Fatalf("recording Close: %v", err)
	}
	data, _ := os.ReadFile(path)
	t.Logf("cassette:\n%s", data)

	p, err := cassette.Replay(path, &cassette.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := session(t, p, script...)
	if err != nil {
		t.Fatalf("replaying Close: %v", err)
	}
	if diff := cmp.Diff(live, replayed); diff != "" {
		t.Errorf("replayed outcomes mismatch (-live +replayed):\n%s", diff)
	}
	if got := srv.calls.Load(); got != 3 {
		t.Errorf("server executed %d tool calls, want 3 (replay must not reach it)", got)
	}
}
