package hostile_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/proctree"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// An outcome is what a fault must lead to on one transport at one
// revision, counted at the peer.
type outcome struct {
	op        string // where it fails: client.OpConnect, client.OpCallTool, or "" (it does not)
	class     client.FailureClass
	retryable bool  // the error's ConnectionRetryable
	is        error // an error it must match, if any
	unknown   bool  // the call's outcome is unknown (client.ErrOutcomeUnknown)
	execs     int   // executions of "echo" at the peer
	posts     int   // POSTs of the tools/call id at the peer (HTTP)
	gets      int   // GETs at the peer's origin, or -1 to leave uncounted
	timeout   bool  // it fails at CallTimeout; otherwise well before it
}

// A fault is one way a peer misbehaves, and what it must lead to.
type fault struct {
	name  string
	stdio string    // HOSTILE_FAULT for the stdio child; "" where it has no stdio form
	http  httpFault // the HTTP peer's misbehaviour; nil where it has none
	// want returns the outcome on kind at rev, or false where the fault
	// does not apply there.
	want func(kind transport.Kind, rev revision) (outcome, bool)
}

const (
	callTimeout      = 10 * time.Second       // for faults that fail at once
	shortCallTimeout = 300 * time.Millisecond // for faults that wait for it
)

// Every fault on every transport and revision: the client fails as the
// outcome says, counted at the peer (a tool runs at most once and a call
// is POSTed once, nothing reaches the second origin), Close returns within
// its bound, and nothing is left running: no goroutine, no process.
func TestFaultMatrix(t *testing.T) {
	for _, f := range faults {
		for _, kind := range allKinds {
			for _, rev := range revisions[kind] {
				want, ok := f.want(kind, rev)
				if !ok || kind == transport.KindStdio && f.stdio == "" || kind != transport.KindStdio && f.http == nil && f.name != "none" {
					continue
				}
				t.Run(fmt.Sprintf("%s/%v/%s", f.name, kind, rev.name), func(t *testing.T) {
					runFault(t, f, kind, rev, want)
				})
			}
		}
	}
}

func runFault(t *testing.T, f fault, kind transport.Kind, rev revision, want outcome) {
	leakcheck.Check(t)
	p := newPeer(t, kind, rev, f.http, f.stdio)
	p.def.Limits.CallTimeout = callTimeout
	if want.timeout {
		p.def.Limits.CallTimeout = shortCallTimeout
	}
	p.def.Limits.DrainTimeout = 200 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	op := client.OpConnect
	c, err := client.Connect(ctx, p.def, nil)
	if err == nil {
		op = client.OpCallTool
		_, err = c.CallTool(ctx, "echo", map[string]any{"text": answerText})
		testkit.CloseWithin(t, c, 10*time.Second)
		if kind == transport.KindStdio {
			checkNoProcess(t, c, p)
		}
	}
	took := time.Since(start)
	checkOutcome(t, op, err, want)
	switch {
	case want.timeout && took < shortCallTimeout:
		t.Errorf("failed after %v, before CallTimeout (%v)", took, shortCallTimeout)
	case !want.timeout && took > callTimeout/2:
		t.Errorf("took %v: it waited for CallTimeout (%v), want it at once", took, callTimeout)
	}
	if got := p.execs(); got != want.execs {
		t.Errorf("echo executed %d times at the peer, want %d", got, want.execs)
	}
	if kind != transport.KindStdio {
		if got := p.callPosts(); got != want.posts {
			t.Errorf("tools/call POSTed %d times at the peer, want %d", got, want.posts)
		}
		if want.gets >= 0 && p.getCount() != want.gets {
			t.Errorf("%d GETs at the peer, want %d", p.getCount(), want.gets)
		}
		if n, a := p.other.requests.Load(), p.other.auths.Load(); n != 0 || a != 0 {
			t.Errorf("the second origin received %d requests, %d with credentials; want none", n, a)
		}
	}
}

