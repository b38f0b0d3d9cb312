package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"text/tabwriter"

	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/mcptest/oauthtest"
	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// allowedOrigin is the extra origin the listeners of the "allowed" row
// admit through their documented option.
const allowedOrigin = "https://app.example"

// A listener is one HTTP listener of the matrix: where it listens, the
// request each case sends it (with the case's Host and Origin), and what
// a served request changes.
type listener struct {
	name   string
	addr   string // host:port
	extra  string // the address of the same listener admitting allowedOrigin; "" if it has no such option
	module bool   // held to the module's rule; false for the go-sdk's handler, shown beside
	// request returns the case's request (Host and Origin to be set).
	request func() probe
	// effects counts what a served request does (tool executions, tokens
	// issued); nil when the listener has nothing to count.
	effects func() int
	// upstream counts the requests the listener forwarded; nil when it
	// forwards none.
	upstream func() int
}

// A variant is one row of the matrix: the Host and Origin a request
// carries (port is the listener's) and the answer the rule gives.
type variant struct {
	name         string
	host, origin func(port string) string // origin nil: no Origin header
	extra        bool                     // sent to the listener admitting allowedOrigin
	want         int
}

func fixed(s string) func(string) string { return func(string) string { return s } }

func withPort(format string) func(string) string {
	return func(port string) string { return fmt.Sprintf(format, port) }
}

var variants = []variant{
	{"Host 127.0.0.1:PORT (control)", withPort("127.0.0.1:%s"), nil, false, http.StatusOK},
	{"Host localhost:PORT", withPort("localhost:%s"), nil, false, http.StatusOK},
	{"Host localhost, no port", fixed("localhost"), nil, false, http.StatusOK},
	{"Host [::1]:PORT", withPort("[::1]:%s"), nil, false, http.StatusOK},
	{"Host [::ffff:127.0.0.1]:PORT", withPort("[::ffff:127.0.0.1]:%s"), nil, false, http.StatusOK},
	{"Host LOCALHOST:PORT", withPort("LOCALHOST:%s"), nil, false, http.StatusOK},
	{"Host localhost.:PORT (trailing dot)", withPort("localhost.:%s"), nil, false, http.StatusForbidden},
	{"Host evil.example (rebinding)", fixed("evil.example"), nil, false, http.StatusForbidden},
	{"Host evil.example:PORT", withPort("evil.example:%s"), nil, false, http.StatusForbidden},
	{"Host localhost.evil.example:PORT", withPort("localhost.evil.example:%s"), nil, false, http.StatusForbidden},
	{"Host 127.0.0.1.nip.io:PORT", withPort("127.0.0.1.nip.io:%s"), nil, false, http.StatusForbidden},
	{"Host 127.1:PORT (short form)", withPort("127.1:%s"), nil, false, http.StatusForbidden},
	{"Host 127.0.0.1:PORTx (bad port)", withPort("127.0.0.1:%sx"), nil, false, http.StatusForbidden},
	{"no Host (HTTP/1.0)", fixed(noHost), nil, false, http.StatusForbidden},
	{"Origin same-origin", withPort("127.0.0.1:%s"), withPort("http://127.0.0.1:%s"), false, http.StatusOK},
	{"Origin http://localhost:6274 (other loopback)", withPort("127.0.0.1:%s"), fixed("http://localhost:6274"), false, http.StatusOK},
	{"Origin https://evil.example (cross-site)", withPort("127.0.0.1:%s"), fixed("https://evil.example"), false, http.StatusForbidden},
	{"Origin null", withPort("127.0.0.1:%s"), fixed("null"), false, http.StatusForbidden},
	{"Origin http://localhost.evil.example:PORT", withPort("127.0.0.1:%s"), withPort("http://localhost.evil.example:%s"), false, http.StatusForbidden},
	{"rebound Host, its own Origin", withPort("evil.example:%s"), withPort("http://evil.example:%s"), false, http.StatusForbidden},
	{"Origin " + allowedOrigin + ", not allowed", withPort("127.0.0.1:%s"), fixed(allowedOrigin), false, http.StatusForbidden},
	{"Origin " + allowedOrigin + ", allowed by option", withPort("127.0.0.1:%s"), fixed(allowedOrigin), true, http.StatusOK},
}

