package cassette_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMismatchTypedAtTheCall: a call the cassette does not hold fails at
// the call itself with the *MismatchError (errors.As and errors.Is on the
// CallTool error), classed client.ClassMismatch, in-process and over HTTP.
func TestMismatchTypedAtTheCall(t *testing.T) {
	leakcheck.Check(t)
	overHTTP := tempPath(t, "http.jsonl")
	fake, err := fakeserver.New(&fakeserver.Options{Catalog: "docs"})
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	hs, err := fake.StartHTTP("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hs.Close()
	rec := open(t, overHTTP, httpLive(t, hs.URL, nil), &cassette.Options{Mode: cassette.ModeRecord})
	if _, err := docsSession(t, rec, nil); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{"inprocess": oldClientCassette, "http": overHTTP} {
		t.Run(name, func(t *testing.T) {
			f := open(t, path, nil, &cassette.Options{AllowUnused: true})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := client.Connect(ctx, client.Definition{Name: "docs", Profile: client.Profile20251125, Transport: f}, nil)
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer c.Close()
			_, err = c.CallTool(ctx, "lookup", map[string]any{"query": "not recorded"})
			var merr *cassette.MismatchError
			if !errors.As(err, &merr) || merr.Cassette != path || merr.Method != "tools/call" {
				t.Fatalf("CallTool = %v, want a *cassette.MismatchError naming %s", err, path)
			}
			if !errors.Is(err, transport.ErrMismatch) {
				t.Errorf("errors.Is(err, ErrMismatch) false on %v", err)
			}
			var cerr *client.Error
			if !errors.As(err, &cerr) || cerr.Class != client.ClassMismatch || cerr.Class.String() != "mismatch" {
				t.Errorf("class of %v, want mismatch", err)
			}
		})
	}
}

// TestMismatchHoldsNothing: a mismatched call stands for the recorded call
// it differs from, so the answers recorded after it are not held for it:
// with a bound of an hour, the next call is answered at once.
func TestMismatchHoldsNothing(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "held.jsonl")
	recordCounter(t, path, script[0], script[2])
	f := open(t, path, nil, &cassette.Options{Wait: time.Hour})
	outs, _ := session(t, f, rev2025, call{Tool: "count", Args: map[string]any{"label": "other"}}, script[2])
	if outs[0].Err == "" || outs[1].Text != "second #2" {
		t.Errorf("outcomes %+v, want a mismatch then the recorded second call", outs)
	}
	var merr *cassette.MismatchError
	if err := f.Close(); !errors.As(err, &merr) {
		t.Errorf("Close = %v, want the mismatch", err)
	}
}

// TestWaitSpentOnlyWhileHeld: the bound runs while an answer is held for
// requests the client has not made, not while the client works on what
// the server asked it (here a sampling handler that takes an hour, on
// testing/synctest's clock, against a bound of a minute); a call whose
// answer is held for a skipped call still fails at the bound.
func TestWaitSpentOnlyWhileHeld(t *testing.T) {
	path := tempPath(t, "slow.jsonl")
	recordCounter(t, path, script...)
	synctest.Test(t, func(t *testing.T) {
		f, err := cassette.Open(path, nil, &cassette.Options{Wait: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		tr, _ := f.Transport()
		slow := mcp.NewClient(&mcp.Implementation{Name: "tester", Version: "v1"}, &mcp.ClientOptions{
			//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.ClientOptions.CreateMessageHandler, mcp.CreateMessageResult
			CreateMessageHandler: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				time.Sleep(time.Hour) // a slow model, on the bubble's clock
				//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageResult
				return &mcp.CreateMessageResult{Model: "fake", Role: "assistant", Content: &mcp.TextContent{Text: "hi"}}, nil
			},
			ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
			},
		})
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.Client.AddRoots, mcp.Root
		slow.AddRoots(&mcp.Root{URI: "file:///work", Name: "work"})
		ctx := context.Background()
		cs, err := slow.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rev2025})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range script {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args})
			if err != nil || res.IsError {
				t.Fatalf("%s: %v %+v (the bound ran while the client was sampling)", c.Tool, err, res)
			}
		}
		cs.Close()
		if err := f.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		f, err := cassette.Open(path, nil, &cassette.Options{Wait: 5 * time.Second, AllowUnused: true})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		outs, _ := session(t, f, rev2025, script[2]) // its answer waits for the two calls before it
		if outs[0].Err == "" || time.Since(start) != 5*time.Second {
			t.Errorf("a call held for skipped calls: %+v after %v, want a mismatch after exactly the bound", outs, time.Since(start))
		}
		f.Close()
	})
}
