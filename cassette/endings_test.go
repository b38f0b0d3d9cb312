package cassette_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An ending is a session that ends badly in one way, recorded live, then
// replayed with the server gone.
type ending struct {
	name string
	live func(t *testing.T) transport.Factory
	tool string
	want client.FailureClass
	same bool // the replayed error reads as the live one (it names no address, file or pid)
}

// endings are the ways a session ends that a cassette records: a child
// that exits mid-call (with its status and stderr), a transport error (a
// frame over the bound), the server ending its side (EOF), an HTTP stream
// that breaks, an HTTP request that fails before any response, after it
// was sent or before.
func endings() []ending {
	return []ending{
		{"exit", func(t *testing.T) transport.Factory { return stdioCounter(t, nil) }, "crash", client.ClassServer, false},
		{"transport error", func(t *testing.T) transport.Factory {
			return stdioCounter(t, &stdio.Options{MaxFrameBytes: 64 << 10})
		}, "big", client.ClassPolicy, false},
		{"eof", func(t *testing.T) transport.Factory { return eofAtCall{inprocess.New(newCounter().srv)} }, "echo", client.ClassTransport, true},
		{"broken stream", func(t *testing.T) transport.Factory {
			s := newHTTPServer(t, statefulCounter(), true, cutToolCalls(false))
			return httpLive(t, s.url(), nil)
		}, "count", client.ClassTransport, true},
		{"request failed after it was sent", func(t *testing.T) transport.Factory {
			s := newHTTPServer(t, statefulCounter(), true, cutToolCalls(true))
			return httpLive(t, s.url(), nil)
		}, "count", client.ClassTransport, false},
		{"request refused", func(t *testing.T) transport.Factory {
			s := newHTTPServer(t, statefulCounter(), true, nil)
			return &goneAtCall{Factory: httpLive(t, s.url(), nil), srv: s}
		}, "count", client.ClassTransport, false},
	}
}

// TestEndingsReplayTheSameAtOnce records each kind of ending and replays
// it: the call that died with the server fails with the same class, the
// same diagnosis, the same outcome (unknown or not) and retryability, and
// where the text names nothing of the run, the same text, at once. Replay waits for nothing: Options.Wait is an
// hour and the client's call timeout is the default five minutes, so a
// replay that waited on the recording would miss the test's deadline.
func TestEndingsReplayTheSameAtOnce(t *testing.T) {
	for _, e := range endings() {
		t.Run(e.name, func(t *testing.T) {
			leakcheck.Check(t)
			path := tempPath(t, "ending.jsonl")
			opts := &cassette.Options{Wait: time.Hour}
			rec := open(t, path, e.live(t), withMode(opts, cassette.ModeRecord))
			liveDiag, liveErr := failingCall(t, rec, e.tool)
			if err := rec.Close(); err != nil {
				t.Fatalf("recording Close: %v", err)
			}
			checkClass(t, "live", liveErr, e.want)

			play := open(t, path, nil, withMode(opts, cassette.ModeReplay))
			start := time.Now()
			diag, err := failingCall(t, play, e.tool)
			t.Logf("replayed %s in %v: %v", e.name, time.Since(start), err)
			checkClass(t, "replayed", err, e.want)
			if live, replayed := errors.Is(liveErr, client.ErrOutcomeUnknown), errors.Is(err, client.ErrOutcomeUnknown); live != replayed {
				t.Errorf("the call's outcome unknown: live %v, replayed %v", live, replayed)
			}
			var le, re *client.Error
			if errors.As(liveErr, &le) && errors.As(err, &re) && le.ConnectionRetryable() != re.ConnectionRetryable() {
				t.Errorf("retryable: live %v, replayed %v", le.ConnectionRetryable(), re.ConnectionRetryable())
			}
			if e.same && err.Error() != liveErr.Error() {
				t.Errorf("replayed error:\n\t%v\nwant the live one:\n\t%v", err, liveErr)
			}
			if (liveDiag == nil) != (diag == nil) {
				t.Fatalf("diagnosis live %v, replayed %v", liveDiag, diag)
			}
			if liveDiag != nil {
				if liveDiag.Exited != diag.Exited || liveDiag.ExitCode != diag.ExitCode || liveDiag.Signal != diag.Signal || !bytes.Equal(liveDiag.Stderr, diag.Stderr) {
					t.Errorf("diagnosis live %q, replayed %q", liveDiag, diag)
				}
			}
			if err := play.Close(); err != nil {
				t.Errorf("replaying Close: %v", err)
			}
		})
	}
}

