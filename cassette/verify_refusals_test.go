package cassette_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverNonce is the DPoP nonce a nonceServer asks for.
const serverNonce = "nonce-1"

// A nonceServer is a protected counter over Streamable HTTP: its token
// endpoint (/token) issues DPoP-bound tokens, and it refuses a tools/call
// whose DPoP proof lacks its nonce with 401 use_dpop_nonce (RFC 9449 §9),
// before acting on it, as a server that asks for a nonce mid-session
// does. It counts the tools/call POSTs that reach it and those it refused.
type nonceServer struct {
	*httpServer
	c        *counter
	mu       sync.Mutex // guards posts and refusals
	posts    int        // tools/call POSTs
	refusals int        // of them, refused for want of the nonce
	refuse   bool       // refuse every tools/call, invalid_token
}

func newNonceServer(t *testing.T, stateless bool) *nonceServer {
	t.Helper()
	s := &nonceServer{c: statefulCounter()}
	s.httpServer = newHTTPServer(t, s.c, stateless, s.middleware)
	return s
}

func (s *nonceServer) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/token" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"access_token":"dpop-bound-token","token_type":"DPoP","expires_in":3600}`)
			return
		}
		if req.Method == http.MethodPost {
			switch s.refusal(req) {
			case refuseNonce:
				w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce", error_description="a nonce is required"`)
				w.Header().Set("DPoP-Nonce", serverNonce)
				w.WriteHeader(http.StatusUnauthorized)
				return
			case refuseToken:
				w.Header().Set("WWW-Authenticate", `DPoP error="invalid_token"`)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
		}
		next.ServeHTTP(w, req)
	})
}

// How a nonceServer refuses a request.
const (
	refuseNot   = iota
	refuseNonce // 401 use_dpop_nonce: the client sends it again with the nonce
	refuseToken // 401 invalid_token: nothing to send again with
)

