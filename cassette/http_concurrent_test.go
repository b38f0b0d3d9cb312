package cassette_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPReplayAnswerNotHeldForConcurrentRequest: over HTTP too, a call
// recorded concurrently with another is answered when the live client
// makes it alone, instead of waiting for every request recorded before its
// answer.
func TestHTTPReplayAnswerNotHeldForConcurrentRequest(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "gate.jsonl")
	g := newGate()
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return g.srv }, nil))
	t.Cleanup(srv.Close)
	rec := cassette.RecordHTTP(srv.URL, base(t), path, nil)
	f, err := streamablehttp.New(srv.URL, &streamablehttp.Options{Base: rec})
	if err != nil {
		t.Fatal(err)
	}
	recordGate(t, g, f)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	replayGate(t, mustReplay(t, path, &cassette.Options{Strict: true}))
}

// TestHTTPReplayHeldAnswerIsBounded: a call recorded after another's answer
// is held until that call is made, but not forever: after Options.Wait it
// fails with a *MismatchError naming the request it waited for.
func TestHTTPReplayHeldAnswerIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "calls.jsonl")
	recordHTTP(t, path, nil, nil, call{Tool: "count", Args: map[string]any{"label": "a"}}, call{Tool: "echo", Args: map[string]any{"text": "b"}})
	synctest.Test(t, func(t *testing.T) {
		p := mustReplay(t, path, &cassette.Options{Wait: 3 * time.Second})
		start := time.Now()
		got, closeErr := session(t, p, call{Tool: "echo", Args: map[string]any{"text": "b"}})
		if waited := time.Since(start); waited != 3*time.Second {
			t.Errorf("answered after %v, want the Wait of 3s", waited)
		}
		mustContain(t, "held call's error", got[0].Err, "tools/call", "held 3s", "tools/call at line")
		var merr *cassette.MismatchError
		if !errors.As(errors.Join(closeErr, p.Err()), &merr) {
			t.Errorf("Close, Err = %v, %v; want a *MismatchError", closeErr, p.Err())
		}
	})
}
