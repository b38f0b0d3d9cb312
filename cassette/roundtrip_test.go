package cassette_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/looprig/mcp/transport/sse"
	"github.com/looprig/mcp/transport/streamablehttp"
)

var update = flag.Bool("update", false, "rewrite the golden cassettes in testdata")

// A rig is one live server on one transport: live returns its factory and
// the counter that counts its executions; stop ends it, so that replay runs
// with the server gone.
type rig struct {
	name     string
	rev      string // the revision the client asks for ("": the go-sdk's default)
	proto    string // the revision negotiated, if not rev
	calls    []call
	live     func(t *testing.T) (transport.Factory, func() int64, func())
	viaHTTP  bool // replay needs the live factory's endpoint path (HTTP)
	stateful bool
}

// rigs are the servers of the record → replay matrix: every transport, and
// for Streamable HTTP each revision, stateful and stateless.
func rigs() []rig {
	inproc := func(t *testing.T) (transport.Factory, func() int64, func()) {
		c := newCounter()
		return inprocess.New(c.srv), c.calls.Load, func() {}
	}
	stdioRig := func(t *testing.T) (transport.Factory, func() int64, func()) {
		return stdioCounter(t, nil), func() int64 { return -1 }, func() {}
	}
	sseRig := func(t *testing.T) (transport.Factory, func() int64, func()) {
		c := newCounter()
		s := newSSEServer(t, c)
		f, err := sse.New(s.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		return f, c.calls.Load, s.Close
	}
	httpRig := func(stateless bool) func(t *testing.T) (transport.Factory, func() int64, func()) {
		return func(t *testing.T) (transport.Factory, func() int64, func()) {
			c := statefulCounter()
			s := newHTTPServer(t, c, stateless, nil)
			return httpLive(t, s.url(), nil), c.calls.Load, s.Close
		}
	}
	return []rig{
		{name: "inprocess/2025-11-25", rev: rev2025, calls: script, live: inproc},
		{name: "inprocess/2026-07-28", rev: rev2026, calls: script2026, live: inproc},
		{name: "stdio/2025-11-25", rev: rev2025, calls: script, live: stdioRig},
		{name: "stdio/2026-07-28", rev: rev2026, calls: script2026, live: stdioRig},
		{name: "sse/2024-11-05", rev: "2024-11-05", calls: script[:1], live: sseRig},
		{name: "streamablehttp/2025-11-25/stateful", rev: rev2025, calls: script, live: httpRig(false), viaHTTP: true, stateful: true},
		{name: "streamablehttp/2025-11-25/stateless", rev: rev2025, calls: script[:1], live: httpRig(true), viaHTTP: true},
		// The go-sdk serves 2026-07-28 statelessly only: asked for it, a
		// stateful server negotiates 2025-11-25 after server/discover.
		{name: "streamablehttp/2026-07-28/stateful", rev: rev2026, proto: rev2025, calls: script2026, live: httpRig(false), viaHTTP: true, stateful: true},
		{name: "streamablehttp/2026-07-28/stateless", rev: rev2026, calls: script2026, live: httpRig(true), viaHTTP: true},
		{name: "streamablehttp/go-sdk-default/stateless", rev: "", proto: rev2026, calls: script2026, live: httpRig(true), viaHTTP: true},
	}
}

// TestRecordThenReplay records a session on every transport and revision,
// stops the server, and replays it: the same outcomes, with the server
// gone, and every recorded line used.
func TestRecordThenReplay(t *testing.T) {
	for _, r := range rigs() {
		t.Run(r.name, func(t *testing.T) {
			leakcheck.Check(t)
			path := tempPath(t, "session.jsonl")
			live, executed, stop := r.live(t)
			_, outs := record(t, path, live, nil, r.rev, r.calls...)
			for _, o := range outs {
				if o.Err != "" {
					t.Fatalf("live call failed: %s", o.Err)
				}
			}
			before := executed()
			stop()
			// HTTP replays through the live factory (its endpoint and
			// options; nothing reaches the network) and without it.
			lives := []transport.Factory{nil}
			if r.viaHTTP {
				lives = append(lives, live)
			}
			for _, l := range lives {
				got := replay(t, path, l, nil, r.rev, r.calls...)
				if diff := cmp.Diff(outs, got); diff != "" {
					t.Errorf("replayed outcomes (live factory %T) mismatch (-live +replayed):\n%s", l, diff)
				}
			}
			if after := executed(); after != before {
				t.Errorf("server executed %d tool calls during replay, want 0", after-before)
			}
			c, err := cassette.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.SplitN(r.name, "/", 2)[0]; c.Header.Transport != want {
				t.Errorf("header transport = %q, want %q", c.Header.Transport, want)
			}
			if want := cmpOr(r.proto, r.rev); c.Header.Protocol != want {
				t.Errorf("header protocol = %q, want %q", c.Header.Protocol, want)
			}
		})
	}
}

// TestRecordServerToClientRequests: the messages the server sends during a
// call (roots, sampling, elicitation) are recorded where they happened.
func TestRecordServerToClientRequests(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "session.jsonl")
	record(t, path, inprocess.New(newCounter().srv), nil, rev2025, script...)
	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range c.Interactions {
		if m := method(in.Message); m != "" {
			got = append(got, in.From+" "+m)
		}
	}
	want := []string{
		"client initialize",
		"client notifications/initialized",
		"client tools/call",
		"client tools/call",
		"server roots/list",
		"server sampling/createMessage",
		"server elicitation/create",
		"client tools/call",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("recorded requests mismatch (-want +got):\n%s", diff)
	}
}

