package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
)

// probeTimeout bounds one probe: a listener that neither answers nor
// closes fails the case at its own deadline.
const probeTimeout = 10 * time.Second

// noHost, as a probe's host, sends an HTTP/1.0 request with no Host
// header.
const noHost = "\x00none"

// A probe is one raw HTTP request: its Host header as written (noHost:
// none), extra header lines, and body. chunked sends the body chunked.
type probe struct {
	method, path, host string
	headers            []string // "Name: value"
	body               string
	chunked            bool
	headOnly           bool // read the answer's head only (an event stream that lasts)
}

// send writes p to addr on a fresh connection and returns the status and
// body of the answer; status 0 when there is none (err says why).
func (p probe) send(ctx context.Context, addr string) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return 0, "", err
	}
	defer c.Close()
	dl, _ := ctx.Deadline()
	c.SetDeadline(dl)
	var b strings.Builder
	proto := "HTTP/1.1"
	if p.host == noHost {
		proto = "HTTP/1.0"
	}
	fmt.Fprintf(&b, "%s %s %s\r\n", p.method, p.path, proto)
	if p.host != noHost {
		fmt.Fprintf(&b, "Host: %s\r\n", p.host)
	}
	for _, h := range p.headers {
		b.WriteString(h + "\r\n")
	}
	switch {
	case p.chunked:
		fmt.Fprintf(&b, "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(p.body), p.body)
	default:
		fmt.Fprintf(&b, "Content-Length: %d\r\nConnection: close\r\n\r\n%s", len(p.body), p.body)
	}
	if _, err := io.WriteString(c, b.String()); err != nil {
		return 0, "", err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, "", err
	}
	if p.headOnly {
		c.Close() // first: closing a body drains it to its end
		resp.Body.Close()
		return resp.StatusCode, "", nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(body), nil
}

// basic is the value of HTTP basic authentication of id and secret.
func basic(id, secret string) string {
	return base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id) + ":" + url.QueryEscape(secret)))
}

// mcpHeaders are the headers of a 2026-07-28 tools/call of lookup.
var mcpHeaders = []string{
	"Content-Type: application/json",
	"Accept: application/json, text/event-stream",
	"Mcp-Protocol-Version: 2026-07-28",
	"Mcp-Method: tools/call",
	"Mcp-Name: lookup",
}

