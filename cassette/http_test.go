package cassette_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/cassette/vcr"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	govcr "gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// dropWriter passes the first `after` server-sent events through, then
// sends a retry: field and cuts the connection.
type dropWriter struct {
	http.ResponseWriter
	after   int
	events  int
	dropped bool
}

func (d *dropWriter) Write(p []byte) (int, error) {
	if d.dropped {
		return len(p), nil
	}
	if d.events >= d.after {
		d.dropped = true
		rc := http.NewResponseController(d.ResponseWriter)
		d.ResponseWriter.Write([]byte("retry: 10\n\n"))
		rc.Flush()
		if conn, _, err := rc.Hijack(); err == nil {
			conn.Close()
		}
		return len(p), nil
	}
	d.events += bytes.Count(p, []byte("\n\n"))
	return d.ResponseWriter.Write(p)
}

func (d *dropWriter) Flush() {
	if !d.dropped {
		http.NewResponseController(d.ResponseWriter).Flush()
	}
}

// dropFirstCall cuts the first tools/call response stream after its first
// event (the priming event, which carries an id).
func dropFirstCall(next http.Handler) http.Handler {
	var fired atomic.Bool
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isToolCall(r) && fired.CompareAndSwap(false, true) {
			next.ServeHTTP(&dropWriter{ResponseWriter: w, after: 1}, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// spyFactory records the requests its connections make, below the
// cassette, by wrapping the base the cassette wraps in turn.
type spyFactory struct {
	cassette.HTTPFactory
	seen *[]string
}

func (s spyFactory) WithBase(wrap func(http.RoundTripper) http.RoundTripper) transport.Factory {
	return s.HTTPFactory.WithBase(func(base http.RoundTripper) http.RoundTripper {
		inner := wrap(base)
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			*s.seen = append(*s.seen, req.Method+" "+req.Header.Get("Last-Event-ID"))
			return inner.RoundTrip(req)
		})
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// TestDroppedStreamReplaysAsDropAndResume: a call's stream that broke after
// an event id, resumed with GET and Last-Event-ID, replays the same way: the
// replayed stream breaks, the client resumes with the recorded id, and the
// answer comes on the resumed stream; the tool ran once, live.
func TestDroppedStreamReplaysAsDropAndResume(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "drop.jsonl")
	c := statefulCounter()
	s := newHTTPServer(t, c, false, dropFirstCall)
	live := httpLive(t, s.url(), nil)
	_, outs := record(t, path, live, nil, rev2025, script[0])
	if outs[0].Err != "" || c.calls.Load() != 1 {
		t.Fatalf("live call: %+v, executed %d times; want one success", outs[0], c.calls.Load())
	}
	var resumes []string
	for _, r := range s.seen() {
		if strings.HasPrefix(r, "GET ") && r != "GET " {
			resumes = append(resumes, r)
		}
	}
	if len(resumes) != 1 {
		t.Fatalf("live server saw %q, want one GET with Last-Event-ID", s.seen())
	}
	data, _ := os.ReadFile(path)
	mustContain(t, "the cassette", string(data), `"end":"dropped"`, `"Last-Event-Id":["s`)
	s.Close()

	var seen []string
	got := replay(t, path, spyFactory{live, &seen}, nil, rev2025, script[0])
	if diff := cmp.Diff(outs, got); diff != "" {
		t.Errorf("replayed outcomes mismatch (-live +replayed):\n%s", diff)
	}
	var gets []string
	for _, r := range seen {
		if strings.HasPrefix(r, "GET ") && r != "GET " {
			gets = append(gets, r)
		}
	}
	if len(gets) != 1 || !strings.HasPrefix(gets[0], "GET s") {
		t.Errorf("replayed requests %q, want one resume with the recorded id", seen)
	}
	if got := c.calls.Load(); got != 1 {
		t.Errorf("tool executed %d times, want 1", got)
	}
}

// TestHTTPMismatchNamesPositionAndDiff sends a call the cassette does not
// hold, then the one it holds, twice. The mismatched call is diffed
// against the recorded one, which is still there to be made: it is served
// after the mismatch, once, and the third call is "already served".
func TestHTTPMismatchNamesPositionAndDiff(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "diff.jsonl")
	s := newHTTPServer(t, statefulCounter(), false, nil)
	record(t, path, httpLive(t, s.url(), nil), nil, rev2025, script[0])
	f := replaying(t, path, nil)
	outs, _ := session(t, f, rev2025, call{Tool: "count", Args: map[string]any{"label": "other"}}, script[0], script[0])
	mustContain(t, "call error", outs[0].Err, path, "tools/call", `-`, `"first"`, `+`, `"other"`)
	if outs[1].Err != "" || outs[1].Text != "first #1" {
		t.Errorf("the recorded call after the mismatch: %+v, want its recorded answer", outs[1])
	}
	mustContain(t, "third call error", outs[2].Err, "already served", "tools/call")
	var merr *cassette.MismatchError
	if err := f.Close(); !errors.As(err, &merr) || merr.Cassette != path || merr.Position == 0 {
		t.Fatalf("Close = %v, want a *MismatchError naming the cassette and a line", err)
	}
	mustContain(t, "diff", merr.Diff, `"first"`, `"other"`)
}

// TestMcpHeadersRecordedAndReplayed: the 2026-07-28 request headers
// (Mcp-Method, Mcp-Name, …) are recorded, and replay matches on them: a
// cassette whose recorded Mcp-Name differs from what the client sends does
// not answer.
func TestMcpHeadersRecordedAndReplayed(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "headers.jsonl")
	s := newHTTPServer(t, statefulCounter(), true, nil)
	data, outs := record(t, path, httpLive(t, s.url(), nil), nil, rev2026, script2026[0])
	mustContain(t, "the cassette", string(data), `"Mcp-Method":["tools/call"]`, `"Mcp-Name":["count"]`, `"Mcp-Method":["server/discover"]`)
	if got := replay(t, path, nil, nil, rev2026, script2026[0]); !cmp.Equal(outs, got) {
		t.Errorf("replayed %v, want %v", got, outs)
	}
	edited := tempPath(t, "edited.jsonl")
	os.WriteFile(edited, bytes.Replace(data, []byte(`"Mcp-Name":["count"]`), []byte(`"Mcp-Name":["other"]`), 1), 0o644)
	f := replaying(t, edited, nil)
	got, _ := session(t, f, rev2026, script2026[0])
	mustContain(t, "the call's error", got[0].Err, "Mcp-Name")
	if f.Close() == nil {
		t.Error("Close reported no mismatch")
	}
}

// TestHooks: go-vcr hooks see each exchange after redaction when the
// recording is written (and may discard one), and before replay serves it.
func TestHooks(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "hooks.jsonl")
	tok := auth.NewToken("hook-secret")
	var sawSecret atomic.Bool
	save := recorder.NewHook(func(i *govcr.Interaction) error {
		if strings.Contains(i.Request.Headers.Get("Authorization"), "hook-secret") {
			sawSecret.Store(true)
		}
		i.Response.Body = strings.ReplaceAll(i.Response.Body, "first #1", "FIRST")
		return nil
	}, recorder.BeforeSaveHook)
	s := newHTTPServer(t, statefulCounter(), false, nil)
	live := httpLive(t, s.url(), &streamablehttp.Options{Credentials: auth.Bearer(tok)})
	record(t, path, live, vcr.Apply(&cassette.Options{}, &vcr.Options{Hooks: []*recorder.Hook{save}}), rev2025, script[0])
	if sawSecret.Load() {
		t.Error("a hook saw the credential")
	}
	replayHook := recorder.NewHook(func(i *govcr.Interaction) error {
		i.Response.Body = strings.ReplaceAll(i.Response.Body, "FIRST", "replayed")
		return nil
	}, recorder.BeforeResponseReplayHook)
	got := replay(t, path, nil, vcr.Apply(&cassette.Options{}, &vcr.Options{Hooks: []*recorder.Hook{replayHook}}), rev2025, script[0])
	if want := []outcome{{Text: "replayed"}}; !cmp.Equal(want, got) {
		t.Errorf("replayed %v, want %v", got, want)
	}
}