// TestListenerMatrix sends every listener the module starts each variant
// of Host and Origin: a request is served (200) or refused (403) as
// internal/hostorigin's rule says, and a refused one runs nothing,
// forwards nothing and records nothing. The go-sdk's own
// mcp.StreamableHTTPHandler (its defaults) gets the same requests, shown
// beside, not held to the rule. Every probe ends at its own deadline.
func TestListenerMatrix(t *testing.T) {
	leakcheck.Check(t)
	ls, recorded := matrixListeners(t)
	ctx := testkit.Context(t)
	var held, run int
	cells := map[string]map[string]string{}
	for _, v := range variants {
		cells[v.name] = map[string]string{}
		for _, l := range ls {
			addr := l.addr
			if v.extra {
				if addr = l.extra; addr == "" {
					cells[v.name][l.name] = "n/a"
					continue
				}
			}
			cell, ok := l.run(ctx, addr, v)
			if l.module {
				run++
				if ok {
					held++
				} else {
					t.Errorf("%s, %s: %s; want %d", l.name, v.name, cell, v.want)
					cell += " BROKEN"
				}
			}
			cells[v.name][l.name] = cell
		}
	}
	wantRecorded := 0
	for _, v := range variants {
		if v.want == http.StatusOK {
			wantRecorded++
		}
	}
	if got := recorded(); got != wantRecorded {
		t.Errorf("mcprig record wrote %d probe requests to its cassettes; want %d (the cases served)", got, wantRecorded)
	}
	logMatrix(t, ls, cells)
	t.Logf("cases held: %d of %d (the go-sdk's column is not counted); mcprig record cassettes hold %d probe requests, the %d served", held, run, recorded(), wantRecorded)
}

// run sends v to l at addr and returns the cell and whether it holds.
func (l *listener) run(ctx context.Context, addr string, v variant) (string, bool) {
	_, port, _ := net.SplitHostPort(addr)
	p := l.request()
	p.host = v.host(port)
	if v.origin != nil {
		p.headers = append(p.headers, "Origin: "+v.origin(port))
	}
	e0, u0 := count(l.effects), count(l.upstream)
	status, _, err := p.send(ctx, addr)
	de, du := count(l.effects)-e0, count(l.upstream)-u0
	cell := fmt.Sprint(status)
	if err != nil {
		cell = "no answer: " + err.Error()
	}
	if l.effects != nil {
		cell += fmt.Sprintf(" run %d", de)
	}
	if l.upstream != nil {
		cell += fmt.Sprintf(" up %d", du)
	}
	ok := status == v.want
	switch {
	case v.want == http.StatusForbidden:
		ok = ok && de == 0 && du == 0
	case l.effects != nil:
		ok = ok && de == 1 && (l.upstream == nil || du == 1)
	}
	if ok && l.module {
		cell += " ✓"
	}
	return cell, ok
}

func count(f func() int) int {
	if f == nil {
		return 0
	}
	return f()
}

