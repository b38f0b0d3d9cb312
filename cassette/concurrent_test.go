package cassette_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recordedCalls records calls made one after another and returns the
// cassette's path and the recorded client requests, decoded, in order.
func recordedCalls(t *testing.T, calls ...call) (string, []*jsonrpc.Request) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "calls.jsonl")
	record(t, path, nil, calls...)
	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var reqs []*jsonrpc.Request
	for _, in := range c.Interactions {
		if in.From != cassette.FromClient {
			continue
		}
		m, err := jsonrpc.DecodeMessage(in.Message)
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := m.(*jsonrpc.Request); ok {
			reqs = append(reqs, r)
		}
	}
	return path, reqs
}

// withID returns a copy of r with the live id s.
func withID(r *jsonrpc.Request, s string) *jsonrpc.Request {
	cp := *r
	cp.ID, _ = jsonrpc.MakeID(s)
	return &cp
}

// readResponses reads until n responses have come, and returns them by id.
func readResponses(t *testing.T, ctx context.Context, conn mcp.Connection, n int) map[string]*jsonrpc.Response {
	t.Helper()
	got := map[string]*jsonrpc.Response{}
	for len(got) < n {
		m, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("Read after %d of %d responses: %v", len(got), n, err)
		}
		if r, ok := m.(*jsonrpc.Response); ok {
			got[fmt.Sprint(r.ID.Raw())] = r
		}
	}
	return got
}