// TestReplayHookRunsPerServedResponse: a BeforeResponseReplayHook runs as
// go-vcr runs it, just before a response is served, once for each served
// exchange: none at Open, none for the recorded calls the client never
// makes. A hook's error fails the request it ran for.
func TestReplayHookRunsPerServedResponse(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "hooked.jsonl")
	s := newHTTPServer(t, statefulCounter(), false, nil)
	record(t, path, httpLive(t, s.url(), nil), nil, rev2025, script...)
	var mu sync.Mutex
	var seen []string
	count := recorder.NewHook(func(i *govcr.Interaction) error {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, i.Request.Method+" "+i.Request.Headers.Get("Mcp-Method")+" "+bodyMethod(i.Request.Body))
		return nil
	}, recorder.BeforeResponseReplayHook)
	seenNow := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
	o := vcr.Apply(&cassette.Options{AllowUnused: true}, &vcr.Options{Hooks: []*recorder.Hook{count}})
	f := open(t, path, nil, withMode(o, cassette.ModeReplay))
	if got := seenNow(); len(got) != 0 {
		t.Fatalf("hooks ran %d times at Open, before any request: %q", len(got), got)
	}
	outs, err := session(t, f, rev2025, script[0])
	if err != nil || !cmp.Equal(outs, []outcome{{Text: "first #1"}}) {
		t.Fatalf("replayed %v, %v", outs, err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("replaying Close: %v", err)
	}
	want := []string{"DELETE  ", "GET  ", "POST  initialize", "POST  notifications/initialized", "POST  tools/call"}
	got := seenNow()
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hook calls mismatch, one per served exchange (-want +got):\n%s", diff)
	}

	hookErr := errors.New("hook refused")
	failing := recorder.NewHook(func(*govcr.Interaction) error { return hookErr }, recorder.BeforeResponseReplayHook)
	f = open(t, path, nil, withMode(vcr.Apply(&cassette.Options{AllowUnused: true}, &vcr.Options{Hooks: []*recorder.Hook{failing}}), cassette.ModeReplay))
	tr, err := f.Transport()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if cs, err := newClient().Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rev2025}); err == nil {
		cs.Close()
		t.Fatal("Connect succeeded, want the hook's error")
	} else if !strings.Contains(err.Error(), hookErr.Error()) {
		t.Errorf("Connect = %v, want the hook's error", err)
	}
}

