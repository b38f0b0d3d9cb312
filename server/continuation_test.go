package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// refusedAs fails t unless err is the JSON-RPC error code whose message
// holds what.
func refusedAs(t *testing.T, name string, err error, code int64, what string) {
	t.Helper()
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != code || !strings.Contains(werr.Message, what) {
		t.Errorf("%s: %v; want the JSON-RPC error %d naming %q", name, err, code, what)
	}
}

// TestContinuationUsedOnce continues one call, then replays its state three
// times: the first continuation completes the call, and every replay is
// refused with invalid params before the handler runs.
func TestContinuationUsedOnce(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "docs", "v1", nil)
	var c confirmer
	mustRegister(t, s, confirmTool("rm"), c.handle)
	cs := manual(t, s, elicitCaps)
	state := ask(t, cs, "rm", `{"path":"/tmp/a"}`)
	if got, err := continueCall(cs, "rm", `{"path":"/tmp/a"}`, state); err != nil || !strings.HasPrefix(got, "accept rm") {
		t.Fatalf("the continuation = %q, %v", got, err)
	}
	runs := c.runs.Load()
	for i := range 3 {
		_, err := continueCall(cs, "rm", `{"path":"/tmp/a"}`, state)
		refusedAs(t, fmt.Sprintf("replay %d", i+1), err, jsonrpc.CodeInvalidParams, "used before")
	}
	if got := c.runs.Load() - runs; got != 0 {
		t.Errorf("the handler ran %d times for 3 replays, want 0", got)
	}
	if got := c.completed.Load(); got != 1 {
		t.Errorf("%d completed executions for one call, want 1", got)
	}
}

// TestContinuationExpires: a state is continued up to StateTTL after it was
// issued, to the nanosecond, and refused after it, on a synctest clock.
func TestContinuationExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl = time.Minute
		s := newServer(t, "docs", "v1", &Options{StateTTL: ttl})
		var c confirmer
		mustRegister(t, s, confirmTool("rm"), c.handle)
		cs := manual(t, s, elicitCaps)
		state := ask(t, cs, "rm", `{}`)
		time.Sleep(ttl) // the bubble's clock moves; nothing is waited for
		if got, err := continueCall(cs, "rm", `{}`, state); err != nil || !strings.HasPrefix(got, "accept rm") {
			t.Errorf("continued at StateTTL: %q, %v; want it accepted", got, err)
		}
		state = ask(t, cs, "rm", `{}`)
		time.Sleep(ttl + time.Nanosecond) // the bubble's clock, one past the bound
		runs := c.runs.Load()
		_, err := continueCall(cs, "rm", `{}`, state)
		refusedAs(t, "continued past StateTTL", err, jsonrpc.CodeInvalidParams, "expired")
		if c.runs.Load() != runs {
			t.Errorf("the handler ran for an expired state")
		}
	})
}

// TestContinuationWithoutTimeBound: a negative StateTTL seals no time, and
// such a state is refused by a server that bounds the time.
func TestContinuationWithoutTimeBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		key := []byte(strings.Repeat("k", 32))
		s := newServer(t, "docs", "v1", &Options{StateKey: key, StateTTL: -1})
		var c confirmer
		mustRegister(t, s, confirmTool("rm"), c.handle)
		cs := manual(t, s, elicitCaps)
		state := ask(t, cs, "rm", `{}`)
		time.Sleep(24 * time.Hour) // the bubble's clock moves; nothing is waited for
		if got, err := continueCall(cs, "rm", `{}`, state); err != nil || !strings.HasPrefix(got, "accept rm") {
			t.Errorf("continued a day later: %q, %v; want it accepted", got, err)
		}
		bounded := newServer(t, "docs", "v1", &Options{StateKey: key})
		mustRegister(t, bounded, confirmTool("rm"), c.handle)
		_, err := continueCall(manual(t, bounded, elicitCaps), "rm", `{}`, ask(t, cs, "rm", `{}`))
		refusedAs(t, "a state with no time at a server with StateTTL", err, jsonrpc.CodeInvalidParams, "no issue time")
	})
}

