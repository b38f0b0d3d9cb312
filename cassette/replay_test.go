package cassette_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestToolCallNeverServedTwice(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "once.jsonl")
	one := call{Tool: "count", Args: map[string]any{"label": "only"}}
	record(t, path, nil, one)

	p, err := cassette.Replay(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, closeErr := session(t, p, one, one)
	if got[0] != (outcome{Text: "only #1"}) {
		t.Errorf("first call = %+v, want the recorded answer", got[0])
	}
	mustContain(t, "second call's error", got[1].Err, path+":5", "tools/call", "already served")
	var merr *cassette.MismatchError
	if !errors.As(closeErr, &merr) {
		t.Fatalf("Close = %v, want a *MismatchError", closeErr)
	}
	want := &cassette.MismatchError{Cassette: path, Position: 5, Method: "tools/call", Reason: "already served: a recorded message is served at most once"}
	if diff := cmp.Diff(want, merr); diff != "" {
		t.Errorf("MismatchError mismatch (-want +got):\n%s", diff)
	}
	if !errors.Is(p.Err(), cassette.ErrMismatch) {
		t.Errorf("Player.Err = %v, want ErrMismatch", p.Err())
	}
}

func TestMismatchErrorNamesCassettePositionMethodAndDiff(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "mismatch.jsonl")
	record(t, path, nil, call{Tool: "count", Args: map[string]any{"label": "recorded"}})

	p, err := cassette.Replay(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, closeErr := session(t, p, call{Tool: "count", Args: map[string]any{"label": "live"}})
	var merr *cassette.MismatchError
	if !errors.As(closeErr, &merr) {
		t.Fatalf("Close = %v, want a *MismatchError", closeErr)
	}
	if merr.Cassette != path || merr.Position != 5 || merr.Method != "tools/call" {
		t.Errorf("MismatchError names %s:%d %s, want %s:5 tools/call", merr.Cassette, merr.Position, merr.Method, path)
	}
	mustContain(t, "diff", merr.Diff, `-`, `"recorded"`, `+`, `"live"`)
	// The caller sees the same text as the JSON-RPC error of its call.
	mustContain(t, "the call's error", got[0].Err, path+":5", "tools/call", "(-recorded +live)", `"recorded"`, `"live"`)
}

func TestUnmatchedMethodDiffsAgainstNextRecorded(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "method.jsonl")
	record(t, path, nil, call{Tool: "count", Args: map[string]any{"label": "x"}})
	p, err := cassette.Replay(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tr, _ := p.Transport()
	cs, err := newClient().Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: stable})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.ListTools(ctx, nil)
	if err == nil {
		t.Fatal("ListTools against a cassette without it succeeded")
	}
	mustContain(t, "error", err.Error(), path+":5", "tools/list", "next recorded client message is tools/call")
	if errText(cs.Close()) == "" {
		t.Error("Close reported no mismatch")
	}
}

func TestStrictReportsUnused(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "unused.jsonl")
	record(t, path, nil, script...)
	for _, strict := range []bool{false, true} {
		p, err := cassette.Replay(path, &cassette.Options{Strict: strict})
		if err != nil {
			t.Fatal(err)
		}
		_, closeErr := session(t, p, script[0])
		want := []cassette.Unused{{Line: 7, Method: "tools/call"}, {Line: 9, Method: ""}, {Line: 11, Method: ""}, {Line: 13, Method: ""}, {Line: 15, Method: "tools/call"}}
		if diff := cmp.Diff(want, p.Unused()); diff != "" {
			t.Errorf("strict=%v: Unused mismatch (-want +got):\n%s", strict, diff)
		}
		var uerr *cassette.UnusedError
		if got := errors.As(closeErr, &uerr); got != strict {
			t.Errorf("strict=%v: Close = %v, want an *UnusedError: %v", strict, closeErr, strict)
		}
	}
}

// rawPlayer connects to a Player at the JSON-RPC level.
func rawPlayer(t *testing.T, path string, opts *cassette.Options) mcp.Connection {
	t.Helper()
	p, err := cassette.Replay(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := p.Transport()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := tr.Connect(context.Background())
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

func TestReplayAnswersTheLiveID(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "ids.jsonl")
	record(t, path, nil, script[0])
	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	conn := rawPlayer(t, path, nil)
	// Send the recorded initialize with another id and a progress token in _meta.
	var init *jsonrpc.Request
	if m, err := jsonrpc.DecodeMessage(c.Interactions[0].Message); err == nil {
		init = m.(*jsonrpc.Request)
	}
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
	path := filepath.Join(t.TempDir(), "ignore.jsonl")
	record(t, path, nil, call{Tool: "count", Args: map[string]any{"label": "Mon 09:00"}})
	for _, tc := range []struct {
		ignore []string
		ok     bool
	}{
		{nil, false},
		{[]string{"params.arguments.label"}, true},
		{[]string{"params.*.label"}, true},
	} {
		p, err := cassette.Replay(path, &cassette.Options{IgnorePaths: tc.ignore})
		if err != nil {
			t.Fatal(err)
		}
		got, err := session(t, p, call{Tool: "count", Args: map[string]any{"label": "Tue 10:30"}})
		if (err == nil) != tc.ok || (got[0].Err == "") != tc.ok {
			t.Errorf("IgnorePaths %q: outcome %+v, Close %v; want success %v", tc.ignore, got[0], err, tc.ok)
		}
	}
}
