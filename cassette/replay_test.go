package cassette_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recordCounter records calls against a fresh in-process counter.
func recordCounter(t *testing.T, path string, calls ...call) {
	t.Helper()
	record(t, path, inprocess.New(newCounter().srv), nil, rev2025, calls...)
}

// replaying opens the cassette at path for replay.
func replaying(t *testing.T, path string, opts *cassette.Options) *cassette.Factory {
	t.Helper()
	return open(t, path, nil, withMode(opts, cassette.ModeReplay))
}

// TestToolCallNeverServedTwice: a recorded tools/call answers one live
// call; the same call again is a mismatch, at the call and from Close.
func TestToolCallNeverServedTwice(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "once.jsonl")
	one := call{Tool: "count", Args: map[string]any{"label": "only"}}
	recordCounter(t, path, one)

	f := replaying(t, path, nil)
	got, err := session(t, f, rev2025, one, one)
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != (outcome{Text: "only #1"}) {
		t.Errorf("first call = %+v, want the recorded answer", got[0])
	}
	mustContain(t, "second call's error", got[1].Err, path+":5", "tools/call", "already served")
	var merr *cassette.MismatchError
	if err := f.Close(); !errors.As(err, &merr) {
		t.Fatalf("Close = %v, want a *MismatchError", err)
	}
	want := &cassette.MismatchError{Cassette: path, Position: 5, Method: "tools/call", Reason: "already served: a recorded message is served at most once"}
	if diff := cmp.Diff(want, merr); diff != "" {
		t.Errorf("MismatchError mismatch (-want +got):\n%s", diff)
	}
	if !errors.Is(f.Err(), transport.ErrMismatch) {
		t.Errorf("Err = %v, want ErrMismatch", f.Err())
	}
}

// TestCloseReturnsTheFirstMismatch: of several mismatches, Close returns
// the first.
func TestCloseReturnsTheFirstMismatch(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "first.jsonl")
	recordCounter(t, path, call{Tool: "count", Args: map[string]any{"label": "recorded"}})
	f := replaying(t, path, nil)
	session(t, f, rev2025, call{Tool: "count", Args: map[string]any{"label": "one"}}, call{Tool: "count", Args: map[string]any{"label": "two"}})
	var merr *cassette.MismatchError
	if err := f.Close(); !errors.As(err, &merr) || !strings.Contains(merr.Diff, `"one"`) {
		t.Errorf("Close = %v, want the mismatch of the first call", err)
	}
}

func TestMismatchErrorNamesCassettePositionMethodAndDiff(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "mismatch.jsonl")
	recordCounter(t, path, call{Tool: "count", Args: map[string]any{"label": "recorded"}})

	f := replaying(t, path, nil)
	got, _ := session(t, f, rev2025, call{Tool: "count", Args: map[string]any{"label": "live"}})
	var merr *cassette.MismatchError
	if err := f.Close(); !errors.As(err, &merr) {
		t.Fatalf("Close = %v, want a *MismatchError", err)
	}
	if merr.Cassette != path || merr.Position != 5 || merr.Method != "tools/call" {
		t.Errorf("MismatchError names %s:%d %s, want %s:5 tools/call", merr.Cassette, merr.Position, merr.Method, path)
	}
	// A unified line diff of indented JSON, -recorded +live, the same
	// bytes every time (go-cmp's output varies on purpose).
	want := `--- recorded
+++ live
@@ -2,7 +2,7 @@
   "method": "tools/call",
   "params": {
     "arguments": {
-      "label": "recorded"
+      "label": "live"
     },
     "name": "count"
   }
`
	if merr.Diff != want {
		t.Errorf("MismatchError.Diff =\n%s\nwant\n%s", merr.Diff, want)
	}
	// The caller sees the same text as the JSON-RPC error of its call.
	mustContain(t, "the call's error", got[0].Err, path+":5", "tools/call", "--- recorded\n+++ live\n", `-      "label": "recorded"`, `+      "label": "live"`)
}

// TestMismatchDiffShowsNumbersAsWritten: a number in a diff is the JSON
// number, not go-cmp's s"2".
func TestMismatchDiffShowsNumbersAsWritten(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "numbers.jsonl")
	recordCounter(t, path, call{Tool: "count", Args: map[string]any{"label": "x", "n": 2}})
	f := replaying(t, path, nil)
	session(t, f, rev2025, call{Tool: "count", Args: map[string]any{"label": "x", "n": 3}})
	var merr *cassette.MismatchError
	if err := f.Close(); !errors.As(err, &merr) {
		t.Fatalf("Close = %v, want a *MismatchError", err)
	}
	mustContain(t, "diff", merr.Diff, "-      \"n\": 2\n", "+      \"n\": 3\n")
	if strings.Contains(merr.Diff, `s"2"`) {
		t.Errorf("diff shows a number as go-cmp does:\n%s", merr.Diff)
	}
}

