package streamablehttp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// otherOrigin is a second server that counts the requests and the
// Authorization headers it receives.
type otherOrigin struct {
	srv      *httptest.Server
	requests atomic.Int64
	auths    atomic.Int64
}

func newOtherOrigin(t *testing.T) *otherOrigin {
	o := &otherOrigin{}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.requests.Add(1)
		if r.Header.Get("Authorization") != "" {
			o.auths.Add(1)
		}
	}))
	t.Cleanup(o.srv.Close)
	return o
}

// redirectCallLimit bounds a call whose POST is redirected: refused, it
// fails at once; followed, it may wait on a stream that never ends.
const redirectCallLimit = 10 * time.Second

// callWithin calls the tool "count" and fails t if the call has not
// returned within limit, so that a followed redirect fails the test here
// rather than at the test's deadline.
func callWithin(t *testing.T, cs *mcp.ClientSession, limit time.Duration) (*mcp.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(testkit.Context(t), limit)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count"})
	if ctx.Err() != nil {
		t.Fatalf("CallTool has not returned within %v (%v): the redirected POST was followed", limit, err)
	}
	return res, err
}

// homeAuths counts the Authorization headers the home origin receives.
func homeAuths(n *atomic.Int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer tok" {
			n.Add(1)
		}
		next.ServeHTTP(w, r)
	})
}

func TestRedirectedPOSTRefused(t *testing.T) {
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect, http.StatusFound} {
		for _, target := range []string{"other", "same"} {
			t.Run(http.StatusText(status)+"/"+target, func(t *testing.T) {
				leakcheck.Check(t)
				other := newOtherOrigin(t)
				var home atomic.Int64
				var r *rig
				r = newRig(t, rigConfig{middleware: func(next http.Handler) http.Handler {
					return homeAuths(&home, onFirstToolCall(func(w http.ResponseWriter, req *http.Request, _ http.Handler) {
						to := other.srv.URL + "/mcp"
						if target == "same" {
							to = r.srv.URL + "/elsewhere"
						}
						http.Redirect(w, req, to, status)
					})(next))
				}})
				cs := connect(t, newFactory(t, r.url(), &streamablehttp.Options{
					Credentials:          auth.Bearer(auth.NewToken("tok")),
					DisableStandaloneSSE: true,
				}))
				_, err := callWithin(t, cs, redirectCallLimit)
				if !errors.Is(err, &transport.PolicyError{Rule: transport.RuleRedirectedPOST}) {
					t.Fatalf("CallTool error = %v, want ErrRedirectedPOST", err)
				}
				var re *transport.RedirectError
				if !errors.As(err, &re) || re.Status != status || re.Method != http.MethodPost {
					t.Errorf("RedirectError = %+v, want status %d of a POST", re, status)
				}
				if n := other.auths.Load(); n != 0 {
					t.Errorf("other origin received %d Authorization headers, want 0", n)
				}
				if n := other.requests.Load(); n != 0 {
					t.Errorf("other origin received %d requests, want 0", n)
				}
				if home.Load() == 0 {
					t.Error("home origin received no credential")
				}
				if n := r.calls.Load(); n != 0 {
					t.Errorf("tool executed %d times, want 0", n)
				}
				// The session survives.
				if _, err := callCount(t, cs); err != nil {
					t.Fatalf("next CallTool: %v", err)
				}
			})
		}
	}
}

func TestRedirectedGETToOtherOriginRefused(t *testing.T) {
	leakcheck.Check(t)
	other := newOtherOrigin(t)
	redirected := make(chan struct{}, 1)
	r := newRig(t, rigConfig{middleware: func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.Method == http.MethodGet {
				http.Redirect(w, req, other.srv.URL+"/mcp", http.StatusFound)
				select {
				case redirected <- struct{}{}:
				default:
				}
				return
			}
			next.ServeHTTP(w, req)
		})
	}})
	// One attempt at the standalone stream: the go-sdk retries a failed GET
	// with backoff, which would only slow the test down.
	f := newFactory(t, r.url(), &streamablehttp.Options{
		Credentials:       auth.Bearer(auth.NewToken("tok")),
		MaxResumeAttempts: -1,
	})
	// The standalone stream's failure may end the session, even during
	// Connect; what matters is that nothing, credential or otherwise,
	// reached the other origin.
	if _, err := connectErr(t, f); err != nil && !strings.Contains(err.Error(), "redirect to another origin") {
		t.Errorf("Connect error = %v, want the refused redirect", err)
	}
	testkit.Await(t, redirected, "the standalone GET was redirected")
	if n := other.auths.Load(); n != 0 {
		t.Errorf("other origin received %d Authorization headers, want 0", n)
	}
	if n := other.requests.Load(); n != 0 {
		t.Errorf("other origin received %d requests, want 0", n)
	}
}

func TestRedirectedDELETEToOtherOriginRefused(t *testing.T) {
	leakcheck.Check(t)
	other := newOtherOrigin(t)
	var once atomic.Bool
	r := newRig(t, rigConfig{middleware: func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.Method == http.MethodDelete && once.CompareAndSwap(false, true) {
				http.Redirect(w, req, other.srv.URL+"/mcp", http.StatusTemporaryRedirect)
				return
			}
			next.ServeHTTP(w, req)
		})
	}})
	cs := connect(t, newFactory(t, r.url(), &streamablehttp.Options{
		Credentials: auth.Bearer(auth.NewToken("tok")), DisableStandaloneSSE: true,
	}))
	err := cs.Close()
	if !errors.Is(err, &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect}) {
		t.Errorf("Close error = %v, want ErrCrossOriginRedirect", err)
	}
	// End the server's session, which the refused DELETE left open.
	req, _ := http.NewRequest(http.MethodDelete, r.url(), nil)
	req.Header.Set("Mcp-Session-Id", cs.ID())
	resp, err := r.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n := other.requests.Load(); n != 0 {
		t.Errorf("other origin received %d requests, want 0", n)
	}
}