// failingCall connects our client through f, makes one call of tool, which
// must fail, closes, and returns the call's error and diagnosis. The test's
// deadline bounds it: 20 s, far below the hour a replay that waited on the
// recording would take, and above what a loaded machine under -race needs
// to start a live server.
func failingCall(t *testing.T, f transport.Factory, tool string) (*transport.Diagnosis, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.Definition{Name: "rig", Profile: client.Profile20251125, Transport: f}, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer c.Close()
	var args map[string]any
	if tool == "count" {
		args = map[string]any{"label": "x"}
	}
	_, err = c.CallTool(ctx, tool, args)
	if err == nil {
		t.Fatalf("CallTool %s succeeded, want a failure", tool)
	}
	if ctx.Err() != nil {
		t.Fatalf("CallTool %s hung until the test's deadline: %v", tool, err)
	}
	var ce *client.Error
	if errors.As(err, &ce) {
		return ce.Diagnosis, err
	}
	return nil, err
}

func checkClass(t *testing.T, what string, err error, want client.FailureClass) {
	t.Helper()
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Class != want {
		t.Errorf("%s error = %v, want a *client.Error of class %s", what, err, want)
	}
}

// eofAtCall is a factory whose peer ends its output (EOF) once the client
// has sent a tools/call of echo.
type eofAtCall struct{ transport.Factory }

func (f eofAtCall) Transport() (mcp.Transport, error) {
	tr, err := f.Factory.Transport()
	return eofTransport{tr}, err
}

type eofTransport struct{ mcp.Transport }

func (t eofTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	return &eofConn{Connection: c, eof: make(chan struct{})}, err
}

type eofConn struct {
	mcp.Connection
	once sync.Once
	eof  chan struct{}
}

func (c *eofConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Request); ok && r.Method == "tools/call" && strings.Contains(string(r.Params), `"echo"`) {
		c.once.Do(func() { close(c.eof) })
		return nil
	}
	return c.Connection.Write(ctx, m)
}

func (c *eofConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() {})
	defer stop()
	go func() {
		select {
		case <-c.eof:
			cancel()
		case <-ctx.Done():
		}
	}()
	m, err := c.Connection.Read(ctx)
	select {
	case <-c.eof:
		return nil, io.EOF
	default:
	}
	return m, err
}

// cutToolCalls cuts the response to every tools/call: after its headers
// (a broken event stream), or before any response (a request that failed
// after it was sent).
func cutToolCalls(beforeResponse bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !isToolCall(r) {
				next.ServeHTTP(w, r)
				return
			}
			rc := http.NewResponseController(w)
			if !beforeResponse {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				rc.Flush()
			}
			if conn, _, err := rc.Hijack(); err == nil {
				conn.Close()
			}
		})
	}
}

// goneAtCall is a factory whose server goes away before the first call:
// its requests are refused before they are sent.
type goneAtCall struct {
	*streamablehttp.Factory
	srv *httpServer
}

func (g *goneAtCall) WithBase(wrap func(http.RoundTripper) http.RoundTripper) transport.Factory {
	return &goneAtCall{Factory: g.Factory.WithBase(func(base http.RoundTripper) http.RoundTripper {
		return wrap(&refuseCalls{base: base, srv: g.srv})
	}).(*streamablehttp.Factory), srv: g.srv}
}

type refuseCalls struct {
	base http.RoundTripper
	srv  *httpServer
}

func (r *refuseCalls) RoundTrip(req *http.Request) (*http.Response, error) {
	if isToolCall(req) {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	}
	return r.base.RoundTrip(req)
}

// TestRemovedAnswerFailsAtOnce: a cassette whose answer to a call was
// removed by hand has nothing that will answer that call; replay says so
// at once, with a *MismatchError, in a version-1 file and a version-2 one.
func TestRemovedAnswerFailsAtOnce(t *testing.T) {
	leakcheck.Check(t)
	for _, file := range []string{"testdata/counter.jsonl", "testdata/v1-counter.jsonl"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var kept []string
		for _, line := range strings.SplitAfter(string(data), "\n") {
			if !strings.Contains(line, `"first #1"`) {
				kept = append(kept, line)
			}
		}
		path := tempPath(t, "edited.jsonl")
		os.WriteFile(path, []byte(strings.Join(kept, "")), 0o644)
		f := open(t, path, nil, &cassette.Options{Wait: time.Hour})
		start := time.Now()
		outs, _ := session(t, f, rev2025, script[0])
		t.Logf("%s: the call failed in %v", file, time.Since(start))
		mustContain(t, file+": the call's error", outs[0].Err, "no answer and no ending")
		var merr *cassette.MismatchError
		if err := f.Close(); !errors.As(err, &merr) || merr.Position != 5 {
			t.Errorf("%s: Close = %v, want a *MismatchError at line 5", file, err)
		}
	}
}