func TestUnmatchedMethodDiffsAgainstNextRecorded(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "method.jsonl")
	recordCounter(t, path, call{Tool: "count", Args: map[string]any{"label": "x"}})
	f := replaying(t, path, nil)
	ctx := testkit.Context(t)
	tr, _ := f.Transport()
	cs, err := newClient().Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rev2025})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.ListTools(ctx, nil)
	if err == nil {
		t.Fatal("ListTools against a cassette without it succeeded")
	}
	mustContain(t, "error", err.Error(), path+":5", "tools/list", "next recorded client message is tools/call")
	cs.Close()
	if f.Close() == nil {
		t.Error("Close reported no mismatch")
	}
}

// TestUnusedRequestsFail: by default, Close reports the recorded requests
// the client never made (the calls, not the answers to the server's
// requests, which were never asked); AllowUnused allows them. Unused lists
// every unsent client message either way.
func TestUnusedRequestsFail(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "unused.jsonl")
	recordCounter(t, path, script...)
	for _, allow := range []bool{false, true} {
		f := replaying(t, path, &cassette.Options{AllowUnused: allow})
		session(t, f, rev2025, script[0])
		want := []cassette.Unused{{Line: 7, Method: "tools/call"}, {Line: 9, Method: "roots/list"}, {Line: 11, Method: "sampling/createMessage"}, {Line: 13, Method: "elicitation/create"}, {Line: 15, Method: "tools/call"}}
		if diff := cmp.Diff(want, f.Unused()); diff != "" {
			t.Errorf("AllowUnused=%v: Unused mismatch (-want +got):\n%s", allow, diff)
		}
		var uerr *cassette.UnusedError
		err := f.Close()
		if got := errors.As(err, &uerr); got == allow {
			t.Errorf("AllowUnused=%v: Close = %v", allow, err)
		}
		if !allow {
			if diff := cmp.Diff([]cassette.Unused{{Line: 7, Method: "tools/call"}, {Line: 15, Method: "tools/call"}}, uerr.Unused); diff != "" {
				t.Errorf("UnusedError mismatch (-want +got):\n%s", diff)
			}
			mustContain(t, "unused error", err.Error(), "2 recorded request(s) never made", "line 7 (tools/call)", "line 15 (tools/call)", "AllowUnused")
		}
	}
}

// replay of a session that skips a recorded call fails.
func TestUnusedModeFromEnvInCI(t *testing.T) {
	t.Setenv("CI", "true")
	t.Setenv(cassette.EnvRecord, "")
	mode, err := cassette.ModeFromEnv()
	if err != nil || mode != cassette.ModeReplay {
		t.Fatalf("ModeFromEnv in CI = %v, %v; want replay", mode, err)
	}
	path := tempPath(t, "ci.jsonl")
	recordCounter(t, path, script[0], script[2])
	f := open(t, path, nil, &cassette.Options{Mode: mode})
	session(t, f, rev2025, script[0])
	var uerr *cassette.UnusedError
	if err := f.Close(); !errors.As(err, &uerr) || len(uerr.Unused) != 1 {
		t.Errorf("Close = %v, want the skipped call as an *UnusedError", err)
	}
}

// rawReplay connects to a replay of path at the JSON-RPC level.
func rawReplay(t *testing.T, path string, opts *cassette.Options) mcp.Connection {
	t.Helper()
	tr, err := replaying(t, path, opts).Transport()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := tr.Connect(testkit.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func roundTrip(t *testing.T, conn mcp.Connection, req *jsonrpc.Request) *jsonrpc.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := conn.Write(ctx, req); err != nil {
		t.Fatal(err)
	}
	for {
		m, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for the answer to %s: %v", req.Method, err)
		}
		if r, ok := m.(*jsonrpc.Response); ok {
			return r
		}
	}
}

// TestReplayAnswersTheLiveID: a request matches whatever its id and _meta
// (progress tokens), and its answer carries the live id.
func TestReplayAnswersTheLiveID(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "ids.jsonl")
	recordCounter(t, path, script[0])
	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	conn := rawReplay(t, path, nil)
	m, err := jsonrpc.DecodeMessage(c.Interactions[0].Message)
	if err != nil {
		t.Fatal(err)
	}
	init := m.(*jsonrpc.Request)
	init.ID, _ = jsonrpc.MakeID("live-7")
	init.Params = []byte(strings.Replace(string(init.Params), "{", `{"_meta":{"progressToken":"p-1"},`, 1))
	resp := roundTrip(t, conn, init)
	if resp.Error != nil {
		t.Fatalf("initialize with a progress token failed to match: %v", resp.Error)
	}
	if got := resp.ID.Raw(); got != "live-7" {
		t.Errorf("response id = %v, want the live request's id live-7", got)
	}
}

func TestIgnorePaths(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "ignore.jsonl")
	recordCounter(t, path, call{Tool: "count", Args: map[string]any{"label": "Mon 09:00"}})
	for _, tc := range []struct {
		ignore []string
		ok     bool
	}{
		{nil, false},
		{[]string{"params.arguments.label"}, true},
		{[]string{"params.*.label"}, true},
		{[]string{"params.arguments.other"}, false},
	} {
		f := replaying(t, path, &cassette.Options{IgnorePaths: tc.ignore})
		got, _ := session(t, f, rev2025, call{Tool: "count", Args: map[string]any{"label": "Tue 10:30"}})
		if err := f.Close(); (err == nil) != tc.ok || (got[0].Err == "") != tc.ok {
			t.Errorf("IgnorePaths %q: outcome %+v, Close %v; want success %v", tc.ignore, got[0], err, tc.ok)
		}
	}
}

