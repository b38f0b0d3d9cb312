package cassette_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recordTask records one call of the fake's lookup, run as a task that
// works 100ms, over HTTP at 2026-07-28, with this module's client polling
// every 5ms: the cassette holds polls answered "working", then the
// completed one.
func recordTask(t *testing.T, path string) {
	t.Helper()
	var faults []fakeserver.Fault
	for _, s := range []string{"task=lookup", "delay=lookup:100ms"} {
		f, err := fakeserver.ParseFault(s)
		if err != nil {
			t.Fatal(err)
		}
		faults = append(faults, f)
	}
	fake, err := fakeserver.New(&fakeserver.Options{Catalog: fakeserver.CatalogDocs, Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	hs, err := fake.StartHTTP("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hs.Close()
	if _, err := taskCall(t, path, httpLive(t, hs.URL, nil), cassette.ModeRecord, nil); err != nil {
		t.Fatalf("recording: %v", err)
	}
}

// taskCall calls lookup once as a task through a cassette at path (live
// behind it) in mode, with faults; it returns the call's result text and
// error, and fails the test if the cassette's Close fails.
func taskCall(t *testing.T, path string, live transport.Factory, mode cassette.Mode, faults []cassette.Fault) (string, error) {
	t.Helper()
	f := open(t, path, live, &cassette.Options{Mode: mode, Faults: faults})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.Definition{Name: "docs", Profile: client.Profile20260728, Tasks: true, Transport: f,
		Limits: client.Limits{TaskPollMin: time.Millisecond, TaskPollMax: 5 * time.Millisecond}}, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	res, callErr := c.CallTool(ctx, "lookup", map[string]any{"query": "slow"})
	c.Close()
	if err := f.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if callErr != nil {
		return "", callErr
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), nil
}

// TestFaultDropOfAPollIsPolledAgain: drop@tasks/get loses the reply to the
// task's first poll, answered with a JSON body (the connection breaks once
// the poll is written). Polling a known task is a read: the client polls
// again, is answered with the state the fault lost, and gets the task's
// result, the call made once and nothing left unused. Counted at the
// replay: one tasks/get more than without the fault.
func TestFaultDropOfAPollIsPolledAgain(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "task.jsonl")
	recordTask(t, path)
	plain := newCounting(t)
	want, err := taskCall(t, path, plain, cassette.ModeReplay, nil)
	if err != nil || !strings.Contains(want, "slow") {
		t.Fatalf("replay without faults: %q, %v", want, err)
	}
	dropped := newCounting(t)
	got, err := taskCall(t, path, dropped, cassette.ModeReplay, []cassette.Fault{{Kind: cassette.FaultDrop, Method: "tasks/get"}})
	if err != nil || got != want {
		t.Fatalf("replay with the first poll's reply lost: %q, %v; want %q", got, err, want)
	}
	if n, m := dropped.count("POST tasks/get"), plain.count("POST tasks/get"); n != m+1 {
		t.Errorf("%d polls with the reply lost, %d without; want one more: %q", n, m, *dropped.seen)
	}
	if n := dropped.count("POST tools/call"); n != 1 {
		t.Errorf("the call was POSTed %d times, want 1", n)
	}
}

// TestFaultFailFailsTheTaskAtAState: fail@tasks/get fails the task at its
// first recorded state: the call fails as a failed task does
// (&client.ReasonError{Reason: client.ReasonTaskFailed}), naming the fault, after one poll; the task's
// later recorded polls are not reported unused (Close succeeds).
func TestFaultFailFailsTheTaskAtAState(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "task.jsonl")
	recordTask(t, path)
	live := newCounting(t)
	_, err := taskCall(t, path, live, cassette.ModeReplay, []cassette.Fault{{Kind: cassette.FaultFail, Method: "tasks/get"}})
	if !errors.Is(err, &client.ReasonError{Reason: client.ReasonTaskFailed}) || !strings.Contains(err.Error(), "injected fault fail@tasks/get") {
		t.Fatalf("the call: %v, want ReasonTaskFailed naming the fault", err)
	}
	if n := live.count("POST tasks/get"); n != 1 {
		t.Errorf("%d polls, want 1: %q", n, *live.seen)
	}
}

// TestFaultFailOnARepeatedState: on the most common task recording, whose
// first polls are all answered "working", fail@tasks/get#2 names a poll
// that repeats the state of the first, which answers in its place: Open
// refuses it, naming the poll to use (tasks/get#1, its message and line).
// fail@tasks/get, the documented example, fails the task (see
// TestFaultFailFailsTheTaskAtAState); #1 is the same fault.
func TestFaultFailOnARepeatedState(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "task.jsonl")
	recordTask(t, path)
	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, m := range c.Messages() {
		if s := string(m.Message); strings.Contains(s, `"status":"working"`) {
			states = append(states, "working")
		} else if strings.Contains(s, `"status":"completed"`) {
			states = append(states, "completed")
		}
	}
	if len(states) < 3 || states[0] != "working" || states[1] != "working" {
		t.Fatalf("the recording's polls are answered %q, not twice working first: the test proves nothing", states)
	}
	f, err := cassette.ParseFault("fail@tasks/get#2")
	if err != nil {
		t.Fatal(err)
	}
	_, err = cassette.Open(path, nil, &cassette.Options{Faults: []cassette.Fault{f}})
	var oe *cassette.OptionsError
	if !errors.As(err, &oe) || !errors.Is(err, transport.ErrBadFault) || !strings.Contains(err.Error(), "the first poll of that state, tasks/get#1 (message ") {
		t.Fatalf("Open with fail@tasks/get#2 = %v, want an *OptionsError wrapping ErrBadFault naming tasks/get#1", err)
	}
	first, err := cassette.ParseFault("fail@tasks/get#1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := taskCall(t, path, newCounting(t), cassette.ModeReplay, []cassette.Fault{first}); !errors.Is(err, &client.ReasonError{Reason: client.ReasonTaskFailed}) {
		t.Errorf("the call with fail@tasks/get#1: %v, want ReasonTaskFailed", err)
	}
}