// bodyMethod returns the method of a JSON-RPC message's text, "" for none.
func bodyMethod(body string) string {
	var m struct{ Method string }
	json.Unmarshal([]byte(body), &m)
	return m.Method
}

// TestHTTPOriginRenamed: the recorded server's origin is renamed
// "http://ORIGIN" wherever it appears, a response header (such as a 401's
// resource_metadata) and the bodies both ways included, so that the file
// names no port; replay matches a live request that names its own origin
// there, and serves that origin back in the answer.
func TestHTTPOriginRenamed(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "origin.jsonl")
	link := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", "<http://"+r.Host+"/docs>; rel=help")
			next.ServeHTTP(w, r)
		})
	}
	s := newHTTPServer(t, statefulCounter(), true, link)
	echo := func(origin string) call {
		return call{Tool: "echo", Args: map[string]any{"text": "see " + origin + "/docs"}}
	}
	data, outs := record(t, path, httpLive(t, s.url(), nil), nil, rev2025, echo(s.URL))
	if want := []outcome{{Text: "echo: see " + s.URL + "/docs"}}; !cmp.Equal(want, outs) {
		t.Fatalf("recorded %v, want %v", outs, want)
	}
	host := strings.TrimPrefix(s.URL, "http://")
	if strings.Contains(string(data), host) {
		t.Errorf("the recording names the server's host and port %s:\n%s", host, data)
	}
	mustContain(t, "the recording", string(data), `"Link":["<http://ORIGIN/docs>; rel=help"]`, `"text":"see http://ORIGIN/docs"`, `"text":"echo: see http://ORIGIN/docs"`)
	got := replay(t, path, nil, nil, rev2025, echo(cassette.ReplayOrigin))
	if want := []outcome{{Text: "echo: see " + cassette.ReplayOrigin + "/docs"}}; !cmp.Equal(want, got) {
		t.Errorf("replayed %v, want %v", got, want)
	}

	// Verify sends the live server its own origin, and finds no drift.
	var mu sync.Mutex
	var calls []string
	spy := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if strings.Contains(string(body), `"tools/call"`) {
				mu.Lock()
				calls = append(calls, string(body))
				mu.Unlock()
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			link(next).ServeHTTP(w, r)
		})
	}
	other := newHTTPServer(t, statefulCounter(), true, spy)
	if err := verify(t, path, httpLive(t, other.url(), nil), nil); err != nil {
		t.Errorf("Verify against another port: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 || !strings.Contains(calls[0], `"see `+other.URL+`/docs"`) {
		t.Errorf("Verify sent %q, want one call naming %s", calls, other.URL)
	}
}

// TestHTTPOriginRenamedAfterRedaction: a secret that holds the server's
// origin (a URL with a key in it) is redacted whole, in the bodies and in
// a response header, before the origin is renamed: no part of it is left.
func TestHTTPOriginRenamedAfterRedaction(t *testing.T) {
	leakcheck.Check(t)
	docs := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Docs", "http://"+r.Host+"/docs?key=sekrit-123")
			next.ServeHTTP(w, r)
		})
	}
	s := newHTTPServer(t, statefulCounter(), true, docs)
	secret := s.URL + "/docs?key=sekrit-123"
	live := httpLive(t, s.url(), nil)
	data, _ := record(t, tempPath(t, "secret.jsonl"), live, &cassette.Options{Secrets: []string{secret}}, rev2025,
		call{Tool: "echo", Args: map[string]any{"text": secret}})
	if strings.Contains(string(data), "sekrit-123") {
		t.Errorf("the recording holds the secret's key:\n%s", data)
	}
	mustContain(t, "the recording", string(data), `"X-Docs":["REDACTED-1"]`, `"text":"REDACTED-1"`, `"text":"echo: REDACTED-1"`)
}

