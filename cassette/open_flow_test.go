package cassette_test

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
)

// analyses counts, by file, the cassettes format.AnalyseLines checks while
// t runs. t must not be parallel: the hook is the package's.
func analyses(t *testing.T) func(path string) int {
	var mu sync.Mutex
	n := map[string]int{}
	format.OnAnalyse = func(c *format.Cassette) {
		mu.Lock()
		n[c.File]++
		mu.Unlock()
	}
	t.Cleanup(func() { format.OnAnalyse = nil })
	return func(path string) int {
		mu.Lock()
		defer mu.Unlock()
		return n[path]
	}
}

// TestOpenAnalysesOnce: Open analyses a cassette it replays once, and a
// recording once, when it is written: at each step of the flow, the count
// of analyses of that cassette so far.
func TestOpenAnalysesOnce(t *testing.T) {
	leakcheck.Check(t)
	count := analyses(t)
	type step struct {
		Step string
		N    int
	}
	var got, want []step
	at := func(name, path string, n int) {
		got = append(got, step{name, count(path)})
		want = append(want, step{name, n})
	}

	msg := tempPath(t, "message.jsonl")
	f := open(t, msg, inprocess.New(newCounter().srv), &cassette.Options{Mode: cassette.ModeRecord})
	at("message: record: Open", msg, 0)
	if _, err := session(t, f, rev2025, script[0]); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	at("message: record: Close", msg, 1)
	f = open(t, msg, nil, &cassette.Options{Mode: cassette.ModeReplay})
	at("message: replay: Open", msg, 2)
	if _, err := session(t, f, rev2025, script[0]); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	at("message: replay: Close", msg, 2)
	open(t, msg, nil, &cassette.Options{Mode: cassette.ModeRecordOnce})
	at("message: record once, replaying: Open", msg, 3)

	web := tempPath(t, "http.jsonl")
	f = open(t, web, httpLive(t, newHTTPServer(t, statefulCounter(), false, nil).url(), nil), &cassette.Options{Mode: cassette.ModeRecord})
	at("http: record: Open", web, 0)
	if _, err := session(t, f, rev2025, script[0]); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	at("http: record: Close", web, 1)
	f = open(t, web, nil, &cassette.Options{Mode: cassette.ModeReplay})
	if f.Kind() != transport.KindStreamableHTTP {
		t.Fatalf("Kind = %v, want streamablehttp", f.Kind())
	}
	at("http: replay: Open", web, 2)
	if _, err := session(t, f, rev2025, script[0]); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	at("http: replay: Close", web, 2)

	c, err := cassette.Load(msg)
	if err != nil {
		t.Fatal(err)
	}
	at("message: Load", msg, 4)
	if _, err := cassette.Replay(c, nil, &cassette.Options{AllowUnused: true}); err != nil {
		t.Fatal(err)
	}
	at("message: Replay of a loaded cassette, which may have changed", msg, 5)

	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("analyses of each cassette so far (-want +got):\n%s", diff)
	}
}
