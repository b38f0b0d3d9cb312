package cassette_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// counting is an HTTPFactory that counts the requests the client makes of
// a replay: each "METHOD [rpc-method id] [last-event-id=ID]".
type counting struct {
	cassette.HTTPFactory
	mu   *sync.Mutex
	seen *[]string
}

func newCounting(t *testing.T) counting {
	return counting{httpLive(t, "http://127.0.0.1:1/mcp", nil), &sync.Mutex{}, &[]string{}}
}

func (c counting) WithBase(wrap func(http.RoundTripper) http.RoundTripper) transport.Factory {
	return c.HTTPFactory.WithBase(func(base http.RoundTripper) http.RoundTripper {
		inner := wrap(base)
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			s := req.Method
			if req.GetBody != nil {
				b, _ := req.GetBody()
				data, _ := io.ReadAll(b)
				if m, err := jsonrpc.DecodeMessage(data); err == nil {
					if r, ok := m.(*jsonrpc.Request); ok {
						s += " " + r.Method
						if r.IsCall() {
							s += " " + idText(r.ID)
						}
					}
				}
			}
			if id := req.Header.Get("Last-Event-ID"); id != "" {
				s += " last-event-id=" + id
			}
			c.mu.Lock()
			*c.seen = append(*c.seen, s)
			c.mu.Unlock()
			return inner.RoundTrip(req)
		})
	})
}

func idText(id jsonrpc.ID) string { return fmt.Sprint(id.Raw()) }