func checkOutcome(t *testing.T, op string, err error, want outcome) {
	t.Helper()
	if want.op == "" {
		if err != nil {
			t.Errorf("%s failed: %v; want success", op, err)
		}
		return
	}
	var ce *client.Error
	if !errors.As(err, &ce) {
		t.Fatalf("%s error = %v, want a *client.Error", op, err)
	}
	if ce.Op != want.op || ce.Class != want.class || ce.ConnectionRetryable() != want.retryable {
		t.Errorf("error = %v: op %s, class %v, retryable %v; want op %s, class %v, retryable %v",
			err, ce.Op, ce.Class, ce.ConnectionRetryable(), want.op, want.class, want.retryable)
	}
	if want.is != nil && !errors.Is(err, want.is) {
		t.Errorf("error = %v, want it to match %v", err, want.is)
	}
	if got := errors.Is(err, client.ErrOutcomeUnknown); got != want.unknown {
		t.Errorf("error = %v: outcome unknown %v, want %v", err, got, want.unknown)
	}
}

// checkNoProcess fails t if the stdio child, a process of its group, or
// one it started out of the group, still runs after Close.
func checkNoProcess(t *testing.T, c *client.Client, p *peer) {
	t.Helper()
	conn, ok := c.Conn().(*stdio.Conn)
	if !ok {
		t.Fatalf("Conn() = %T, want *stdio.Conn", c.Conn())
	}
	if stdio.GroupAlive(conn.Pid()) {
		t.Errorf("the child's process group %d runs after Close", conn.Pid())
	}
	if d := conn.Descendants(); len(d) != 0 {
		t.Errorf("descendants %v run after Close", d)
	}
	for _, pid := range recordedPids(p.dir, "escaped") {
		if pr, err := proctree.Stat(pid); err == nil && pr.Running() {
			t.Errorf("process %d, started out of the group, runs after Close", pid)
			proctree.Signal(pr, syscall.SIGKILL)
		}
	}
}

func stateful(kind transport.Kind, rev revision) bool {
	return kind == transport.KindSSE || kind == transport.KindStreamableHTTP && !rev.stateless
}

// onAnswer rewrites what the peer writes when it carries the answer to
// "echo".
func onAnswer(rewrite func([]byte) []byte) httpFault {
	return func(p *peer, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(&rewriter{ResponseWriter: w, rewrite: rewrite}, r)
		})
	}
}

type rewriter struct {
	http.ResponseWriter
	rewrite func([]byte) []byte
	crash   bool // instead, drop the connection
	dead    bool // the connection was dropped
}

func (rw *rewriter) WriteHeader(code int) {
	rw.Header().Del("Content-Length")
	rw.ResponseWriter.WriteHeader(code)
}

