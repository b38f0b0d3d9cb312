package sse_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/sse"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// endpointServer answers the session GET with the given endpoint event
// and then holds the stream open until the client leaves.
func endpointServer(t *testing.T, endpoint func(home string) string) *rig {
	var r *rig
	r = newRig(t, func(http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: endpoint\ndata: %s\n\n", endpoint(r.srv.URL))
			w.(http.Flusher).Flush()
			<-req.Context().Done()
		})
	})
	return r
}

func TestEndpointOnAnotherOriginRefused(t *testing.T) {
	other := newOtherOrigin(t)
	host := strings.TrimPrefix(other.srv.URL, "http://")
	for name, endpoint := range map[string]func(home string) string{
		"absolute":        func(string) string { return other.srv.URL + "/messages?sessionid=x" },
		"scheme-relative": func(string) string { return "//" + host + "/messages?sessionid=x" },
		"other scheme": func(home string) string {
			return strings.Replace(home, "http://", "https://", 1) + "/messages?sessionid=x"
		},
		"other port": func(home string) string { return home[:strings.LastIndex(home, ":")] + ":1/messages" },
	} {
		t.Run(name, func(t *testing.T) {
			leakcheck.Check(t)
			r := endpointServer(t, endpoint)
			f := newFactory(t, r.url(), &sse.Options{Credentials: auth.Bearer(auth.NewToken("tok"))})
			_, err := connectErr(t, f)
			var ee *sse.EndpointError
			if !errors.As(err, &ee) || !errors.Is(err, transport.ErrPolicy) {
				t.Fatalf("Connect error = %v, want an EndpointError matching transport.ErrPolicy", err)
			}
			if ee.Origin == f.Origin().String() {
				t.Errorf("EndpointError = %+v, want one naming another origin", ee)
			}
			other.check(t)
			if diff := strings.Join(r.seen(), ","); diff != "GET " {
				t.Errorf("home origin saw %q, want only the session GET", diff)
			}
		})
	}
}

func TestEndpointOnAnotherOriginIsAPolicyFailure(t *testing.T) {
	leakcheck.Check(t)
	other := newOtherOrigin(t)
	r := endpointServer(t, func(string) string { return other.srv.URL + "/messages" })
	_, err := client.Connect(testkit.Context(t), client.Definition{
		Name: "rig", Profile: client.ProfileLegacy,
		Transport: newFactory(t, r.url(), &sse.Options{Credentials: auth.Bearer(auth.NewToken("tok"))}),
	}, nil)
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Class != client.ClassPolicy || !errors.As(err, new(*sse.EndpointError)) {
		t.Errorf("client.Connect error = %v, want a policy failure wrapping an EndpointError", err)
	}
	other.check(t)
}

func TestEndpointEventRequired(t *testing.T) {
	for name, body := range map[string]string{
		"message first": "event: message\ndata: {}\n\n",
		"malformed":     "event endpoint\n\n",
		"ends first":    ": comment\n\n",
	} {
		t.Run(name, func(t *testing.T) {
			leakcheck.Check(t)
			r := newRig(t, func(http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
					w.Header().Set("Content-Type", "text/event-stream")
					fmt.Fprint(w, body)
				})
			})
			_, err := connectErr(t, newFactory(t, r.url(), nil))
			if !errors.Is(err, transport.ErrProtocol) || !strings.HasPrefix(err.Error(), "sse: no endpoint event: ") {
				t.Errorf("Connect error = %v, want \"sse: no endpoint event\" matching transport.ErrProtocol", err)
			}
		})
	}
}

// redirectCallLimit bounds a call whose POST is redirected: refused, it
// fails at once; followed, it may wait on a stream that never ends.
const redirectCallLimit = 10 * time.Second

func TestRedirectedPOSTRefused(t *testing.T) {
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect, http.StatusFound} {
		for _, target := range []string{"other", "same"} {
			t.Run(http.StatusText(status)+"/"+target, func(t *testing.T) {
				leakcheck.Check(t)
				other := newOtherOrigin(t)
				r := newRig(t, func(next http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
						if rpcMethod(req) == "tools/call" {
							to := other.srv.URL + "/messages"
							if target == "same" {
								to = req.URL.String() + "&again=1" // the same session endpoint
							}
							http.Redirect(w, req, to, status)
							return
						}
						next.ServeHTTP(w, req)
					})
				})
				cs := connect(t, newFactory(t, r.url(), &sse.Options{Credentials: auth.Bearer(auth.NewToken("tok"))}))
				ctx, cancel := context.WithTimeout(testkit.Context(t), redirectCallLimit)
				defer cancel()
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count"})
				if ctx.Err() != nil {
					t.Fatalf("CallTool has not returned within %v (%v): the redirected POST was followed", redirectCallLimit, err)
				}
				if !errors.Is(err, &transport.PolicyError{Rule: transport.RuleRedirectedPOST}) {
					t.Fatalf("CallTool error = %v, want RuleRedirectedPOST", err)
				}
				var re *transport.RedirectError
				if !errors.As(err, &re) || re.Status != status || re.Method != http.MethodPost {
					t.Errorf("RedirectError = %+v, want status %d of a POST", re, status)
				}
				other.check(t)
				if n := r.calls.Load(); n != 0 {
					t.Errorf("tool executed %d times, want 0", n)
				}
				if n := count(r.seen(), "POST tools/call"); n != 1 {
					t.Errorf("tools/call POSTed %d times, want 1", n)
				}
			})
		}
	}
}

func TestRedirectedGETToAnotherOriginRefused(t *testing.T) {
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			leakcheck.Check(t)
			other := newOtherOrigin(t)
			r := newRig(t, func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
					http.Redirect(w, req, other.srv.URL+"/sse", status)
				})
			})
			_, err := connectErr(t, newFactory(t, r.url(), &sse.Options{Credentials: auth.Bearer(auth.NewToken("tok"))}))
			if !errors.Is(err, &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect}) {
				t.Errorf("Connect error = %v, want RuleCrossOriginRedirect", err)
			}
			other.check(t)
		})
	}
}

func TestRedirectedGETWithinOriginFollowed(t *testing.T) {
	leakcheck.Check(t)
	r := newRig(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.URL.Path == "/old" {
				http.Redirect(w, req, "/sse", http.StatusTemporaryRedirect)
				return
			}
			next.ServeHTTP(w, req)
		})
	})
	cs := connect(t, newFactory(t, r.srv.URL+"/old", nil))
	if res, err := callCount(t, cs); err != nil || text(res) != "done" {
		t.Errorf("CallTool = %q, %v; want done", text(res), err)
	}
}