// TestContinuationReplicas: replicas that share the key continue each
// other's calls; with a shared store a state used at one is refused at the
// other, and with a store each, it is accepted once more at the other (the
// limit StateStore documents), then refused there too.
func TestContinuationReplicas(t *testing.T) {
	leakcheck.Check(t)
	key := []byte(strings.Repeat("r", 32))
	var c confirmer
	replica := func(store StateStore) *mcp.ClientSession {
		s := newServer(t, "docs", "v1", &Options{StateKey: key, StateStore: store})
		mustRegister(t, s, confirmTool("rm"), c.handle)
		return manual(t, s, elicitCaps)
	}
	shared := NewMemoryStateStore(0)
	a, b := replica(shared), replica(shared)
	state := ask(t, a, "rm", `{}`)
	if _, err := continueCall(b, "rm", `{}`, state); err != nil {
		t.Fatalf("continued at the other replica: %v", err)
	}
	_, err := continueCall(a, "rm", `{}`, state)
	refusedAs(t, "replayed at the first replica, shared store", err, jsonrpc.CodeInvalidParams, "used before")

	a, b = replica(nil), replica(nil)
	state = ask(t, a, "rm", `{}`)
	if _, err := continueCall(a, "rm", `{}`, state); err != nil {
		t.Fatal(err)
	}
	if _, err := continueCall(b, "rm", `{}`, state); err != nil {
		t.Errorf("replayed at a replica with its own store: %v; the documented limit is that it is accepted once there", err)
	}
	_, err = continueCall(b, "rm", `{}`, state)
	refusedAs(t, "replayed twice at a replica with its own store", err, jsonrpc.CodeInvalidParams, "used before")
	if got := c.completed.Load(); got != 3 {
		t.Errorf("completed executions = %d, want 3", got)
	}
}

// failingStore cannot record anything.
type failingStore struct{}

func (failingStore) Use(context.Context, string, time.Time) (bool, error) {
	return false, errors.New("storage unreachable")
}

// TestContinuationStoreFails: a store that cannot record the use refuses
// the continuation as the server busy, before the handler runs.
func TestContinuationStoreFails(t *testing.T) {
	s := newServer(t, "docs", "v1", &Options{StateStore: failingStore{}})
	var c confirmer
	mustRegister(t, s, confirmTool("rm"), c.handle)
	cs := manual(t, s, elicitCaps)
	state := ask(t, cs, "rm", `{}`)
	runs := c.runs.Load()
	_, err := continueCall(cs, "rm", `{}`, state)
	refusedAs(t, "a store that fails", err, jsonrpc.CodeInternalError, "storage unreachable")
	if c.runs.Load() != runs {
		t.Errorf("the handler ran with the use unrecorded")
	}
}

// TestMemoryStateStoreBound: the store remembers up to its bound, refuses
// the next use with errTooManyStates, and makes room as states expire.
func TestMemoryStateStoreBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		m := NewMemoryStateStore(2)
		soon, later := time.Now().Add(time.Minute), time.Now().Add(time.Hour)
		use := func(id string, expires time.Time) (bool, error) { return m.Use(ctx, id, expires) }
		for _, tc := range []struct {
			id      string
			expires time.Time
			first   bool
			full    bool
		}{
			{"a", soon, true, false},
			{"b", later, true, false},
			{"a", soon, false, false},
			{"c", later, false, true},
		} {
			first, err := use(tc.id, tc.expires)
			if first != tc.first || errors.Is(err, errTooManyStates) != tc.full {
				t.Errorf("Use(%s) = %v, %v; want first %v, full %v", tc.id, first, err, tc.first, tc.full)
			}
		}
		time.Sleep(time.Minute) // the bubble's clock moves; nothing is waited for
		if first, err := use("c", later); !first || err != nil {
			t.Errorf("Use(c) once a expired = %v, %v; want its first use", first, err)
		}
		if first, err := use("b", later); first || err != nil {
			t.Errorf("Use(b) again = %v, %v; want it remembered", first, err)
		}
		never := NewMemoryStateStore(1)
		never.Use(ctx, "x", time.Time{})
		time.Sleep(1000 * time.Hour) // the bubble's clock moves; nothing is waited for
		if _, err := never.Use(ctx, "y", time.Time{}); !errors.Is(err, errTooManyStates) {
			t.Errorf("a store full of states that never expire took another: %v", err)
		}
	})
}

