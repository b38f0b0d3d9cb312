package cassette_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
)

func TestHTTPRecordThenReplay(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "http.jsonl")
	data, live := recordHTTP(t, path, nil, nil, script...)
	want := []outcome{{Text: "first #1"}, {Text: `roots=1 sampled="hi" elicited=Ada`}, {Text: "second #3"}}
	if diff := cmp.Diff(want, live); diff != "" {
		t.Fatalf("live outcomes mismatch (-want +got):\n%s", diff)
	}
	t.Logf("%s", data)

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
	if err := p.Err(); err != nil {
		t.Errorf("Player.Err = %v", err)
	}
}
