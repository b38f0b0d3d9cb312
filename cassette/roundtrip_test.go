package cassette_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// script calls a counting tool, then a tool that sends the client roots,
// sampling and elicitation requests, then the counting tool again.
var script = []call{
	{Tool: "count", Args: map[string]any{"label": "first"}},
	{Tool: "ask"},
	{Tool: "count", Args: map[string]any{"label": "second"}},
}

// record runs calls against a fresh counter server through a Recorder and
// returns the cassette's bytes and the outcomes.
func record(t *testing.T, path string, opts *cassette.Options, calls ...call) ([]byte, []outcome) {
	t.Helper()
	srv := newCounter()
	outs, err := session(t, cassette.Record(inprocess.New(srv.srv), path, opts), calls...)
	if err != nil {
		t.Fatalf("recording Close: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data, outs
}

func TestRecordThenReplay(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "session.jsonl")
	srv := newCounter()
	live, err := session(t, cassette.Record(inprocess.New(srv.srv), path, nil), script...)
	if err != nil {
		t.Fatalf("recording Close: %v", err)
	}
	want := []outcome{{Text: "first #1"}, {Text: `roots=1 sampled="hi" elicited=Ada`}, {Text: "second #3"}}
	if diff := cmp.Diff(want, live); diff != "" {
		t.Fatalf("live outcomes mismatch (-want +got):\n%s", diff)
	}

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
	if err := p.Err(); err != nil {
		t.Errorf("Player.Err = %v", err)
	}
}

func TestRecordServerToClientRequests(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "session.jsonl")
	record(t, path, nil, script...)
	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range c.Interactions {
		if m := in.Method(); m != "" {
			got = append(got, in.From+" "+m)
		}
	}
	want := []string{
		"client initialize",
		"client notifications/initialized",
		"client tools/call",
		"client tools/call",
		"server roots/list",
		"server sampling/createMessage",
		"server elicitation/create",
		"client tools/call",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("recorded requests mismatch (-want +got):\n%s", diff)
	}
}

func TestRerecordGivesIdenticalBytes(t *testing.T) {
	leakcheck.Check(t)
	dir := t.TempDir()
	opts := &cassette.Options{Secrets: []string{"s3cr3t"}}
	calls := append([]call{{Tool: "echo", Args: map[string]any{"text": "token s3cr3t <&>"}}}, script...)
	first, _ := record(t, filepath.Join(dir, "a.jsonl"), opts, calls...)
	second, _ := record(t, filepath.Join(dir, "b.jsonl"), opts, calls...)
	if diff := cmp.Diff(string(first), string(second)); diff != "" {
		t.Errorf("re-recording mismatch (-first +second):\n%s", diff)
	}
}

func TestRecordDraftProtocolHeader(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "draft.jsonl")
	ctx := context.Background()
	tr, err := cassette.Record(inprocess.New(newCounter().srv), path, nil).Transport()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := newClient().Connect(ctx, tr, nil) // the go-sdk's default: the stateless draft
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"label": "x"}}); err != nil {
		t.Fatal(err)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := cassette.Header{Format: cassette.FormatName, Version: 1, Transport: "inprocess", Protocol: cs.InitializeResult().ProtocolVersion, Server: "counter"}
	if diff := cmp.Diff(want, c.Header); diff != "" {
		t.Errorf("header mismatch (-want +got):\n%s", diff)
	}
}

func TestIncompleteSessionOverwritesNothing(t *testing.T) {
	leakcheck.Check(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "session.jsonl")
	old, _ := record(t, path, nil, script...)

	// A session that ends before its handshake records nothing usable.
	tr, err := cassette.Record(inprocess.New(newCounter().srv), path, nil).Transport()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Close(); !errors.Is(err, cassette.ErrIncomplete) {
		t.Fatalf("Close = %v, want ErrIncomplete", err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, got) {
		t.Errorf("the earlier cassette was changed:\n%s", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the cassette (no temporary file left)", len(entries))
	}
}

func TestFactoryMakesOneSession(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "session.jsonl")
	rec := cassette.Record(inprocess.New(newCounter().srv), path, nil)
	if _, err := session(t, rec, script[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Transport(); !errors.Is(err, cassette.ErrUsed) {
		t.Errorf("Recorder.Transport again = %v, want ErrUsed", err)
	}
	p, err := cassette.Replay(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := session(t, p, script[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Transport(); !errors.Is(err, cassette.ErrUsed) {
		t.Errorf("Player.Transport again = %v, want ErrUsed", err)
	}
}

var update = flag.Bool("update", false, "rewrite testdata/counter.jsonl")

// TestGoldenCassette proves determinism across runs and processes: recording
// the script gives exactly the committed cassette.
func TestGoldenCassette(t *testing.T) {
	leakcheck.Check(t)
	golden := filepath.Join("testdata", "counter.jsonl")
	got, _ := record(t, filepath.Join(t.TempDir(), "counter.jsonl"), &cassette.Options{Secrets: []string{"s3cr3t"}},
		append(script, call{Tool: "echo", Args: map[string]any{"text": "token s3cr3t"}})...)
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestGoldenCassette -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("recorded cassette mismatch (-%s +recorded):\n%s", golden, diff)
	}
}
