package mcptest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lookupOnce runs a test of its own that connects to the Definition def
// returns (a cassette's, made with that test's t), calls lookup once and
// returns its text; the test has ended, and a recording been written, when
// lookupOnce returns.
func lookupOnce(t *testing.T, def func(t *testing.T) client.Definition) string {
	t.Helper()
	var text string
	t.Run("session", func(t *testing.T) {
		c := mcptest.Connect(t, def(t), nil)
		res, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "tape"})
		if err != nil {
			t.Fatal(err)
		}
		text = res.Content[0].(*mcp.TextContent).Text
	})
	return text
}

func TestCassetteRecordsThenReplaysWithNoServer(t *testing.T) {
	mcptest.LeakCheck(t)
	path := filepath.Join(t.TempDir(), "testdata", "docs.cassette")

	t.Setenv(cassette.EnvRecord, "1")
	live := mcptest.Stdio(t, nil)
	recorded := lookupOnce(t, func(t *testing.T) client.Definition { return mcptest.Cassette(t, path, live.Definition(), nil) })
	if got := live.Counts().Executions["lookup"]; got != 1 {
		t.Fatalf("recording ran lookup %d times, want 1", got)
	}

	// In CI: replay, and the live server is never started.
	t.Setenv(cassette.EnvRecord, "")
	t.Setenv("CI", "true")
	replayed := lookupOnce(t, func(t *testing.T) client.Definition { return mcptest.Cassette(t, path, live.Definition(), nil) })
	if diff := cmp.Diff(recorded, replayed); diff != "" {
		t.Errorf("replayed answer mismatch (-recorded +replayed):\n%s", diff)
	}
	if got := live.Counts().Executions["lookup"]; got != 1 {
		t.Errorf("replay ran lookup on the live server: %d executions, want 1", got)
	}
}

func TestCassetteMissingSaysHowToRecord(t *testing.T) {
	t.Setenv(cassette.EnvRecord, "")
	t.Setenv("CI", "true")
	r := &recT{TB: t}
	failures := r.run(func(tb testing.TB) {
		mcptest.Cassette(tb, filepath.Join(t.TempDir(), "absent.cassette"), mcptest.InProcess(tb, nil).Definition(), nil)
	})
	if len(failures) != 1 || !strings.Contains(failures[0], cassette.EnvRecord+"=1 go test -run") {
		t.Errorf("failures = %q, want one that says how to record", failures)
	}
}

func TestCassetteReplayMismatchFailsTheTest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "docs.cassette")
	t.Setenv(cassette.EnvRecord, "1")
	lookupOnce(t, func(t *testing.T) client.Definition {
		return mcptest.Cassette(t, path, mcptest.InProcess(t, nil).Definition(), nil)
	})
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	t.Setenv(cassette.EnvRecord, "replay")
	r := &recT{TB: t}
	failures := r.run(func(tb testing.TB) {
		def := mcptest.Cassette(tb, path, client.Definition{Name: "docs"}, nil)
		c, err := client.Connect(t.Context(), def, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.CallTool(t.Context(), "lookup", map[string]any{"query": "not what was recorded"})
	})
	if len(failures) != 1 || !strings.Contains(failures[0], "differs from the next recorded message") {
		t.Errorf("failures = %q, want the replay mismatch", failures)
	}
}

// TestCassetteHTTPDefinition: a plain streamablehttp Definition records
// and replays through mcptest.Cassette, stateful and stateless, and the
// replay needs no server. (A stateless session is written when its
// factory is closed, at the end of the test that recorded it: each phase
// is a test of its own here.)
func TestCassetteHTTPDefinition(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "http.cassette")
		live := mcptest.HTTP(t, &mcptest.HTTPOptions{Stateless: stateless})
		var recorded, replayed string
		t.Run("record", func(t *testing.T) {
			t.Setenv(cassette.EnvRecord, "1")
			recorded = lookupOnce(t, func(t *testing.T) client.Definition { return mcptest.Cassette(t, path, live.Definition(), nil) })
		})
		t.Run("replay", func(t *testing.T) {
			t.Setenv(cassette.EnvRecord, "")
			t.Setenv("CI", "true")
			replayed = lookupOnce(t, func(t *testing.T) client.Definition {
				return mcptest.Cassette(t, path, client.Definition{Name: "docs"}, nil)
			})
		})
		if recorded == "" || recorded != replayed || live.Counts().Executions["lookup"] != 1 {
			t.Errorf("stateless=%v: recorded %q, replayed %q, %d executions; want the same answer and one execution", stateless, recorded, replayed, live.Counts().Executions["lookup"])
		}
	}
}

// A test that fails while recording does not rewrite its cassette: the
// session it cut short would replay as a truncated recording, for good.
// The cassette stays as it was, byte for byte; a passing test rewrites it.
func TestCassetteFailedRecordingKeepsTheCassette(t *testing.T) {
	path := filepath.Join(t.TempDir(), "docs.cassette")
	old := []byte("the cassette a passing test recorded\n")
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(cassette.EnvRecord, "1")
	session := func(fail bool) []string {
		r := &recT{TB: t}
		return r.run(func(tb testing.TB) {
			c := mcptest.Connect(tb, mcptest.Cassette(tb, path, mcptest.InProcess(tb, nil).Definition(), nil), nil)
			if _, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "tape"}); err != nil {
				tb.Fatal(err)
			}
			if fail {
				tb.Errorf("the test fails after its call")
			}
		})
	}
	if failures := session(true); len(failures) != 1 {
		t.Fatalf("failures = %q, want only the test's own", failures)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != string(old) {
		t.Fatalf("after a failed recording the cassette is %.120q… (%v), want it unchanged", got, err)
	}
	if failures := session(false); len(failures) != 0 {
		t.Fatalf("failures = %q, want none", failures)
	}
	if got, _ := os.ReadFile(path); !strings.Contains(string(got), `"tape"`) {
		t.Errorf("a passing test did not rewrite the cassette: %q", got)
	}
}
