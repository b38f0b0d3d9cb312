package client_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recordTask records, at path, a session of one tools/call of job that the
// server ran as a task completing at its polls-th poll, over via.
func recordTask(t *testing.T, via, path string, polls int) {
	t.Helper()
	p := newTaskPeer()
	srv := p.server()
	var live transport.Factory = inprocess.New(srv)
	if via == "http" {
		ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
		t.Cleanup(ts.Close)
		hf, err := streamablehttp.New(ts.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		live = hf
	}
	f, err := cassette.Open(path, live, &cassette.Options{Mode: cassette.ModeRecord})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(testkit.Context(t), client.Definition{Name: "jobs", Transport: f, Limits: fastPolls, Tasks: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(testkit.Context(t), "job", map[string]any{"polls": polls, "hint": 1}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got := p.counts().Gets; got != polls {
		t.Fatalf("recorded %d polls, want %d", got, polls)
	}
}

// A cassette of a task replays whatever the number of polls it was
// recorded with: recorded with one poll of "working" and with twenty, each
// replays to the same result for a client that may poll twice only (the
// states, "working" then "completed", served in order, one per poll), the
// tool's result is served once (a third poll matches nothing), and nothing
// recorded is left unused. In-process (message level) and over Streamable
// HTTP (the round tripper level).
func TestTaskReplayWhateverThePolls(t *testing.T) {
	for _, via := range []string{"in-process", "http"} {
		for _, working := range []int{1, 20} {
			t.Run(via+"/"+strings.Repeat("w", working), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "task.jsonl")
				recordTask(t, via, path, working+1)
				f, err := cassette.Open(path, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				l := fastPolls
				l.MaxTaskPolls = 2
				c, err := client.Connect(testkit.Context(t), client.Definition{Name: "jobs", Transport: f, Limits: l, Tasks: true}, nil)
				if err != nil {
					t.Fatal(err)
				}
				res, err := c.CallTool(testkit.Context(t), "job", map[string]any{"polls": working + 1, "hint": 1})
				if err != nil {
					t.Fatal(err)
				}
				if got := textOf(res); got != "done job" {
					t.Errorf("replayed result %q, want %q", got, "done job")
				}
				if _, err := c.Task("task-1", "job").Status(testkit.Context(t)); err == nil {
					t.Error("a poll past the recorded result was answered")
				}
				c.Close()
				if err := f.Close(); !isMismatchOnly(err) {
					t.Errorf("replay ended with %v, want only the extra poll's mismatch", err)
				}
			})
		}
	}
}

// isMismatchOnly reports whether err is a replay's *MismatchError (the
// poll past the recording), not an *UnusedError.
func isMismatchOnly(err error) bool {
	var m *cassette.MismatchError
	var u *cassette.UnusedError
	return asErr(err, &m) && !asErr(err, &u)
}

func asErr[T any](err error, target *T) bool { return err != nil && errors.As(err, target) }