// TestInputResponsesWithoutState: answers sent without the state of the
// result that asked are refused with invalid params before the handler
// runs, for a tool, a prompt and a resource.
func TestInputResponsesWithoutState(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "docs", "v1", nil)
	var c confirmer
	mustRegister(t, s, confirmTool("rm"), c.handle)
	runs := 0
	if err := s.RegisterPrompt(&mcp.Prompt{Name: "p"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		runs++
		return &mcp.GetPromptResult{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.RegisterResource(&mcp.Resource{URI: "file:///r", Name: "r"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		runs++
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///r", Text: "r"}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	cs := manual(t, s, elicitCaps)
	const what = "inputResponses sent without one"
	_, err := continueCall(cs, "rm", `{}`, "")
	refusedAs(t, "tools/call", err, jsonrpc.CodeInvalidParams, what)
	_, err = cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "p", InputResponses: accept})
	refusedAs(t, "prompts/get", err, jsonrpc.CodeInvalidParams, what)
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "file:///r", InputResponses: accept})
	refusedAs(t, "resources/read", err, jsonrpc.CodeInvalidParams, what)
	if c.runs.Load() != 0 || runs != 0 {
		t.Errorf("handlers ran %d and %d times, want 0", c.runs.Load(), runs)
	}
}

// TestContinuationBelongsToPrincipal: over HTTP behind the go-sdk's bearer
// middleware, a state issued to alice continues her call, and is refused
// for bob before the handler runs.
func TestContinuationBelongsToPrincipal(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "docs", "v1", nil)
	var c confirmer
	mustRegister(t, s, confirmTool("rm"), c.handle)
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: token, Expiration: time.Now().Add(time.Hour)}, nil
	}
	h := httpHandler(t, s, nil)
	ts := httptest.NewServer(auth.RequireBearerToken(verify, nil)(h))
	t.Cleanup(func() { h.Close(); ts.Close() })
	eliciting := strings.Replace(meta, `clientCapabilities":{}`, `clientCapabilities":{"elicitation":{}}`, 1)
	callAs := func(user, params string) rpcReply {
		_, r, _ := send(t, ts, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rm","arguments":{}`+params+`,`+eliciting+`}}`,
			header{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "rm", "Authorization", "Bearer " + user})
		return r
	}
	var asked struct {
		RequestState string `json:"requestState"`
	}
	if r := callAs("alice", ""); json.Unmarshal(r.Result, &asked) != nil || asked.RequestState == "" {
		t.Fatalf("alice's call did not ask: %+v %s", r.Error, r.Result)
	}
	cont := `,"inputResponses":{"ok":{"action":"accept","content":{}}},"requestState":"` + asked.RequestState + `"`
	runs := c.runs.Load()
	if r := callAs("bob", cont); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("bob continues alice's call: %+v; want invalid params", r)
	}
	if c.runs.Load() != runs {
		t.Errorf("the handler ran for bob")
	}
	if r := callAs("alice", cont); r.Error != nil {
		t.Errorf("alice continues her call: %+v", r.Error)
	}
	if got := c.completed.Load(); got != 1 {
		t.Errorf("completed executions = %d, want 1", got)
	}
}

// BenchmarkMemoryStateStore reports the heap a memory store holds per
// remembered state:
//
//	go test -run '^$' -bench MemoryStateStore -benchtime 1x ./server/
func BenchmarkMemoryStateStore(b *testing.B) {
	const n = 100_000
	for range b.N {
		before := liveHeap()
		m := NewMemoryStateStore(n)
		expires := time.Now().Add(time.Hour)
		for i := range n {
			m.Use(context.Background(), fmt.Sprintf("%043d", i), expires)
		}
		b.ReportMetric(float64(liveHeap()-before)/n, "heap-B/state")
		if first, _ := m.Use(context.Background(), "0", expires); first {
			b.Fatal("the store forgot")
		}
	}
}