// count returns how many requests start with prefix.
func (c counting) count(prefix string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, s := range *c.seen {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

// numberOf returns the number of the first message of the cassette at
// path, from from, holding text.
func numberOf(t *testing.T, path, from, text string) int {
	t.Helper()
	for _, m := range load(t, path).Messages() {
		if m.From == from && bytes.Contains(m.Message, []byte(text)) {
			return m.Number
		}
	}
	t.Fatalf("%s has no %s message holding %s", path, from, text)
	return 0
}

// faulted replays path with faults through live, with this module's
// client at rev, and makes the calls; it returns each call's error and
// the factory's Close error.
func faulted(t *testing.T, path string, live transport.Factory, rev string, faults []cassette.Fault, calls ...call) ([]error, error) {
	t.Helper()
	f := open(t, path, live, &cassette.Options{Faults: faults})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	prof, _ := client.ParseProfile(rev)
	c, err := client.Connect(ctx, client.Definition{Name: "counter", Profile: prof, Transport: f}, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	var errs []error
	for _, cl := range calls {
		_, err := c.CallTool(ctx, cl.Tool, cl.Args)
		errs = append(errs, err)
	}
	c.Close()
	return errs, f.Close()
}

// recordOurs records calls with this module's client.
func recordOurs(t *testing.T, path string, live transport.Factory, rev string, calls ...call) {
	t.Helper()
	f := open(t, path, live, &cassette.Options{Mode: cassette.ModeRecord})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	prof, _ := client.ParseProfile(rev)
	c, err := client.Connect(ctx, client.Definition{Name: "counter", Profile: prof, Transport: f}, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	for _, cl := range calls {
		if _, err := c.CallTool(ctx, cl.Tool, cl.Args); err != nil {
			t.Fatalf("recording %s: %v", cl.Tool, err)
		}
	}
	c.Close()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestFaultDropResumedServedOnce: a recorded real session, replayed with
// its call's stream dropped before the answer, is resumed by the client
// with the event id it got (2025-11-25), and the answer comes once on the
// resumed stream: the tools/call was POSTed once, one GET resumed, nothing
// was left unused.
func TestFaultDropResumedServedOnce(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "drop.jsonl")
	recordOurs(t, path, httpLive(t, newHTTPServer(t, statefulCounter(), false, nil).url(), nil), rev2025, script[0])
	n := numberOf(t, path, cassette.FromServer, `"first #1"`)
	live := newCounting(t)
	errs, err := faulted(t, path, live, rev2025, []cassette.Fault{{Kind: cassette.FaultDrop, Message: n}}, script[0])
	if errs[0] != nil || err != nil {
		t.Fatalf("the dropped call: %v; Close: %v", errs[0], err)
	}
	if got := live.count("POST tools/call"); got != 1 {
		t.Errorf("the call was POSTed %d times, want 1", got)
	}
	if got := live.count("GET last-event-id="); got != 1 {
		t.Errorf("%d resuming GETs, want 1: %q", got, *live.seen)
	}
	// Without the fault there is nothing to resume.
	plain := newCounting(t)
	if errs, err := faulted(t, path, plain, rev2025, nil, script[0]); errs[0] != nil || err != nil || plain.count("GET last-event-id=") != 0 {
		t.Errorf("without the fault: %v, %v, %q", errs, err, *plain.seen)
	}
}

// TestFaultDropResumesAfterTheEventsGot: a stream dropped before its
// answer, after events with content the client got (two progress
// notifications, each with an event id), resumes after the last of them:
// the client hears each notification once, and the answer once. A resume
// that served the event the client's Last-Event-ID names again would make
// it hear that notification twice.
func TestFaultDropResumesAfterTheEventsGot(t *testing.T) {
	leakcheck.Check(t)
	fake, err := fakeserver.New(&fakeserver.Options{Catalog: fakeserver.CatalogRich})
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	hs, err := fake.StartHTTP("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hs.Close()
	progress := func(f transport.Factory) ([]string, error) {
		var mu sync.Mutex
		var heard []string
		h := &client.Handlers{Progress: func(_ context.Context, p *mcp.ProgressNotificationParams) {
			mu.Lock()
			heard = append(heard, p.Message)
			mu.Unlock()
		}}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		c, err := client.Connect(ctx, client.Definition{Name: "rich", Profile: client.Profile20251125, Transport: f}, h)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.CallTool(ctx, "progress", map[string]any{"steps": 2})
		c.Close() // waits for the handlers of what was queued
		// The call returns once its notifications are queued, not
		// handled: the answer is put after what the handlers heard.
		mu.Lock()
		defer mu.Unlock()
		if err == nil {
			heard = append(heard, "answer: "+res.Content[0].(*mcp.TextContent).Text)
		}
		return heard, err
	}
	path := tempPath(t, "progress.jsonl")
	rec := open(t, path, httpLive(t, hs.URL, nil), &cassette.Options{Mode: cassette.ModeRecord})
	want, err := progress(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if len(want) != 3 {
		t.Fatalf("live: heard %q, want two progress notifications and the answer", want)
	}
	c := load(t, path)
	var ids []string // the event ids on the call's stream
	for i := range c.Interactions {
		if h := c.Interactions[i].HTTP; h != nil && c.Interactions[i].Kind == cassette.KindEvent && h.ID != "" && strings.Contains(string(c.Interactions[i].Message), "notifications/progress") {
			ids = append(ids, h.ID)
		}
	}
	if len(ids) != 2 {
		t.Fatalf("the recorded progress events carry ids %q, want two", ids)
	}
	n := numberOf(t, path, cassette.FromServer, `"progress: 2 steps"`)
	live := newCounting(t)
	f := open(t, path, live, &cassette.Options{Faults: []cassette.Fault{{Kind: cassette.FaultDrop, Message: n}}})
	got, err := progress(f)
	if err != nil {
		t.Fatalf("the dropped call: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("heard through the drop and the resume (-live +replayed):\n%s", diff)
	}
	if got := live.count("GET last-event-id=" + ids[1]); got != 1 {
		t.Errorf("%d GETs resuming after the last progress event %s, want 1: %q", got, ids[1], *live.seen)
	}
	if err := f.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestFaultDropWithoutResumption: on 2026-07-28 there is no resumption:
// the dropped call's outcome is unknown, and it is never sent again.
func TestFaultDropWithoutResumption(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "drop2026.jsonl")
	recordOurs(t, path, httpLive(t, newHTTPServer(t, newCounter(), true, nil).url(), nil), rev2026, script[0])
	n := numberOf(t, path, cassette.FromServer, `"first #1"`)
	live := newCounting(t)
	errs, _ := faulted(t, path, live, rev2026, []cassette.Fault{{Kind: cassette.FaultDrop, Message: n}}, script[0])
	if !errors.Is(errs[0], client.ErrOutcomeUnknown) {
		t.Errorf("the dropped call = %v, want ErrOutcomeUnknown", errs[0])
	}
	if got := live.count("POST tools/call"); got != 1 {
		t.Errorf("the call was POSTed %d times, want 1", got)
	}
}

// TestFaultStatus: the request of a message answered with an injected
// status fails with its class, is not sent again, and counts as made.
func TestFaultStatus(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "status.jsonl")
	recordOurs(t, path, httpLive(t, newHTTPServer(t, statefulCounter(), false, nil).url(), nil), rev2025, script[0], script[2])
	n := numberOf(t, path, cassette.FromClient, `"label":"first"`)
	for _, tc := range []struct {
		code  int
		class client.FailureClass
	}{{503, client.ClassServer}, {401, client.ClassAuth}} {
		live := newCounting(t)
		errs, err := faulted(t, path, live, rev2025, []cassette.Fault{{Kind: cassette.FaultStatus, Message: n, Status: tc.code}}, script[0], script[2])
		var cerr *client.Error
		if !errors.As(errs[0], &cerr) || cerr.Class != tc.class {
			t.Errorf("status %d: the call = %v, want class %s", tc.code, errs[0], tc.class)
		}
		if errs[1] != nil || err != nil {
			t.Errorf("status %d: the next call %v, Close %v", tc.code, errs[1], err)
		}
		if got := live.count("POST tools/call"); got != 2 {
			t.Errorf("status %d: %d tools/call POSTed, want 2: the faulted call was sent again (%q)", tc.code, got, *live.seen)
		}
	}
}

// TestFaultEnd: the session ends at the message named: the call it
// answers fails, the outcome unknown, as do the calls after it; what the
// end prevented is not reported unused. Over HTTP the answer ends an SSE
// stream (resumed on 2025-11-25, and refused: the session is gone), or is
// a JSON body (the connection breaks before its headers), or ends a
// stateless stream of 2026-07-28 (never resumed).
func TestFaultEnd(t *testing.T) {
	leakcheck.Check(t)
	three := []call{script[0], script[2], {Tool: "count", Args: map[string]any{"label": "third"}}}
	jsonServer := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return statefulCounter().srv },
		&mcp.StreamableHTTPOptions{JSONResponse: true}))
	t.Cleanup(jsonServer.Close)
	for _, tc := range []struct {
		name string
		live transport.Factory
		rev  string
	}{
		{"inprocess", inprocess.New(newCounter().srv), rev2025},
		{"http", httpLive(t, newHTTPServer(t, statefulCounter(), false, nil).url(), nil), rev2025},
		{"http json", httpLive(t, jsonServer.URL+"/mcp", nil), rev2025},
		{"http stateless", httpLive(t, newHTTPServer(t, newCounter(), true, nil).url(), nil), rev2026},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tempPath(t, "end.jsonl")
			recordOurs(t, path, tc.live, tc.rev, three...)
			n := numberOf(t, path, cassette.FromServer, `"second #2"`)
			var live transport.Factory
			if tc.name != "inprocess" {
				live = newCounting(t)
			}
			errs, err := faulted(t, path, live, tc.rev, []cassette.Fault{{Kind: cassette.FaultEnd, Message: n}}, three...)
			if errs[0] != nil || !errors.Is(errs[1], client.ErrOutcomeUnknown) || errs[2] == nil {
				t.Errorf("errors %v, want the first call answered, the second's outcome unknown, the third failed", errs)
			}
			if err != nil {
				t.Errorf("Close = %v: the calls the end prevented count as unused", err)
			}
		})
	}
}

// TestFaultEndIsPrompt: on 2025-11-25 over HTTP the call whose answer the
// session ends at fails at once: its stream ends with a retry of 10ms, as
// a drop's does, so that the go-sdk resumes it (and is told the session is
// gone) without its reconnection backoff of one to two seconds. Timed on
// testing/synctest's clock.
func TestFaultEndIsPrompt(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "end.jsonl")
	recordOurs(t, path, httpLive(t, newHTTPServer(t, statefulCounter(), false, nil).url(), nil), rev2025, script[0])
	n := numberOf(t, path, cassette.FromServer, `"first #1"`)
	synctest.Test(t, func(t *testing.T) {
		f, err := cassette.Open(path, nil, &cassette.Options{Faults: []cassette.Fault{{Kind: cassette.FaultEnd, Message: n}}})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c, err := client.Connect(ctx, client.Definition{Name: "counter", Profile: client.Profile20251125, Transport: f}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		start := time.Now()
		_, err = c.CallTool(ctx, script[0].Tool, script[0].Args)
		if took := time.Since(start); !errors.Is(err, client.ErrOutcomeUnknown) || took >= 500*time.Millisecond {
			t.Errorf("the call ended at after %v: %v; want its outcome unknown at once (the resumption after 10ms)", took, err)
		}
	})
}

// TestFaultDelay: a delayed answer comes exactly the delay later (on
// testing/synctest's clock), and the call succeeds.
func TestFaultDelay(t *testing.T) {
	path := tempPath(t, "delay.jsonl")
	recordCounter(t, path, script[0])
	n := numberOf(t, path, cassette.FromServer, `"first #1"`)
	synctest.Test(t, func(t *testing.T) {
		f, err := cassette.Open(path, nil, &cassette.Options{Faults: []cassette.Fault{{Kind: cassette.FaultDelay, Message: n, Delay: 3 * time.Second}}})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		outs, _ := session(t, f, rev2025, script[0])
		if outs[0].Text != "first #1" || time.Since(start) != 3*time.Second {
			t.Errorf("delayed call: %+v after %v, want the answer after exactly 3s", outs, time.Since(start))
		}
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	})
}

// TestFaultsRefused: a fault the cassette cannot take is an *OptionsError
// wrapping transport.ErrBadFault, at once.
func TestFaultsRefused(t *testing.T) {
	path := tempPath(t, "refused.jsonl")
	recordCounter(t, path, script[0])
	for _, f := range []cassette.Fault{
		{Kind: cassette.FaultDrop, Message: 2}, // a message-level cassette has no streams
		{Kind: cassette.FaultStatus, Message: 1, Status: 503},
		{Kind: cassette.FaultEnd, Message: 99},                      // no such message
		{Kind: cassette.FaultDelay, Message: 1, Delay: time.Second}, // a client message
		{Kind: "explode", Message: 1},
		{Kind: cassette.FaultFail, Message: 2}, // the answer to initialize, not to a tasks/get
	} {
		_, err := cassette.Open(path, nil, &cassette.Options{Faults: []cassette.Fault{f}})
		var oerr *cassette.OptionsError
		if !errors.As(err, &oerr) || !errors.Is(err, transport.ErrBadFault) || oerr.Option != "Faults[0]" {
			t.Errorf("fault %v: Open = %v, want an *OptionsError wrapping transport.ErrBadFault", f, err)
		}
	}
	_, err := cassette.Open(tempPath(t, "rec.jsonl"), inprocess.New(newCounter().srv), &cassette.Options{Mode: cassette.ModeRecord, Faults: []cassette.Fault{{Kind: cassette.FaultEnd, Message: 1}}})
	if !errors.Is(err, transport.ErrBadFault) {
		t.Errorf("faults when recording: %v, want transport.ErrBadFault", err)
	}
}

// TestParseFault reads every kind of replay in its text form, at the edges
// of its bounds (N and NTH from 1, the statuses 401, 403, 500 to 599), and
// refuses the text past them; KIND=TARGET reads as KIND@TARGET.
func TestParseFault(t *testing.T) {
	tests := map[string]cassette.Fault{
		"drop@12":                               {Kind: cassette.FaultDrop, Message: 12},
		"drop@1":                                {Kind: cassette.FaultDrop, Message: 1},
		"delay@3:200ms":                         {Kind: cassette.FaultDelay, Message: 3, Delay: 200 * time.Millisecond},
		"delay@3:1ns":                           {Kind: cassette.FaultDelay, Message: 3, Delay: 1},
		"end@9":                                 {Kind: cassette.FaultEnd, Message: 9},
		"end@9223372036854775807":               {Kind: cassette.FaultEnd, Message: 9223372036854775807},
		"status@4:401":                          {Kind: cassette.FaultStatus, Message: 4, Status: 401},
		"status@4:403":                          {Kind: cassette.FaultStatus, Message: 4, Status: 403},
		"status@4:500":                          {Kind: cassette.FaultStatus, Message: 4, Status: 500},
		"status@4:599":                          {Kind: cassette.FaultStatus, Message: 4, Status: 599},
		"end@tools/call=get_weather#2":          {Kind: cassette.FaultEnd, Method: "tools/call", Name: "get_weather", Nth: 2},
		"drop@tools/call=lookup":                {Kind: cassette.FaultDrop, Method: "tools/call", Name: "lookup"},
		"end@tools/list#3":                      {Kind: cassette.FaultEnd, Method: "tools/list", Nth: 3},
		"end@ping":                              {Kind: cassette.FaultEnd, Method: "ping"},
		"status@tools/list:503":                 {Kind: cassette.FaultStatus, Method: "tools/list", Status: 503},
		"delay@resources/read=docs://readme:1s": {Kind: cassette.FaultDelay, Method: "resources/read", Name: "docs://readme", Delay: time.Second},
		"end@resources/read=docs://a#b#2":       {Kind: cassette.FaultEnd, Method: "resources/read", Name: "docs://a#b", Nth: 2},
		"end@resources/read=docs://a#7#1":       {Kind: cassette.FaultEnd, Method: "resources/read", Name: "docs://a#7", Nth: 1},
		"status@prompts/get=p:q#2:403":          {Kind: cassette.FaultStatus, Method: "prompts/get", Name: "p:q", Nth: 2, Status: 403},
		"fail@7":                                {Kind: cassette.FaultFail, Message: 7},
		"fail@tasks/get#2":                      {Kind: cassette.FaultFail, Method: "tasks/get", Nth: 2},
		"drop@tasks/get":                        {Kind: cassette.FaultDrop, Method: "tasks/get"},
	}
	seen := map[cassette.FaultKind]bool{}
	for s, want := range tests {
		seen[want.Kind] = true
		got, err := cassette.ParseFault(s)
		if err != nil || got != want || got.String() != s {
			t.Errorf("ParseFault(%q) = %+v, %v; String %q", s, got, err, got.String())
		}
		old := strings.Replace(s, "@", "=", 1)
		if again, err := cassette.ParseFault(old); err != nil || again != want {
			t.Errorf("ParseFault(%q), the = spelling, = %+v, %v; want %+v", old, again, err, want)
		}
	}
	for _, k := range []cassette.FaultKind{cassette.FaultDrop, cassette.FaultDelay, cassette.FaultEnd, cassette.FaultStatus, cassette.FaultFail} {
		if !seen[k] {
			t.Errorf("kind %s has no case", k)
		}
	}
	for _, s := range []string{"", "drop", "drop@0", "drop@x", "drop@1:2", "delay@1", "delay@1:-1s", "delay@1:0s", "delay@1:9999999999h",
		"status@1:200", "status@1:400", "status@1:402", "status@1:404", "status@1:499", "status@1:600", "status@1:99999999999999999999", "status@1",
		"boom@1", "end@", "end@=lookup", "end@tools/call#0", "end@tools call", "end@99999999999999999999", "end@tools/call=x#99999999999999999999",
		"end@tools/call=look\x1bup", "delay@tools/call=x", "status@tools/call=x:200", "boom@tools/call", "fail@1:2", "end:1"} {
		_, err := cassette.ParseFault(s)
		if !errors.Is(err, transport.ErrBadFault) {
			t.Errorf("ParseFault(%q) = %v, want transport.ErrBadFault", s, err)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "cassette: fault ") || strings.ContainsRune(msg, 0x1b) {
			t.Errorf("ParseFault(%q) = %q, want a cassette error with nothing hidden", s, msg)
		}
	}
}

// TestFaultTypesAreCassettes: the fault types are declared in package
// cassette, not aliases of an internal package's (DESIGN.md: public types
// live in public packages).
func TestFaultTypesAreCassettes(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[cassette.Fault](), reflect.TypeFor[cassette.FaultKind](), reflect.TypeOf(cassette.FaultDrop)} {
		if got := typ.PkgPath(); got != "github.com/looprig/mcp/cassette" {
			t.Errorf("%s is declared in %s, want github.com/looprig/mcp/cassette", typ, got)
		}
	}
}