// resultText is the text of a tools/call result, or its error.
func resultText(r *jsonrpc.Response) string {
	if r.Error != nil {
		return "error: " + r.Error.Error()
	}
	var res mcp.CallToolResult
	if err := res.UnmarshalJSON(r.Result); err != nil {
		return "undecodable: " + err.Error()
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// TestReplayRequestsOutOfOrder sends two calls recorded one after another
// in the other order. The later one is matched at once, its answer is held
// until the earlier one has been made (the recording answered them in that
// order), and both get their recorded answers.
func TestReplayRequestsOutOfOrder(t *testing.T) {
	leakcheck.Check(t)
	path, reqs := recordedCalls(t, call{Tool: "count", Args: map[string]any{"label": "a"}}, call{Tool: "echo", Args: map[string]any{"text": "b"}})
	// reqs: initialize, initialized, count a, echo b
	conn := rawPlayer(t, path, &cassette.Options{Strict: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if r := roundTrip(t, conn, withID(reqs[0], "init")); r.Error != nil {
		t.Fatalf("initialize: %v", r.Error)
	}
	if err := conn.Write(ctx, reqs[1]); err != nil {
		t.Fatal(err)
	}
	if err := conn.Write(ctx, withID(reqs[3], "live-b")); err != nil {
		t.Fatal(err)
	}
	// The answer to b is held: nothing may be read yet.
	short, stop := context.WithTimeout(ctx, 50*time.Millisecond)
	m, err := conn.Read(short)
	stop()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Read before a was sent = %v, %v; want nothing (b's answer held)", m, err)
	}
	if err := conn.Write(ctx, withID(reqs[2], "live-a")); err != nil {
		t.Fatal(err)
	}
	got := readResponses(t, ctx, conn, 2)
	want := map[string]string{"live-a": "a #1", "live-b": "echo: b"}
	gotText := map[string]string{}
	for id, r := range got {
		gotText[id] = resultText(r)
	}
	if diff := cmp.Diff(want, gotText); diff != "" {
		t.Errorf("answers mismatch (-want +got):\n%s", diff)
	}
	if err := conn.Close(); err != nil {
		t.Errorf("Close = %v, want no mismatch and nothing unused", err)
	}
}

// TestReplayOutOfOrderNeverServesTwice: a call matched out of order is
// still served once.
func TestReplayOutOfOrderNeverServesTwice(t *testing.T) {
	leakcheck.Check(t)
	path, reqs := recordedCalls(t, call{Tool: "count", Args: map[string]any{"label": "a"}}, call{Tool: "count", Args: map[string]any{"label": "b"}})
	conn := rawPlayer(t, path, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	roundTrip(t, conn, withID(reqs[0], "init"))
	conn.Write(ctx, reqs[1])
	conn.Write(ctx, withID(reqs[3], "b1"))
	conn.Write(ctx, withID(reqs[3], "b2"))
	// b2 fails at once, before a is sent.
	got := readResponses(t, ctx, conn, 1)
	if r := got["b2"]; r == nil || r.Error == nil {
		t.Fatalf("second b = %+v, want a mismatch error", got)
	}
	mustContain(t, "second b's error", got["b2"].Error.Error(), path+":7", "already served")
	conn.Write(ctx, withID(reqs[2], "a"))
	got = readResponses(t, ctx, conn, 2)
	if diff := cmp.Diff(map[string]string{"a": "a #1", "b1": "b #2"}, map[string]string{"a": resultText(got["a"]), "b1": resultText(got["b1"])}); diff != "" {
		t.Errorf("answers mismatch (-want +got):\n%s", diff)
	}
}

// TestReplayHeldAnswerIsBounded: a call whose recorded predecessor is never
// made is not held forever: after Options.Wait it fails with a
// *MismatchError naming the request it waited for, and the session goes on.
func TestReplayHeldAnswerIsBounded(t *testing.T) {
	path, reqs := recordedCalls(t, call{Tool: "count", Args: map[string]any{"label": "a"}}, call{Tool: "echo", Args: map[string]any{"text": "b"}})
	synctest.Test(t, func(t *testing.T) {
		conn := rawPlayer(t, path, &cassette.Options{Wait: 3 * time.Second})
		ctx := context.Background()
		roundTrip(t, conn, withID(reqs[0], "init"))
		conn.Write(ctx, reqs[1])
		start := time.Now()
		conn.Write(ctx, withID(reqs[3], "b"))
		got := readResponses(t, ctx, conn, 1)
		if waited := time.Since(start); waited != 3*time.Second {
			t.Errorf("answered after %v, want the Wait of 3s", waited)
		}
		if got["b"] == nil || got["b"].Error == nil {
			t.Fatalf("held call = %+v, want a mismatch error", got)
		}
		mustContain(t, "held call's error", got["b"].Error.Error(), path+":7", "tools/call", "held 3s", "tools/call call at line 5")
		var merr *cassette.MismatchError
		if err := conn.Close(); !errors.As(err, &merr) || merr.Position != 7 {
			t.Errorf("Close = %v, want the *MismatchError at line 7", err)
		}
	})
}

// TestReplayConcurrentClient records and replays sessions whose client
// makes its calls concurrently, so that the order of the requests differs
// from run to run: every replay answers every call as recorded.
func TestReplayConcurrentClient(t *testing.T) {
	leakcheck.Check(t)
	const n = 8
	path := filepath.Join(t.TempDir(), "concurrent.jsonl")
	run := func(f interface {
		Transport() (mcp.Transport, error)
	}) map[string]string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		tr, err := f.Transport()
		if err != nil {
			t.Fatal(err)
		}
		cs, err := newClient().Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: stable})
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		got := map[string]string{}
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				text := strconv.Itoa(i)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					got[text] = err.Error()
				} else {
					got[text] = res.Content[0].(*mcp.TextContent).Text
				}
			})
		}
		wg.Wait()
		if err := cs.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		return got
	}
	recorded := run(cassette.Record(inprocess.New(newCounter().srv), path, nil))
	for i := range 20 {
		p, err := cassette.Replay(path, &cassette.Options{Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(recorded, run(p)); diff != "" {
			t.Fatalf("replay %d mismatch (-recorded +replayed):\n%s", i, diff)
		}
	}
}

// gate is a server whose tool "hold" answers only once the client has the
// answer of the tool "open", called while hold runs: a recording of the
// two holds hold's request, open's request, open's answer, hold's answer.
type gate struct {
	srv      *mcp.Server
	entered  chan struct{} // closed when hold runs
	answered chan struct{} // closed by the client once it has open's answer
}

func newGate() *gate {
	g := &gate{srv: mcp.NewServer(&mcp.Implementation{Name: "gate", Version: "v1"}, nil), entered: make(chan struct{}), answered: make(chan struct{})}
	mcp.AddTool(g.srv, &mcp.Tool{Name: "hold"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		close(g.entered)
		select {
		case <-g.answered:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return text("held"), nil, nil
	})
	mcp.AddTool(g.srv, &mcp.Tool{Name: "open"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		return text("opened"), nil, nil
	})
	return g
}

// callText calls tool on cs and returns its text or error.
func callText(ctx context.Context, cs *mcp.ClientSession, tool string) string {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool})
	if err != nil {
		return "error: " + err.Error()
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// recordGate records hold and open made concurrently through f; g is the
// server behind f.
func recordGate(t *testing.T, g *gate, f interface {
	Transport() (mcp.Transport, error)
}) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr, err := f.Transport()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := newClient().Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: stable})
	if err != nil {
		t.Fatal(err)
	}
	var held string
	var wg sync.WaitGroup
	wg.Go(func() { held = callText(ctx, cs, "hold") })
	<-g.entered
	opened := callText(ctx, cs, "open")
	close(g.answered)
	wg.Wait()
	if diff := cmp.Diff([]string{"held", "opened"}, []string{held, opened}); diff != "" {
		t.Fatalf("recorded answers mismatch (-want +got):\n%s", diff)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
}

// replayGate makes the calls one after another: hold, then open. hold's
// recorded answer came after open's request, but hold was not ordered
// after open (it was made first): replay answers it without open.
func replayGate(t *testing.T, p *cassette.Player) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr, err := p.Transport()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := newClient().Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: stable})
	if err != nil {
		t.Fatal(err)
	}
	got := []string{callText(ctx, cs, "hold"), callText(ctx, cs, "open")}
	if diff := cmp.Diff([]string{"held", "opened"}, got); diff != "" {
		t.Errorf("replayed answers mismatch (-want +got):\n%s", diff)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := p.Err(); err != nil {
		t.Errorf("Player.Err: %v", err)
	}
}

// TestReplayAnswerNotHeldForConcurrentRequest: a call recorded concurrently
// with another is answered when the live client makes it alone.
func TestReplayAnswerNotHeldForConcurrentRequest(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "gate.jsonl")
	g := newGate()
	recordGate(t, g, cassette.Record(inprocess.New(g.srv), path, nil))
	replayGate(t, mustReplay(t, path, &cassette.Options{Strict: true}))
}