// logMatrix logs the table: a row per variant, a column per listener.
func logMatrix(t *testing.T, ls []*listener, cells map[string]map[string]string) {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "case")
	for _, l := range ls {
		fmt.Fprintf(tw, "\t%s", l.name)
	}
	fmt.Fprintln(tw)
	for _, v := range variants {
		fmt.Fprintf(tw, "%s (want %d)", v.name, v.want)
		for _, l := range ls {
			fmt.Fprintf(tw, "\t%s", cells[v.name][l.name])
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	t.Logf("listener matrix (run N: tool executions or tokens issued; up N: requests forwarded upstream):\n%s", b.String())
}

// matrixListeners starts every listener, each with a twin that admits
// allowedOrigin where the listener has an option for it, and returns them
// with a count of the probe requests the recording proxies wrote.
func matrixListeners(t *testing.T) ([]*listener, func() int) {
	t.Helper()
	ls := inProcessListeners(t)
	rec, recorded := recordListener(t)
	ls = append(ls, rec, replayListener(t))
	sdk, sdkRuns := goSDKHandler(t)
	ls = append(ls, &listener{name: "go-sdk handler (stateless)", addr: sdk, request: lookupProbe, effects: sdkRuns})
	return ls, recorded
}

// newFake returns a docs fake and a count of its lookup runs.
func newFake(t *testing.T) (*fakeserver.Server, func() int) {
	t.Helper()
	fake, err := fakeserver.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return fake, func() int { return fake.Counts().Executions["lookup"] }
}

// lookupProbe is a 2026-07-28 call of lookup.
func lookupProbe() probe {
	return probe{method: http.MethodPost, path: "/mcp", headers: append([]string(nil), mcpHeaders...), body: lookupCall(0)}
}

// inProcessListeners starts the server package's handlers, the fake over
// HTTP and mcptest's authorization server.
func inProcessListeners(t *testing.T) []*listener {
	t.Helper()
	extra := &server.HTTPOptions{AllowedOrigins: []string{allowedOrigin}}
	var ls []*listener
	for _, stateless := range []bool{false, true} {
		name := "server HTTP"
		if stateless {
			name += " stateless"
		}
		fake, runs := newFake(t)
		l := &listener{name: name, module: true, request: lookupProbe, effects: runs}
		l.addr = serveHandler(t, fake, &server.HTTPOptions{Stateless: stateless})
		l.extra = serveHandler(t, fake, &server.HTTPOptions{Stateless: stateless, AllowedOrigins: extra.AllowedOrigins})
		ls = append(ls, l)
	}
	sse := &listener{name: "server SSE", module: true, request: func() probe {
		return probe{method: http.MethodGet, path: "/sse", headers: []string{"Accept: text/event-stream"}, headOnly: true}
	}}
	fake, _ := newFake(t)
	sse.addr = serveSSE(t, fake, nil)
	sse.extra = serveSSE(t, fake, extra)
	ls = append(ls, sse)

	fake, runs := newFake(t)
	fakeHTTP := &listener{name: "fakeserver HTTP", module: true, request: lookupProbe, effects: runs}
	fakeHTTP.addr = startFake(t, fake, nil)
	fakeHTTP.extra = startFake(t, fake, extra)
	ls = append(ls, fakeHTTP)

	as := oauthtest.NewAuthServer(t, nil)
	u, _ := url.Parse(as.URL)
	return append(ls, &listener{name: "fake OAuth AS /token", module: true, addr: u.Host, request: func() probe {
		return probe{method: http.MethodPost, path: "/token", headers: []string{
			"Content-Type: application/x-www-form-urlencoded",
			"Authorization: Basic " + basic(oauthtest.DefaultClientID, oauthtest.DefaultClientSecret),
		}, body: "grant_type=client_credentials&scope=mcp"}
	}, effects: func() int { return as.Counts().TokensIssued }})
}

// recordListener starts mcprig record --listen twice (the second with
// --allow-origin) before a fake, and returns it with a count of the probe
// requests its cassettes hold, which ends both recordings.
func recordListener(t *testing.T) (*listener, func() int) {
	t.Helper()
	fake, runs := newFake(t)
	up, err := fake.StartHTTP("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	dir := t.TempDir()
	rec := &listener{name: "mcprig record", module: true, request: lookupProbe, effects: runs, upstream: func() int { return len(up.Requests()) }}
	var recs []*served
	for i, args := range [][]string{nil, {"--allow-origin", allowedOrigin}} {
		s := serveMcprig(t, nil, append([]string{"record", "-o", filepath.Join(dir, fmt.Sprintf("%d.jsonl", i)), "--upstream", up.URL}, args...)...)
		recs = append(recs, s)
		su, _ := url.Parse(s.url)
		if i == 0 {
			rec.addr = su.Host
		} else {
			rec.extra = su.Host
		}
	}
	recorded := func() int {
		n := 0
		for i, s := range recs {
			if s.cmd.ProcessState == nil {
				s.cmd.Process.Signal(os.Interrupt)
				if code := s.wait(t); code != 0 {
					t.Errorf("mcprig record exited %d\nstderr:\n%s", code, s.stderr)
				}
			}
			data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%d.jsonl", i)))
			if err != nil {
				t.Error(err)
			}
			for line := range strings.Lines(string(data)) {
				if strings.Contains(line, `"kind":"request"`) && strings.Contains(line, `"query":"probe"`) {
					n++
				}
			}
		}
		return n
	}
	return rec, recorded
}

// replayListener starts mcprig replay --listen twice (the second with
// --allow-origin).
func replayListener(t *testing.T) *listener {
	t.Helper()
	cas := filepath.Join("testdata", "http.jsonl")
	rep := &listener{name: "mcprig replay", module: true, request: func() probe {
		return probe{method: http.MethodPost, path: "/mcp", headers: []string{"Content-Type: application/json", "Accept: application/json, text/event-stream"}, body: initializeProbe}
	}}
	for i, args := range [][]string{nil, {"--allow-origin", allowedOrigin}} {
		s := serveMcprig(t, nil, append(append([]string{"replay", "--allow-unused"}, args...), "--listen", "127.0.0.1:0", cas)...)
		su, _ := url.Parse(s.url)
		if i == 0 {
			rep.addr = su.Host
		} else {
			rep.extra = su.Host
		}
	}
	return rep
}

// serveHandler serves fake's server.Server over Streamable HTTP with opts
// on the caller's own http.Server (httptest), as a user mounts it.
func serveHandler(t *testing.T, fake *fakeserver.Server, opts *server.HTTPOptions) string {
	t.Helper()
	h, err := fake.Server().HTTPHandler(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	return ts.Listener.Addr().String()
}

func serveSSE(t *testing.T, fake *fakeserver.Server, opts *server.HTTPOptions) string {
	t.Helper()
	h, err := fake.Server().SSEHandler(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	return ts.Listener.Addr().String()
}

func startFake(t *testing.T, fake *fakeserver.Server, serving *server.HTTPOptions) string {
	t.Helper()
	hs, err := fake.StartHTTP("127.0.0.1:0", &fakeserver.HTTPOptions{Serving: serving})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hs.Close() })
	u, _ := url.Parse(hs.URL)
	return u.Host
}

// goSDKHandler serves a plain go-sdk server with a counting lookup tool
// through the go-sdk's own mcp.StreamableHTTPHandler, stateless (which
// serves a call without a session), its protection left at its defaults.
func goSDKHandler(t *testing.T) (string, func() int) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "plain", Version: "v1"}, nil)
	var runs atomic.Int64
	s.AddTool(&mcp.Tool{Name: "lookup", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(ts.Close)
	return ts.Listener.Addr().String(), func() int { return int(runs.Load()) }
}
