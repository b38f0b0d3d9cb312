package cassette_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callOnce connects with client.Connect over f, calls count once and
// closes, returning the result text.
func callOnce(t *testing.T, f transport.Factory) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.Definition{Name: "counter", Transport: f}, nil)
	if err != nil {
		t.Fatalf("client.Connect: %v", err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	res, err := c.CallTool(ctx, "count", map[string]any{"label": "once"})
	if err != nil {
		return "", err
	}
	return res.Content[0].(*mcp.TextContent).Text, nil
}

// TestHTTPDroppedStreamReplaysAsDropAndResume records a session whose
// tools/call response stream is cut after its priming event (which carries
// an event id), so that the client resumes it with GET + Last-Event-ID and
// reads the committed reply. Replayed with no server, the replayed stream
// breaks at the same place, the client resumes with the recorded
// Last-Event-ID, and the call's result arrives, served once.
func TestHTTPDroppedStreamReplaysAsDropAndResume(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "drop.jsonl")
	rig := newHTTPRig(t, dropFirstCall)
	rec := cassette.RecordHTTP(rig.url(), base(t), path, nil)
	f, err := streamablehttp.New(rig.url(), &streamablehttp.Options{Base: rec})
	if err != nil {
		t.Fatal(err)
	}
	live, err := callOnce(t, f)
	if err != nil {
		t.Fatalf("live CallTool: %v", err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if got := rig.calls.Load(); got != 1 {
		t.Fatalf("tool executed %d times live, want 1", got)
	}
	var resumes []string
	for _, s := range rig.requests {
		if strings.HasPrefix(s, "GET ") && s != "GET " {
			resumes = append(resumes, s)
		}
	}
	if len(resumes) != 1 {
		t.Fatalf("live server saw %q, want one GET with Last-Event-ID", rig.requests)
	}

	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var ends, lastEventIDs []string
	for _, in := range c.Interactions {
		if in.Kind == cassette.KindClose {
			ends = append(ends, in.End)
		}
		if id := in.Headers.Get("Last-Event-ID"); in.Kind == cassette.KindRequest && id != "" {
			lastEventIDs = append(lastEventIDs, id)
		}
	}
	if !strings.Contains(strings.Join(ends, " "), cassette.EndDropped) || len(lastEventIDs) != 1 {
		t.Fatalf("cassette records ends %q and Last-Event-IDs %q, want a drop and one resume", ends, lastEventIDs)
	}

	// Replay through the Player's round tripper, watched by a spy.
	p := c.Player(&cassette.Options{Strict: true})
	sp := &spy{rt: p.RoundTripper()}
	rf, err := streamablehttp.New(p.Endpoint(), &streamablehttp.Options{Base: sp})
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := callOnce(t, rf)
	if err != nil {
		t.Fatalf("replayed CallTool: %v", err)
	}
	if diff := cmp.Diff(live, replayed); diff != "" {
		t.Errorf("replayed result mismatch (-live +replayed):\n%s", diff)
	}
	var gets []string
	for _, s := range sp.seen() {
		if strings.HasPrefix(s, http.MethodGet+" ") && s != "GET " {
			gets = append(gets, s)
		}
	}
	if diff := cmp.Diff([]string{"GET " + lastEventIDs[0]}, gets); diff != "" {
		t.Errorf("replayed resumptions mismatch (-want +got):\n%s", diff)
	}
	if err := p.Err(); err != nil {
		t.Errorf("Player.Err = %v", err)
	}
	if got := rig.calls.Load(); got != 1 {
		t.Errorf("tool executed %d times, want 1 (replay must not reach the server)", got)
	}
}

// TestHTTPToolCallNeverServedTwice calls the recorded tool a second time:
// the recorded execution is not served again, and the call fails with the
// typed mismatch.
func TestHTTPToolCallNeverServedTwice(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "once.jsonl")
	recordHTTP(t, path, nil, nil, script[0])
	p := mustReplay(t, path, nil)
	outs, err := session(t, p, script[0], script[0])
	if outs[0].Err != "" {
		t.Fatalf("first replayed call failed: %s", outs[0].Err)
	}
	mustContain(t, "second call's error", outs[1].Err, "already served", "tools/call")
	var merr *cassette.MismatchError
	if !errors.As(p.Err(), &merr) || !errors.Is(p.Err(), cassette.ErrMismatch) {
		t.Fatalf("Player.Err = %v, want a *MismatchError", p.Err())
	}
	if merr.Method != "tools/call" || merr.Position == 0 || merr.Cassette != path {
		t.Errorf("MismatchError = %+v, want tools/call at a line of %s", merr, path)
	}
	_ = err
}

// TestHTTPMismatchNamesPositionAndDiff sends a call the cassette does not
// hold.
func TestHTTPMismatchNamesPositionAndDiff(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "diff.jsonl")
	recordHTTP(t, path, nil, nil, script[0])
	p := mustReplay(t, path, nil)
	outs, _ := session(t, p, call{Tool: "count", Args: map[string]any{"label": "other"}})
	mustContain(t, "call error", outs[0].Err, path, "tools/call", `-`, `"first"`, `+`, `"other"`)
	var merr *cassette.MismatchError
	if !errors.As(p.Err(), &merr) {
		t.Fatalf("Player.Err = %v, want a *MismatchError", p.Err())
	}
	mustContain(t, "diff", merr.Diff, `"first"`, `"other"`)
}

// TestHTTPStrictReportsUnused leaves a recorded call unmade.
func TestHTTPStrictReportsUnused(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "unused.jsonl")
	recordHTTP(t, path, nil, nil, script[0], script[2])
	p := mustReplay(t, path, &cassette.Options{Strict: true})
	if _, err := session(t, p, script[0]); err != nil {
		t.Fatal(err)
	}
	var uerr *cassette.UnusedError
	if !errors.As(p.Err(), &uerr) {
		t.Fatalf("Player.Err = %v, want an *UnusedError", p.Err())
	}
	if diff := cmp.Diff([]string{"tools/call"}, methods(uerr.Unused)); diff != "" {
		t.Errorf("unused mismatch (-want +got):\n%s", diff)
	}
}

func methods(us []cassette.Unused) []string {
	var ms []string
	for _, u := range us {
		ms = append(ms, u.Method)
	}
	return ms
}