// TestRecorderKeepsToItsOrigin: the recording round tripper refuses a
// request to another origin than the recorded factory's, and records
// nothing of it.
func TestRecorderKeepsToItsOrigin(t *testing.T) {
	leakcheck.Check(t)
	var rt http.RoundTripper
	p := &proxyFactory{origin: mustOrigin(t, "http://127.0.0.1:1"), capture: func(r http.RoundTripper) { rt = r }}
	f := open(t, tempPath(t, "origin.jsonl"), p, withMode(nil, cassette.ModeRecord))
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.2:1/mcp", strings.NewReader("{}"))
	if _, err := rt.RoundTrip(req); err == nil || !strings.Contains(err.Error(), "not the recorded origin") {
		t.Errorf("request to another origin: %v, want it refused", err)
	}
	if err := f.Close(); reasonOf(err) != cassette.RecordIncomplete {
		t.Errorf("Close = %v, want a *RecordError, RecordIncomplete (nothing recorded)", err)
	}
}

// proxyFactory is an HTTPFactory that hands out the round tripper the
// cassette gives it, as mcprig's proxies do.
type proxyFactory struct {
	origin  auth.Origin
	capture func(http.RoundTripper)
}

func (p *proxyFactory) Kind() transport.Kind { return transport.KindStreamableHTTP }
func (p *proxyFactory) Transport() (mcp.Transport, error) {
	return nil, errors.New("a proxy makes no transport")
}
func (p *proxyFactory) Origin() auth.Origin { return p.origin }
func (p *proxyFactory) WithBase(wrap func(http.RoundTripper) http.RoundTripper) transport.Factory {
	p.capture(wrap(http.DefaultTransport))
	return p
}

func mustOrigin(t testing.TB, s string) auth.Origin {
	o, err := auth.ParseOrigin(s)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestHTTPHeldAnswerIsBounded: over HTTP too, an answer held for a request
// the live client never makes fails its call after Options.Wait, naming
// what it waited for.
func TestHTTPHeldAnswerIsBounded(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "held.jsonl")
	s := newHTTPServer(t, statefulCounter(), false, nil)
	a, b := call{Tool: "count", Args: map[string]any{"label": "a"}}, call{Tool: "count", Args: map[string]any{"label": "b"}}
	record(t, path, httpLive(t, s.url(), nil), nil, rev2025, a, b)
	f := replaying(t, path, &cassette.Options{Wait: 50 * time.Millisecond})
	got, _ := session(t, f, rev2025, b)
	mustContain(t, "the held call's error", got[0].Err, "held 50ms", "tools/call at line")
	var merr *cassette.MismatchError
	if err := f.Close(); !errors.As(err, &merr) || merr.Method != "tools/call" {
		t.Errorf("Close = %v, want the hold's *MismatchError", err)
	}
}

// TestHTTPReplayAnswersTheLiveID: a replayed HTTP answer carries the live
// request's id, on an event stream and in a JSON body alike, when the live
// client's ids differ from the recorded ones (here an unrecorded ping comes
// first: it is refused, and every later request's id is one more).
func TestHTTPReplayAnswersTheLiveID(t *testing.T) {
	for _, json := range []bool{false, true} {
		name := map[bool]string{false: "event stream", true: "json"}[json]
		t.Run(name, func(t *testing.T) {
			leakcheck.Check(t)
			c := statefulCounter()
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return c.srv }, &mcp.StreamableHTTPOptions{JSONResponse: json})
			s := httptest.NewServer(h)
			t.Cleanup(s.Close)
			path := tempPath(t, "ids.jsonl")
			one := call{Tool: "count", Args: map[string]any{"label": "a"}}
			record(t, path, httpLive(t, s.URL, nil), nil, rev2025, one)
			f := open(t, path, nil, &cassette.Options{AllowUnused: true})
			tr, err := f.Transport()
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cs, err := newClient().Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rev2025})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if err := cs.Ping(ctx, nil); err == nil {
				t.Fatal("an unrecorded ping was answered")
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: one.Tool, Arguments: one.Args})
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "a #1" {
				t.Errorf("replayed call with a shifted id: %+v, %v; want the recorded answer a #1", res, err)
			}
		})
	}
}