func (rw *rewriter) Write(b []byte) (int, error) {
	if rw.dead {
		return 0, http.ErrAbortHandler
	}
	if bytes.Contains(b, []byte(answerText)) {
		if rw.crash {
			if conn, _, err := http.NewResponseController(rw.ResponseWriter).Hijack(); err == nil {
				conn.Close()
			}
			rw.dead = true
			return 0, http.ErrAbortHandler
		}
		if _, err := rw.ResponseWriter.Write(rw.rewrite(b)); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return rw.ResponseWriter.Write(b)
}

func (rw *rewriter) Flush() {
	if rw.dead {
		return
	}
	if f, ok := rw.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// onToolCall answers a tools/call POST with h instead of the server.
func onToolCall(h func(p *peer, w http.ResponseWriter, r *http.Request, next http.Handler)) httpFault {
	return func(p *peer, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if isToolCall(r) {
				h(p, w, r, next)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

var faults = []fault{
	{
		name:  "none",
		stdio: "none",
		want: func(transport.Kind, revision) (outcome, bool) {
			return outcome{execs: 1, posts: 1, gets: -1}, true
		},
	},
	{
		// The server dies in the middle of the call, after running it.
		name:  "crash",
		stdio: "crash",
		http:  crashOnAnswer,
		want: func(kind transport.Kind, rev revision) (outcome, bool) {
			o := outcome{op: client.OpCallTool, unknown: true, execs: 1, posts: 1, gets: -1}
			switch kind {
			case transport.KindStdio:
				o.class, o.retryable = client.ClassServer, true
			case transport.KindStreamableHTTP:
				o.class, o.retryable = client.ClassTransport, true
			case transport.KindSSE:
				o.class, o.retryable = client.ClassTransport, true
			}
			return o, true
		},
	},
	{
		// The server never answers.
		name:  "hang",
		stdio: "hang",
		http: onToolCall(func(p *peer, w http.ResponseWriter, r *http.Request, next http.Handler) {
			<-r.Context().Done()
		}),
		// It fails at CallTimeout, a bound the caller set: the connection
		// is not what failed, and the error does not say to retry it.
		want: func(kind transport.Kind, rev revision) (outcome, bool) {
			o := outcome{op: client.OpCallTool, class: client.ClassTimeout, unknown: true, posts: 1, gets: -1, timeout: true}
			if kind == transport.KindStdio {
				o.execs = 1
			}
			return o, true
		},
	},
	{
		// The server fails the call outside the tool: a JSON-RPC error on
		// stdio, an HTTP 500 otherwise.
		name:  "server-error",
		stdio: "rpc-error",
		http: onToolCall(func(p *peer, w http.ResponseWriter, r *http.Request, next http.Handler) {
			http.Error(w, "boom", http.StatusInternalServerError)
		}),
		want: func(kind transport.Kind, rev revision) (outcome, bool) {
			o := outcome{op: client.OpCallTool, class: client.ClassServer, retryable: true, posts: 1, gets: -1}
			if kind == transport.KindStdio {
				o.execs = 1
			}
			return o, true
		},
	},
	{
		// The server (or a proxy before it) refuses the call's POST with a
		// 4xx and no JSON-RPC body: the call was not accepted, so its
		// outcome is known and it ran nowhere; the connection stays usable
		// (the next call is answered, on Streamable HTTP; a legacy SSE
		// session is ended by the go-sdk).
		name: "bad-request",
		http: onToolCall(func(p *peer, w http.ResponseWriter, r *http.Request, next http.Handler) {
			http.Error(w, "no", http.StatusBadRequest)
		}),
		want: func(kind transport.Kind, rev revision) (outcome, bool) {
			o := outcome{op: client.OpCallTool, class: client.ClassServer, retryable: true, posts: 1, gets: -1}
			if kind == transport.KindStreamableHTTP {
				o.is = &jsonrpc.Error{Code: streamablehttp.CodeRefused}
			}
			return o, true
		},
	},
	{
		// The server has forgotten the session: 404 to the call's POST.
		name: "session-gone",
		http: onToolCall(func(p *peer, w http.ResponseWriter, r *http.Request, next http.Handler) {
			http.Error(w, "no such session", http.StatusNotFound)
		}),
		want: func(kind transport.Kind, rev revision) (outcome, bool) {
			return outcome{op: client.OpCallTool, class: client.ClassServer, retryable: true, posts: 1, gets: -1}, stateful(kind, rev)
		},
	},
	{
		// The answer is not JSON: it is lost (the outcome is unknown).
		name:  "malformed",
		stdio: "malformed",
		http:  onAnswer(func(b []byte) []byte { return malformed(b) }),
		want: func(kind transport.Kind, rev revision) (outcome, bool) {
			o := outcome{op: client.OpCallTool, class: client.ClassProtocol, unknown: true, execs: 1, posts: 1, gets: -1}
			if kind == transport.KindStreamableHTTP {
				o.is = &jsonrpc.Error{Code: streamablehttp.CodeResponseMismatch}
			}
			return o, true
		},
	},
	{
		// The answer is for another id: over Streamable HTTP the finished
		// JSON body shows no answer is coming (at once); on a stream the
		// call can only wait (CallTimeout).
		name:  "other-id",
		stdio: "other-id",
		http:  onAnswer(func(b []byte) []byte { return idField.ReplaceAll(b, []byte(`"id":"not-yours"`)) }),
		want: func(kind transport.Kind, rev revision) (outcome, bool) {
			if kind == transport.KindStreamableHTTP {
				return outcome{op: client.OpCallTool, class: client.ClassProtocol, is: &jsonrpc.Error{Code: streamablehttp.CodeResponseMismatch}, unknown: true, execs: 1, posts: 1, gets: -1}, true
			}
			return outcome{op: client.OpCallTool, class: client.ClassTimeout, unknown: true, execs: 1, posts: 1, gets: -1, timeout: true}, true
		},
	},
	{
		// The answer is over the transport's bound on one message.
		name:  "oversize",
		stdio: "oversize",
		http:  onAnswer(func(b []byte) []byte { return pad(b, maxFrame) }),
		want: func(kind transport.Kind, rev revision) (outcome, bool) {
			return outcome{op: client.OpCallTool, class: client.ClassPolicy, is: transport.ErrLimit, execs: 1, posts: 1, gets: -1}, true
		},
	},
	{
		// The call's POST is redirected to the second origin.
		name: "redirect-post",
		http: onToolCall(func(p *peer, w http.ResponseWriter, r *http.Request, next http.Handler) {
			http.Redirect(w, r, p.other.srv.URL+"/mcp", http.StatusTemporaryRedirect)
		}),
		want: func(kind transport.Kind, rev revision) (outcome, bool) {
			return outcome{op: client.OpCallTool, class: client.ClassPolicy, is: &transport.PolicyError{Rule: transport.RuleRedirectedPOST}, posts: 1, gets: -1}, true
		},
	},
	{
		// The GET stream (the standalone stream; legacy SSE's session
		// stream) is redirected to the second origin: Connect fails at
		// once, by policy, not retryable, after one GET.
		name: "redirect-get",
		http: func(p *peer, next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet {
					http.Redirect(w, r, p.other.srv.URL+"/mcp", http.StatusFound)
					return
				}
				next.ServeHTTP(w, r)
			})
		},
		want: func(kind transport.Kind, rev revision) (outcome, bool) {
			return outcome{op: client.OpConnect, class: client.ClassPolicy, gets: 1}, stateful(kind, rev)
		},
	},
	{
		// The GET stream fails with a 500: legacy SSE's session stream is
		// the session, and Connect fails, the server's failure, as a 500
		// to a POST is on either transport. Streamable HTTP's standalone
		// stream is optional: the go-sdk takes an answer that is not an
		// event stream for "none" (go-sdk#736), and the session goes on.
		name: "get-error",
		http: func(p *peer, next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet {
					http.Error(w, "boom", http.StatusInternalServerError)
					return
				}
				next.ServeHTTP(w, r)
			})
		},
		want: func(kind transport.Kind, rev revision) (outcome, bool) {
			if kind == transport.KindStreamableHTTP {
				return outcome{execs: 1, posts: 1, gets: 1}, stateful(kind, rev)
			}
			return outcome{op: client.OpConnect, class: client.ClassServer, retryable: true, gets: 1}, true
		},
	},
	{
		// The tool starts a process in a session of its own.
		name:  "setsid",
		stdio: "setsid",
		want: func(kind transport.Kind, rev revision) (outcome, bool) {
			return outcome{execs: 1}, kind == transport.KindStdio
		},
	},
	{
		// The tool floods stderr with 8 MiB.
		name:  "stderr-flood",
		stdio: "stderr-flood",
		want: func(kind transport.Kind, rev revision) (outcome, bool) {
			return outcome{execs: 1}, kind == transport.KindStdio
		},
	},
	{
		// The child ignores the end of its input and SIGTERM.
		name:  "ignore-term",
		stdio: "ignore-term",
		want: func(kind transport.Kind, rev revision) (outcome, bool) {
			return outcome{execs: 1}, kind == transport.KindStdio
		},
	},
}

// crashOnAnswer drops the connection that was to carry the answer to
// "echo", once the tool has run: the POST's over Streamable HTTP, the
// session stream over legacy SSE.
func crashOnAnswer(p *peer, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&rewriter{ResponseWriter: w, crash: true}, r)
	})
}

// malformed replaces the JSON of a JSON body or of an event's data with
// text that is not JSON.
func malformed(b []byte) []byte {
	if i := bytes.Index(b, []byte("data: ")); i >= 0 {
		return append(append(b[:i:i], "data: this is not json"...), "\n\n"...)
	}
	return []byte("this is not json")
}

// pad makes the answer in b longer than n bytes, keeping it valid.
func pad(b []byte, n int) []byte {
	return bytes.Replace(b, []byte(answerText), []byte(answerText+strings.Repeat("x", n)), 1)
}

var _ = slices.Contains[[]int]
