package streamablehttp_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// rotatingSource is an auth.Authorizer whose Authorize moves to the next
// token, as an OAuth flow would obtain a new one.
type rotatingSource struct {
	mu         sync.Mutex // guards current
	current    string
	next       []string
	authorized atomic.Int64
}

func (s *rotatingSource) Credential(context.Context, *http.Request) (auth.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current == "" {
		return auth.Token{}, nil
	}
	return auth.NewToken(s.current), nil
}

func (s *rotatingSource) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	resp.Body.Close()
	s.authorized.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.next) == 0 {
		return errors.New("no more tokens")
	}
	s.current, s.next = s.next[0], s.next[1:]
	return nil
}

// requireToken answers 401 to any request without the valid token, and
// counts the tools/call POSTs that reach it.
type requireToken struct {
	valid     atomic.Value // string
	toolCalls atomic.Int64
}

func (rt *requireToken) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isToolCall(r) {
			rt.toolCalls.Add(1)
		}
		if r.Header.Get("Authorization") != "Bearer "+rt.valid.Load().(string) {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func TestUnauthorizedCallIsNotResent(t *testing.T) {
	leakcheck.Check(t)
	gate := &requireToken{}
	gate.valid.Store("t1")
	r := newRig(t, rigConfig{middleware: gate.middleware})
	// No token at first: initialize gets 401, the flow obtains t1, and
	// initialize (which executes nothing) is sent again.
	src := &rotatingSource{next: []string{"t1", "t2"}}
	cs := connect(t, newFactory(t, r.url(), &streamablehttp.Options{Credentials: src, DisableStandaloneSSE: true}))
	if n := src.authorized.Load(); n != 1 {
		t.Fatalf("authorized %d times during connect, want 1", n)
	}

	// The server revokes t1: the call is refused with 401, the flow
	// obtains t2, and the call is not sent again.
	gate.valid.Store("t2")
	_, err := callCount(t, cs)
	if !errors.Is(err, streamablehttp.ErrReauthorized) {
		t.Fatalf("CallTool error = %v, want ErrReauthorized", err)
	}
	if n := gate.toolCalls.Load(); n != 1 {
		t.Errorf("server received %d tools/call POSTs, want 1", n)
	}
	if n := r.calls.Load(); n != 0 {
		t.Errorf("tool executed %d times, want 0", n)
	}

	// The caller's own second call carries t2.
	if _, err := callCount(t, cs); err != nil {
		t.Fatalf("second CallTool: %v", err)
	}
	if n := r.calls.Load(); n != 1 {
		t.Errorf("tool executed %d times, want 1", n)
	}

	// A flow that fails reports ErrAuth.
	gate.valid.Store("t3")
	if _, err := callCount(t, cs); !errors.Is(err, transport.ErrAuth) {
		t.Errorf("CallTool error = %v, want ErrAuth", err)
	}
	gate.valid.Store("t2") // so that Close's DELETE ends the server's session
}

func TestUnauthorizedWithoutAuthorizer(t *testing.T) {
	leakcheck.Check(t)
	gate := &requireToken{}
	gate.valid.Store("right")
	r := newRig(t, rigConfig{middleware: gate.middleware})
	f := newFactory(t, r.url(), &streamablehttp.Options{Credentials: auth.Bearer(auth.NewToken("wrong"))})
	cs, err := connectErr(t, f)
	if err == nil {
		cs.Close()
		t.Fatal("Connect succeeded with a refused credential")
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Connect = %v: it waited for the test's deadline, want it refused at once", err)
	}
	if !errors.Is(err, transport.ErrAuth) || !strings.Contains(err.Error(), "401") {
		t.Errorf("Connect error = %v, want ErrAuth with status 401", err)
	}
}

// A request that executes nothing (here tools/list, as during discovery
// after a scope step-up) is sent again after the flow, so the session goes
// on; a tools/call in the same situation is not (see above).
func TestUnauthorizedListIsResent(t *testing.T) {
	leakcheck.Check(t)
	gate := &requireToken{}
	gate.valid.Store("t1")
	r := newRig(t, rigConfig{middleware: gate.middleware})
	src := &rotatingSource{next: []string{"t1", "t2"}}
	cs := connect(t, newFactory(t, r.url(), &streamablehttp.Options{Credentials: src, DisableStandaloneSSE: true}))
	gate.valid.Store("t2")
	res, err := cs.ListTools(testkit.Context(t), nil)
	if err != nil {
		t.Fatalf("ListTools after the server revoked the token: %v", err)
	}
	if len(res.Tools) == 0 {
		t.Error("ListTools returned no tools")
	}
	if n := src.authorized.Load(); n != 2 {
		t.Errorf("authorized %d times, want 2", n)
	}
}