// TestReplayConcurrentClient: a client that calls concurrently, in an
// order the recording does not fix, gets every recorded answer, each once.
func TestReplayConcurrentClient(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "concurrent.jsonl")
	const n = 8
	var calls []call
	for i := range n {
		calls = append(calls, call{Tool: "echo", Args: map[string]any{"text": string(rune('a' + i))}})
	}
	// Recorded concurrently too, so that no answer is ordered before another
	// request.
	for _, mode := range []cassette.Mode{cassette.ModeRecord, cassette.ModeReplay} {
		f := open(t, path, inprocess.New(newCounter().srv), withMode(nil, mode))
		tr, _ := f.Transport()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cs, err := newClient().Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rev2025})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		got := make([]string, n)
		for i, c := range calls {
			wg.Go(func() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args})
				if err != nil {
					got[i] = err.Error()
					return
				}
				got[i] = res.Content[0].(*mcp.TextContent).Text
			})
		}
		wg.Wait()
		cs.Close()
		cancel()
		for i := range n {
			if want := "echo: " + string(rune('a'+i)); got[i] != want {
				t.Errorf("%s: call %d = %q, want %q", mode, i, got[i], want)
			}
		}
		if err := f.Close(); err != nil {
			t.Errorf("%s Close: %v", mode, err)
		}
	}
}

// TestHeldAnswerIsBounded: an answer held for a request the live client
// never makes fails its call after Options.Wait, naming what it waited for.
func TestHeldAnswerIsBounded(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "held.jsonl")
	recordCounter(t, path, call{Tool: "count", Args: map[string]any{"label": "a"}}, call{Tool: "count", Args: map[string]any{"label": "b"}})
	f := replaying(t, path, &cassette.Options{Wait: 50 * time.Millisecond})
	got, _ := session(t, f, rev2025, call{Tool: "count", Args: map[string]any{"label": "b"}})
	mustContain(t, "the held call's error", got[0].Err, "held 50ms", "tools/call at line 5")
	var merr *cassette.MismatchError
	if err := f.Close(); !errors.As(err, &merr) || merr.Position != 7 {
		t.Errorf("Close = %v, want a *MismatchError at line 7", err)
	}
}

// TestCancellationNamesTheLiveCall: a live client numbers its requests as
// it likes (concurrent calls take their ids in any order), and its
// notifications/cancelled names the call by its live id. Replay matches it
// to the recorded cancellation of that call, not to whatever recorded
// cancellation carries the same number: here the two calls' ids are
// swapped, the client cancels "a", and the answer recorded after a's
// cancellation goes out with a's live id, with nothing reported.
func TestCancellationNamesTheLiveCall(t *testing.T) {
	leakcheck.Check(t)
	msg := func(from, s string) cassette.Interaction {
		return cassette.Interaction{Kind: cassette.KindMessage, From: from, Message: json.RawMessage(s)}
	}
	c := &cassette.Cassette{
		File:   "cancelled",
		Header: cassette.Header{Format: cassette.FormatName, Version: cassette.Version, Transport: "inprocess", Protocol: rev2025, Server: "counter"},
		Interactions: []cassette.Interaction{
			msg(cassette.FromClient, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"tester","version":"v1"}}}`),
			msg(cassette.FromServer, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"counter","version":"v1"}}}`),
			msg(cassette.FromClient, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`),
			msg(cassette.FromClient, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"label":"a"}}}`),
			msg(cassette.FromClient, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{"label":"b"}}}`),
			msg(cassette.FromClient, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`),
			msg(cassette.FromServer, `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"b"}]}}`),
			msg(cassette.FromServer, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"a, cancelled"}],"isError":true}}`),
			{Kind: cassette.KindClose, Ending: &cassette.Ending{End: cassette.EndClient}},
		},
	}
	f, err := cassette.Replay(c, nil, &cassette.Options{Wait: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := f.Transport()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := tr.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// read reads the response with the live id, whose text has want.
	read := func(id int64, want string) {
		t.Helper()
		m, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("Read: %v (want the answer to %d)", err, id)
		}
		data, _ := jsonrpc.EncodeMessage(m)
		r, ok := m.(*jsonrpc.Response)
		if !ok || r.ID.Raw() != id || r.Error != nil || !strings.Contains(string(r.Result), want) {
			t.Fatalf("read %s, want the answer to %d with %q", data, id, want)
		}
	}
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"tester","version":"v1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{"label":"a"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"label":"b"}}}`,
	} {
		if err := conn.Write(ctx, mustRequest(s)); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(s, `"method":"initialize"`) {
			read(1, "counter")
		}
	}
	read(2, `"text":"b"`)
	if err := conn.Write(ctx, mustRequest(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`)); err != nil {
		t.Fatal(err)
	}
	read(3, `"text":"a, cancelled"`)
	conn.Close()
	if err := f.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}