// TestGivenUpCallWaitsForTheClient: a call the client gave up (it
// cancelled it, and closed the session with it unanswered, or had its
// answer only after the cancellation) is recorded as such; replay gives it
// no answer and does not fail it: it waits, as the live server did, until
// the client gives it up again. (The schedule table cancelled-answered
// proves the second recording deterministically.)
func TestGivenUpCallWaitsForTheClient(t *testing.T) {
	leakcheck.Check(t)
	c := newCounter()
	started := make(chan struct{}, 1)
	mcp.AddTool(c.srv, &mcp.Tool{Name: "hang"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	path := tempPath(t, "given-up.jsonl")
	for _, mode := range []cassette.Mode{cassette.ModeRecord, cassette.ModeReplay} {
		f := open(t, path, inprocess.New(c.srv), withMode(&cassette.Options{Wait: time.Hour}, mode))
		tr, _ := f.Transport()
		cs, err := newClient().Connect(testkit.Context(t), tr, &mcp.ClientSessionOptions{ProtocolVersion: rev2025})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(testkit.Context(t))
		done := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hang"})
			done <- err
		}()
		if mode == cassette.ModeRecord {
			select {
			case <-started:
			case <-time.After(10 * time.Second):
				t.Fatal("the recorded call never reached the server")
			}
		} else {
			select {
			case err := <-done:
				t.Fatalf("the replayed call that was given up ended by itself: %v", err)
			case <-time.After(50 * time.Millisecond): // a failure would come at once: absence is what is tested
			}
		}
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s: the given-up call returned %v, want context.Canceled", mode, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the given-up call did not end when the client gave it up", mode)
		}
		cs.Close()
		if err := f.Close(); err != nil {
			t.Fatalf("%s Close: %v", mode, err)
		}
	}
	// The recording shows the call given up: unanswered at the client's
	// close, or cancelled and never answered, or, when the server's answer
	// to the cancellation won the race with the close, answered only after
	// the client cancelled it (which replay then holds until the live
	// client cancels too).
	data, _ := os.ReadFile(path)
	s := string(data)
	cancelled := strings.Index(s, `"method":"notifications/cancelled","params":{"reason":"context canceled","requestId":2}`)
	answered := strings.Index(s, `{"id":2,"jsonrpc":"2.0","result":`)
	if !strings.Contains(s, `{"kind":"close","end":"client","pending":[2]}`) && (cancelled < 0 || answered >= 0 && answered < cancelled) {
		t.Errorf("the cassette does not show the call given up:\n%s", s)
	}
}

// TestHeldEndingIsBounded: a call that died with the server, recorded after
// another call the live client does not make, waits for the recorded ending,
// which keeps its place behind that call. That wait is bounded as a held
// answer's is: after Options.Wait the call fails with a *MismatchError
// naming the recorded call it waited for, instead of waiting for the
// client's own timeout (CallTimeout, five minutes by default).
func TestHeldEndingIsBounded(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "held-ending.jsonl")
	rec := open(t, path, stdioCounter(t, nil), &cassette.Options{Mode: cassette.ModeRecord})
	outs, _ := session(t, rec, rev2025, call{Tool: "count", Args: map[string]any{"label": "a"}}, call{Tool: "crash"})
	if outs[0].Err != "" || outs[1].Err == "" {
		t.Fatalf("recorded session: %+v, want count answered and crash failed", outs)
	}
	if err := rec.Close(); err != nil {
		t.Fatalf("recording Close: %v", err)
	}
	f := open(t, path, nil, &cassette.Options{Wait: 50 * time.Millisecond})
	start := time.Now()
	got, _ := session(t, f, rev2025, call{Tool: "crash"})
	t.Logf("the call failed in %v: %s", time.Since(start), got[0].Err)
	mustContain(t, "the held call's error", got[0].Err, "held 50ms", "tools/call at line 5")
	var merr *cassette.MismatchError
	if err := f.Close(); !errors.As(err, &merr) || merr.Position != 7 {
		t.Errorf("Close = %v, want a *MismatchError at line 7", err)
	}
}