// refusal counts a tools/call POST and says how it is refused.
func (s *nonceServer) refusal(req *http.Request) int {
	body, err := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	var m struct {
		Method string `json:"method"`
	}
	if err != nil || json.Unmarshal(body, &m) != nil || m.Method != "tools/call" {
		return refuseNot
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.posts++
	switch {
	case s.refuse:
		s.refusals++
		return refuseToken
	case proofNonce(req.Header.Get("DPoP")) != serverNonce:
		s.refusals++
		return refuseNonce
	}
	return refuseNot
}

// counts returns the tools/call POSTs and refusals so far.
func (s *nonceServer) counts() (posts, refusals int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.posts, s.refusals
}

// proofNonce returns the nonce claim of a DPoP proof (a JWT; its
// signature is not checked here).
func proofNonce(proof string) string {
	parts := strings.Split(proof, ".")
	if len(parts) != 3 {
		return ""
	}
	data, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var claims struct {
		Nonce string `json:"nonce"`
	}
	json.Unmarshal(data, &claims)
	return claims.Nonce
}

// factory returns a Streamable HTTP factory of s with a CI job's
// credentials: a fresh DPoP key, which has seen no nonce, and the client
// credentials grant at s's token endpoint.
func (s *nonceServer) factory(t *testing.T) *streamablehttp.Factory {
	t.Helper()
	key, err := auth.NewDPoPKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	src, err := auth.NewClientCredentials(&auth.ClientCredentialsConfig{
		ClientID: "ci", ClientSecret: auth.NewSecret("ci-secret"), TokenURL: s.URL + "/token",
		HTTPClient: key.Client(&http.Client{Transport: tr}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return httpLive(t, s.url(), &streamablehttp.Options{Credentials: src, Base: tr})
}

// recordNonceSession records, at revision rev, a session of one count
// call against a nonceServer: the call's first POST is refused for want
// of the nonce and sent again, id unchanged, with it. It fails the test
// unless the cassette holds that refusal and the tool ran once.
func recordNonceSession(t *testing.T, path string, stateless bool, rev string) {
	t.Helper()
	s := newNonceServer(t, stateless)
	data, outs := record(t, path, s.factory(t), nil, rev, script[0])
	if outs[0].Err != "" {
		t.Fatalf("recorded call: %s", outs[0].Err)
	}
	if bytes.Count(data, []byte(`"status":401`)) != 1 || bytes.Count(data, []byte(`"method":"tools/call"`)) != 2 {
		t.Fatalf("the recording does not hold the call refused 401 and sent again: the test proves nothing:\n%s", data)
	}
	if posts, refusals := s.counts(); posts != 2 || refusals != 1 || s.c.calls.Load() != 1 {
		t.Fatalf("recording: %d tools/call POSTs, %d refused, %d executions; want 2, 1, 1", posts, refusals, s.c.calls.Load())
	}
}

// callsTo is a live factory that counts the tools/call requests its
// server is sent.
type callsTo struct {
	transport.Factory
	n *atomic.Int64
}

func newCallsTo(f transport.Factory) callsTo { return callsTo{f, new(atomic.Int64)} }

func (f callsTo) Unwrap() transport.Factory { return f.Factory }

func (f callsTo) Transport() (mcp.Transport, error) {
	tr, err := f.Factory.Transport()
	return callsToTransport{tr, f.n}, err
}

type callsToTransport struct {
	mcp.Transport
	n *atomic.Int64
}

func (t callsToTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	return callsToConn{c, t.n}, err
}

type callsToConn struct {
	mcp.Connection
	n *atomic.Int64
}

func (c callsToConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Request); ok && r.Method == "tools/call" {
		c.n.Add(1)
	}
	return c.Connection.Write(ctx, m)
}

// TestVerifySendsARecoveredRefusalOnce: a cassette of a protected server
// that asked for a DPoP nonce mid-session (a tools/call refused 401
// use_dpop_nonce before it ran, and sent again, id unchanged, with the
// nonce) verifies with the call sent once: the tool runs once at the live
// server, and nothing drifts, whether the live server asks for the nonce
// again (the live factory's credentials recover, as the recorded
// client's did: one refusal, one execution), asks for none, or is the
// same server in-process (a stdio or in-process server gets both copies
// without the rule: the go-sdk's refuses an id in flight, and one that
// has answered the first copy runs the second).
func TestVerifySendsARecoveredRefusalOnce(t *testing.T) {
	for _, rv := range []struct {
		rev       string
		stateless bool
	}{{rev2025, false}, {rev2026, true}} {
		t.Run(rv.rev, func(t *testing.T) {
			leakcheck.Check(t)
			path := tempPath(t, "nonce.jsonl")
			recordNonceSession(t, path, rv.stateless, rv.rev)
			t.Run("protected", func(t *testing.T) {
				live := newNonceServer(t, rv.stateless)
				if err := verify(t, path, live.factory(t), nil); err != nil {
					t.Errorf("Verify: %v", err)
				}
				posts, refusals := live.counts()
				if n := live.c.calls.Load(); n != 1 || posts != 2 || refusals != 1 {
					t.Errorf("the live server: %d executions, %d tools/call POSTs, %d refused; want 1, 2, 1 (the live credentials recover once)", n, posts, refusals)
				}
			})
			t.Run("unprotected", func(t *testing.T) {
				c := statefulCounter()
				if err := verify(t, path, httpLive(t, newHTTPServer(t, c, rv.stateless, nil).url(), nil), nil); err != nil {
					t.Errorf("Verify: %v", err)
				}
				if n := c.calls.Load(); n != 1 {
					t.Errorf("the live server ran the tool %d times, want 1", n)
				}
			})
			t.Run("in-process", func(t *testing.T) {
				c := newCounter()
				live := newCallsTo(inprocess.New(c.srv))
				if err := verify(t, path, live, nil); err != nil {
					t.Errorf("Verify: %v", err)
				}
				if sent, n := live.n.Load(), c.calls.Load(); sent != 1 || n != 1 {
					t.Errorf("the live server was sent the call %d times and ran it %d times, want 1 and 1", sent, n)
				}
			})
		})
	}
}

// TestVerifyChecksAnUnrecoveredRefusal: a tools/call refused 401 that the
// recorded client did not send again (its token refused, invalid_token)
// is verified as recorded: sent once, and a live server that refuses it
// too does not drift, while one that now answers it does.
func TestVerifyChecksAnUnrecoveredRefusal(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "refused.jsonl")
	rec := newNonceServer(t, false)
	rec.refuse = true
	data, outs := record(t, path, rec.factory(t), nil, rev2025, script[0])
	if outs[0].Err == "" || bytes.Count(data, []byte(`"status":401`)) != 1 || bytes.Count(data, []byte(`"method":"tools/call"`)) != 1 {
		t.Fatalf("the recording does not hold one tools/call refused 401 and not sent again (outcome %+v): the test proves nothing:\n%s", outs[0], data)
	}
	t.Run("refused again", func(t *testing.T) {
		live := newNonceServer(t, false)
		live.refuse = true
		if err := verify(t, path, live.factory(t), nil); err != nil {
			t.Errorf("Verify against a server that refuses the call too: %v", err)
		}
		if posts, _ := live.counts(); posts != 1 {
			t.Errorf("the live server got %d tools/call POSTs, want 1: the refused call is verified", posts)
		}
	})
	t.Run("answered", func(t *testing.T) {
		c := statefulCounter()
		err := verify(t, path, httpLive(t, newHTTPServer(t, c, false, nil).url(), nil), nil)
		var derr *cassette.DriftError
		if !errors.As(err, &derr) || len(derr.Drifts) != 1 || derr.Drifts[0].Reason != "answered differently" {
			t.Fatalf("Verify against a server that answers the call = %v, want a *DriftError with the call answered differently", err)
		}
		if n := c.calls.Load(); n != 1 {
			t.Errorf("the live server ran the tool %d times, want 1", n)
		}
	})
}

// TestVerifySendsAgainWhatWasNotRefusedForCredentials: a call sent twice,
// id unchanged, after a refusal that is not 401 or 403 (a 503) is not a
// refusal the credentials recover from: verify sends both copies, as
// recorded.
func TestVerifySendsAgainWhatWasNotRefusedForCredentials(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "nonce.jsonl")
	recordNonceSession(t, path, false, rev2025)
	c := editCassette(t, load(t, path),
		`"status":401,"headers":{"Dpop-Nonce":["nonce-1"],"Www-Authenticate":["DPoP error=\"use_dpop_nonce\", error_description=\"a nonce is required\""]}`,
		`"status":503`)
	live := newCallsTo(inprocess.New(newCounter().srv))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cassette.Verify(ctx, c, live, nil); err == nil {
		t.Errorf("Verify = nil, want an error: the live session holds the call twice, the recorded one once answered")
	}
	if n := live.n.Load(); n != 2 {
		t.Errorf("the live server was sent the call %d times, want 2: both recorded copies are sent", n)
	}
}

// TestCompareLeavesOutARecoveredRefusal: a session whose call was refused
// for want of a DPoP nonce and sent again compares with the same session
// recorded from a server that asked for none without drift, either way
// round: the refused copy is the credentials' doing.
func TestCompareLeavesOutARecoveredRefusal(t *testing.T) {
	leakcheck.Check(t)
	refused := tempPath(t, "nonce.jsonl")
	recordNonceSession(t, refused, false, rev2025)
	plain := tempPath(t, "plain.jsonl")
	record(t, plain, httpLive(t, newHTTPServer(t, statefulCounter(), false, nil).url(), nil), nil, rev2025, script[0])
	for _, pair := range [][2]string{{refused, plain}, {plain, refused}} {
		ds, err := cassette.Compare(load(t, pair[0]), load(t, pair[1]), nil)
		if err != nil || len(ds) != 0 {
			t.Errorf("Compare(%s, %s) = %+v, %v; want no drift", pair[0], pair[1], ds, err)
		}
	}
}