// lookupCall is a 2026-07-28 tools/call of the docs fake's lookup, which
// a server runs with no session; pad spaces before its end.
func lookupCall(pad int) string {
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"lookup","arguments":{"query":"probe"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"probe","version":"v0"}}}` + strings.Repeat(" ", pad) + `}`
}

// hostileProbes are requests a web page can make a browser send to a
// loopback listener at addr (path): a rebound host name, a cross-site
// Origin. Each carries body with headers.
func hostileProbes(path, addr, body string, headers []string) map[string]probe {
	_, port, _ := net.SplitHostPort(addr)
	p := func(host string, origin string) probe {
		hs := append([]string(nil), headers...)
		if origin != "" {
			hs = append(hs, "Origin: "+origin)
		}
		return probe{method: http.MethodPost, path: path, host: host, headers: hs, body: body}
	}
	return map[string]probe{
		"Host evil.example":                  p("evil.example", ""),
		"Host localhost.evil.example:PORT":   p("localhost.evil.example:"+port, ""),
		"Host 127.0.0.1.nip.io:PORT":         p("127.0.0.1.nip.io:"+port, ""),
		"Origin https://evil.example":        p(addr, "https://evil.example"),
		"Origin null":                        p(addr, "null"),
		"rebound Host and its own Origin":    p("evil.example:"+port, "http://evil.example:"+port),
		"no Host (HTTP/1.0), cross-site too": p(noHost, "https://evil.example"),
	}
}

// recordProbed records a 2025-11-25 docs session of fake (served at
// upstream) through mcprig record --listen, sending probes first, and
// returns the cassette's bytes and the answer to each probe.
func recordProbed(t *testing.T, upstream string, probes map[string]probe) ([]byte, map[string]int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "docs.jsonl")
	rec := serveMcprig(t, nil, "record", "-o", path, "--upstream", upstream, "--listen", "127.0.0.1:0")
	u, err := url.Parse(rec.url)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for name, p := range probes {
		status, body, err := p.send(context.Background(), u.Host)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if status == http.StatusForbidden && !strings.Contains(body, "mcp: forbidden") {
			t.Errorf("%s: 403 %q, want the proxy's refusal", name, body)
		}
		got[name] = status
	}
	driveHTTP(t, rec.url)
	if code := rec.wait(t); code != 0 {
		t.Fatalf("mcprig record exited %d\nstderr:\n%s", code, rec.stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data, got
}

// TestRecordListenRefusesOtherSites: mcprig record --listen answers 403
// to a rebound Host and a cross-site Origin, before anything reaches the
// upstream: it sees no request and runs no tool for them, and the
// cassette is byte for byte the one recorded without them.
func TestRecordListenRefusesOtherSites(t *testing.T) {
	leakcheck.Check(t)
	fake, err := fakeserver.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := fake.StartHTTP("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hs.Close() })

	baseline, _ := recordProbed(t, hs.URL, nil)
	baseRequests, baseRuns := len(hs.Requests()), fake.Counts().Executions["lookup"]

	// The port the probes name does not matter to the refusal.
	probes := hostileProbes("/mcp", "127.0.0.1:1", lookupCall(0), mcpHeaders)
	withProbes, statuses := recordProbed(t, hs.URL, probes)
	for name := range probes {
		if statuses[name] != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403", name, statuses[name])
		}
	}
	requests, runs := len(hs.Requests())-baseRequests, fake.Counts().Executions["lookup"]-baseRuns
	if requests != baseRequests || runs != baseRuns {
		t.Errorf("upstream saw %d requests and ran lookup %d times with %d refused probes; %d and %d without them",
			requests, runs, len(probes), baseRequests, baseRuns)
	}
	if extra := len(withProbes) - len(baseline); extra != 0 || !bytes.Equal(withProbes, baseline) {
		t.Errorf("the refused probes changed the cassette (%+d bytes)", extra)
	}
	t.Logf("%d probes refused 403; upstream requests %d (without probes %d), lookup runs %d (%d), cassette %d bytes (%d)",
		len(probes), requests, baseRequests, runs, baseRuns, len(withProbes), len(baseline))
}

// TestReplayListenRefusesOtherSites: mcprig replay --listen answers 403
// to a rebound Host and a cross-site Origin, serving nothing of the
// recording: the whole session is served afterwards, and mcprig exits 0
// (no mismatch, nothing unused).
func TestReplayListenRefusesOtherSites(t *testing.T) {
	leakcheck.Check(t)
	cas := filepath.Join("testdata", "http.jsonl")
	base := serveMcprig(t, nil, "replay", "--listen", "127.0.0.1:0", cas)
	want := driveHTTP(t, base.url)
	if code := base.wait(t); code != 0 {
		t.Fatalf("mcprig replay exited %d\nstderr:\n%s", code, base.stderr)
	}

	rep := serveMcprig(t, nil, "replay", "--listen", "127.0.0.1:0", cas)
	u, err := url.Parse(rep.url)
	if err != nil {
		t.Fatal(err)
	}
	headers := []string{"Content-Type: application/json", "Accept: application/json, text/event-stream"}
	for name, p := range hostileProbes(u.Path, u.Host, initializeProbe, headers) {
		status, body, err := p.send(context.Background(), u.Host)
		if status != http.StatusForbidden {
			t.Errorf("%s: status %d (%v), want 403\n%s", name, status, err, body)
		}
	}
	got := driveHTTP(t, rep.url)
	if code := rep.wait(t); code != 0 {
		t.Fatalf("mcprig replay exited %d after the refused probes\nstderr:\n%s", code, rep.stderr)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replayed session mismatch (-without probes +after them):\n%s", diff)
	}
}

// initializeProbe is a 2025-11-25 initialize request.
const initializeProbe = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"v0"}}}`

