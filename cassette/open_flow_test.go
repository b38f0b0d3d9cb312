package cassette_test

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/cassette/vcr"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	govcr "gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
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

// TestRecordingThatWouldNotLoad: the recording's analysis, the last step
// before its bytes are written, refuses a session replay could not load:
// here a BeforeSaveHook renames the server in the initialize answer, which
// then disagrees with the header. Close says so, naming the line, and the
// cassette recorded before it is left as it was.
func TestRecordingThatWouldNotLoad(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "unloadable.jsonl")
	live := func() transport.Factory {
		return httpLive(t, newHTTPServer(t, statefulCounter(), false, nil).url(), nil)
	}
	old, _ := record(t, path, live(), nil, rev2025, script[0])
	rename := recorder.NewHook(func(i *govcr.Interaction) error {
		i.Response.Body = strings.Replace(i.Response.Body, `"serverInfo":{"name":"counter"`, `"serverInfo":{"name":"other"`, 1)
		return nil
	}, recorder.BeforeSaveHook)
	f := open(t, path, live(), vcr.Apply(&cassette.Options{Mode: cassette.ModeRecord}, &vcr.Options{Hooks: []*recorder.Hook{rename}}))
	if _, err := session(t, f, rev2025, script[0]); err != nil {
		t.Fatal(err)
	}
	err := f.Close()
	var ferr *cassette.FormatError
	if !errors.As(err, &ferr) || ferr.Line != 5 {
		t.Fatalf("Close = %v, want a *FormatError at line 5, the initialize answer", err)
	}
	if r := reasonOf(err); r != cassette.RecordInvalid {
		t.Errorf("Close's reason = %v, want %v", r, cassette.RecordInvalid)
	}
	mustContain(t, "Close's error", err.Error(), path, "recorded session would not load", `server "other") disagrees with the header (protocol "2025-11-25", server "counter")`, "nothing written")
	if now, _ := os.ReadFile(path); string(now) != string(old) {
		t.Error("the earlier cassette changed")
	}
}