// TestRecordContinuations: a 2026-07-28 call that needs input is recorded
// as two requests, the input-required answer and the continuation, the
// server's request state ("round-1") renamed as the n-th it issued.
func TestRecordContinuations(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "session.jsonl")
	record(t, path, inprocess.New(newCounter().srv), nil, rev2026, call{Tool: "confirm"})
	data, _ := os.ReadFile(path)
	calls := bytes.Count(data, []byte(`"method":"tools/call"`))
	if calls != 2 || !bytes.Contains(data, []byte(`"inputResponses"`)) || !bytes.Contains(data, []byte(`"requestState":"state-1"`)) {
		t.Errorf("recorded %d tools/call requests, want the call and its continuation (inputResponses, requestState):\n%s", calls, data)
	}
	if !bytes.Contains(data, []byte(`"io.modelcontextprotocol/protocolVersion":"2026-07-28"`)) {
		t.Errorf("per-request _meta not recorded:\n%s", data)
	}
}

// TestRerecordGivesIdenticalBytes: recording the same session twice gives
// the same file, on every transport whose server is deterministic.
func TestRerecordGivesIdenticalBytes(t *testing.T) {
	for _, r := range rigs() {
		t.Run(r.name, func(t *testing.T) {
			leakcheck.Check(t)
			opts := &cassette.Options{Secrets: []string{"s3cr3t"}}
			calls := append([]call{{Tool: "echo", Args: map[string]any{"text": "token s3cr3t <&>"}}}, r.calls...)
			var files [2][]byte
			for k := range files {
				live, _, _ := r.live(t)
				files[k], _ = record(t, tempPath(t, "c.jsonl"), live, opts, r.rev, calls...)
			}
			if diff := cmp.Diff(string(files[0]), string(files[1])); diff != "" {
				t.Errorf("re-recording mismatch (-first +second):\n%s", diff)
			}
			if bytes.Contains(files[0], []byte("s3cr3t")) {
				t.Errorf("the secret is in the cassette:\n%s", files[0])
			}
		})
	}
}

// TestGoldenCassette: re-recording the counter gives testdata's cassettes,
// byte for byte (-update rewrites them).
func TestGoldenCassette(t *testing.T) {
	leakcheck.Check(t)
	tok := auth.NewToken("s3cr3t-golden")
	for _, g := range []struct {
		file  string
		live  func(t *testing.T) transport.Factory
		opts  *cassette.Options
		calls []call
	}{
		{"counter.jsonl", func(t *testing.T) transport.Factory { return inprocess.New(newCounter().srv) },
			&cassette.Options{Secrets: []string{"s3cr3t"}}, goldenCalls},
		{"http.jsonl", func(t *testing.T) transport.Factory {
			return httpLive(t, newHTTPServer(t, statefulCounter(), false, nil).url(), &streamablehttp.Options{Credentials: auth.Bearer(tok)})
		}, &cassette.Options{Revealers: []cassette.Revealer{tok}}, script},
	} {
		path := tempPath(t, g.file)
		got, _ := record(t, path, g.live(t), g.opts, rev2025, g.calls...)
		golden := filepath.Join("testdata", g.file)
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s mismatch (-golden +recorded); run with -update if intended:\n%s", g.file, diff)
		}
	}
}

// TestFactoryMakesOneSession: a cassette holds one session.
func TestFactoryMakesOneSession(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "one.jsonl")
	f := open(t, path, inprocess.New(newCounter().srv), withMode(nil, cassette.ModeRecord))
	if _, err := f.Transport(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Transport(); err == nil || err.Error() != "cassette: factory already made its session" {
		t.Errorf("second Transport: %v, want the factory already made its session", err)
	}
}

// TestReplayCommittedCassettes: the committed cassettes (testdata's,
// version 1 among them) replay as recorded.
func TestReplayCommittedCassettes(t *testing.T) {
	leakcheck.Check(t)
	for _, file := range []string{"counter.jsonl", "http.jsonl", "v1-counter.jsonl", "v1-http.jsonl"} {
		path := filepath.Join("testdata", file)
		calls, want := script, []outcome{{Text: "first #1"}, {Text: `roots=1 sampled="hi" elicited=Ada`}, {Text: "second #3"}}
		if strings.Contains(file, "counter") {
			calls, want = goldenCalls, append(want, outcome{Text: "echo: token REDACTED-1"})
		}
		got := replay(t, path, nil, &cassette.Options{Secrets: []string{"s3cr3t"}}, rev2025, calls...)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: replayed outcomes mismatch (-want +got):\n%s", file, diff)
		}
	}
}

// goldenCalls are the calls of testdata/counter.jsonl: the script, then an
// echo of a secret.
var goldenCalls = append(append([]call(nil), script...), call{Tool: "echo", Args: map[string]any{"text": "token s3cr3t"}})

// method returns a message's method, or "".
func method(msg []byte) string {
	var m struct {
		Method string `json:"method"`
	}
	json.Unmarshal(msg, &m)
	return m.Method
}