// TestRecordBodyBoundAtTheEdge: mcprig record --listen forwards a body of
// --max-body bytes, and answers 413 to one of a byte more, declared or
// chunked, before anything reaches the upstream.
func TestRecordBodyBoundAtTheEdge(t *testing.T) {
	leakcheck.Check(t)
	fake, err := fakeserver.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := fake.StartHTTP("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hs.Close() })
	const limit = 8 << 10
	rec := serveMcprig(t, nil, "record", "-o", filepath.Join(t.TempDir(), "x.jsonl"), "--upstream", hs.URL, "--max-body", fmt.Sprint(limit))
	u, _ := url.Parse(rec.url)
	at := lookupCall(limit - len(lookupCall(0)))
	over := at + " "
	for _, tc := range []struct {
		name     string
		p        probe
		refused  bool
		requests int // at the upstream
	}{
		{"N bytes", probe{method: "POST", path: u.Path, host: u.Host, headers: mcpHeaders, body: at}, false, 1},
		{"N+1 bytes", probe{method: "POST", path: u.Path, host: u.Host, headers: mcpHeaders, body: over}, true, 0},
		{"N bytes chunked", probe{method: "POST", path: u.Path, host: u.Host, headers: mcpHeaders, body: at, chunked: true}, false, 1},
		{"N+1 bytes chunked", probe{method: "POST", path: u.Path, host: u.Host, headers: mcpHeaders, body: over, chunked: true}, true, 0},
	} {
		before := len(hs.Requests())
		status, body, err := tc.p.send(context.Background(), u.Host)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if got := status == http.StatusRequestEntityTooLarge; got != tc.refused {
			t.Errorf("%s (%d bytes): status %d, refused %v, want %v\n%s", tc.name, len(tc.p.body), status, got, tc.refused, body)
		}
		if got := len(hs.Requests()) - before; got != tc.requests {
			t.Errorf("%s: the upstream saw %d requests, want %d", tc.name, got, tc.requests)
		}
	}
	if got := fake.Counts().Executions["lookup"]; got != 2 {
		t.Errorf("lookup ran %d times, want 2 (the bodies within the bound)", got)
	}
	rec.cmd.Process.Signal(os.Interrupt)
	rec.wait(t)
}

// TestListenFlagsChecked: an --allow-origin that is not an origin and a
// --max-body out of range are usage errors (exit 2), before anything
// listens.
func TestListenFlagsChecked(t *testing.T) {
	leakcheck.Check(t)
	cas := filepath.Join("testdata", "http.jsonl")
	rec := []string{"record", "-o", filepath.Join(t.TempDir(), "x.jsonl"), "--upstream", "http://127.0.0.1:1/mcp"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(rec, "--allow-origin", "null"), "--allow-origin"},
		{append(rec, "--allow-origin", "https://app.example/path"), "--allow-origin"},
		{append(rec, "--max-body", "0"), "--max-body"},
		{append(rec, "--max-body", fmt.Sprint(cassette.MaxSize+1)), "--max-body"},
		{[]string{"replay", "--listen", "127.0.0.1:0", "--allow-origin", "ftp://x", cas}, "--allow-origin"},
		{[]string{"replay", "--listen", "127.0.0.1:0", "--max-body", "-1", cas}, "--max-body"},
	} {
		code, stdout, stderr := runMcprig(tc.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("mcprig %s: exit %d, stdout %q, stderr %q; want 2, nothing, and %s named", strings.Join(tc.args, " "), code, stdout, stderr, tc.want)
		}
	}
	if _, err := os.Stat(rec[2]); !os.IsNotExist(err) {
		t.Errorf("a refused record wrote %s (%v)", rec[2], err)
	}
}

// TestListenAllowHost: --allow-host admits a name, and then only the
// names it lists: loopback names are refused.
func TestListenAllowHost(t *testing.T) {
	leakcheck.Check(t)
	rep := serveMcprig(t, nil, "replay", "--allow-unused", "--allow-host", "mcp.internal", "--listen", "127.0.0.1:0", filepath.Join("testdata", "http.jsonl"))
	u, _ := url.Parse(rep.url)
	headers := []string{"Content-Type: application/json", "Accept: application/json, text/event-stream"}
	for _, tc := range []struct {
		host string
		want int
	}{
		{"127.0.0.1", http.StatusForbidden},
		{"MCP.internal:8443", http.StatusOK},
		{"evil.example", http.StatusForbidden},
	} {
		p := probe{method: http.MethodPost, path: u.Path, host: tc.host, headers: headers, body: initializeProbe}
		if status, body, err := p.send(context.Background(), u.Host); status != tc.want {
			t.Errorf("Host %q: status %d (%v), want %d\n%s", tc.host, status, err, tc.want, body)
		}
	}
}

// TestReplayBodyBoundAtTheEdge: mcprig replay --listen answers 413 to a
// body one byte over --max-body, declared or chunked, serving nothing of
// the recording: the whole session is served afterwards. (A body of
// --max-body bytes passes the same code: TestRecordBodyBoundAtTheEdge.)
func TestReplayBodyBoundAtTheEdge(t *testing.T) {
	leakcheck.Check(t)
	const limit = 4 << 10
	rep := serveMcprig(t, nil, "replay", "--max-body", fmt.Sprint(limit), "--listen", "127.0.0.1:0", filepath.Join("testdata", "http.jsonl"))
	u, _ := url.Parse(rep.url)
	headers := []string{"Content-Type: application/json", "Accept: application/json, text/event-stream"}
	over := initializeProbe[:len(initializeProbe)-1] + strings.Repeat(" ", limit+1-len(initializeProbe)) + "}"
	for _, chunked := range []bool{false, true} {
		p := probe{method: http.MethodPost, path: u.Path, host: u.Host, headers: headers, body: over, chunked: chunked}
		if status, body, err := p.send(context.Background(), u.Host); status != http.StatusRequestEntityTooLarge {
			t.Errorf("%d bytes (chunked %v): status %d (%v), want 413\n%s", len(over), chunked, status, err, body)
		}
	}
	driveHTTP(t, rep.url)
	if code := rep.wait(t); code != 0 {
		t.Fatalf("mcprig replay exited %d after the refused bodies\nstderr:\n%s", code, rep.stderr)
	}
}
