package fakeserver

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// token is the static bearer credential the HTTP tests' client sends.
var token = auth.NewToken("fake-secret-token")

// startHTTP serves a fake server with faults over loopback HTTP, closed at
// cleanup.
func startHTTP(t testing.TB, opts *HTTPOptions, faults ...Fault) (*Server, *HTTPServer) {
	t.Helper()
	fs := newFake(t, &Options{Faults: faults})
	hs, err := fs.StartHTTP("", opts)
	if err != nil {
		t.Fatalf("StartHTTP: %v", err)
	}
	t.Cleanup(func() {
		if err := hs.Close(); err != nil {
			t.Errorf("HTTPServer.Close: %v", err)
		}
	})
	return fs, hs
}

// connectHTTP connects a client to hs through transport/streamablehttp with
// a static bearer token; the client is closed at cleanup.
func connectHTTP(t testing.TB, hs *HTTPServer, opts *streamablehttp.Options) (*client.Client, error) {
	t.Helper()
	o := streamablehttp.Options{Credentials: auth.Bearer(token)}
	if opts != nil {
		o = *opts
		o.Credentials = auth.Bearer(token)
	}
	f, err := streamablehttp.New(hs.URL, &o)
	if err != nil {
		t.Fatalf("streamablehttp.New: %v", err)
	}
	// These tests are about 2025-11-25 sessions: their ids, resumption and
	// the DELETE at the end.
	def := client.Definition{Name: "docs", Profile: client.Profile20251125, Transport: f}
	c, err := client.Connect(context.Background(), def, nil)
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

func mustConnectHTTP(t testing.TB, hs *HTTPServer, opts *streamablehttp.Options) *client.Client {
	t.Helper()
	c, err := connectHTTP(t, hs, opts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	return c
}

// wantClass fails the test unless err is a *client.Error of class want.
func wantClass(t testing.TB, err error, want client.FailureClass) {
	t.Helper()
	var ce *client.Error
	if !errors.As(err, &ce) {
		t.Fatalf("error = %v, want a *client.Error of class %v", err, want)
	}
	if ce.Class != want {
		t.Errorf("class = %v, want %v (error: %v)", ce.Class, want, err)
	}
}

// filter returns the requests for which keep is true.
func filter(rs []Request, keep func(Request) bool) []Request {
	var out []Request
	for _, r := range rs {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

func isCall(r Request) bool   { return r.Method == http.MethodPost && r.RPC == "tools/call" }
func isResume(r Request) bool { return r.Method == http.MethodGet && r.LastEventID != "" }

func TestHTTPServe(t *testing.T) {
	leakcheck.Check(t)
	fs, hs := startHTTP(t, nil)
	c := mustConnectHTTP(t, hs, nil)
	res, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "http"})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if diff := cmp.Diff("docs: http", textOf(res.Content)); diff != "" {
		t.Errorf("result mismatch (-want +got):\n%s", diff)
	}
	if n := fs.Counts().Executions["lookup"]; n != 1 {
		t.Errorf("lookup ran %d times, want 1", n)
	}
	// Every request carried the credential and the first session's id.
	for _, r := range hs.Requests() {
		if !r.Authorization {
			t.Errorf("request %v carried no Authorization header", r)
		}
		if r.RPC != "initialize" && r.Session != "fake-1" {
			t.Errorf("request %v: session = %q, want fake-1", r, r.Session)
		}
	}
}

func TestHTTPDropResumesWithLastEventID(t *testing.T) {
	leakcheck.Check(t)
	fs, hs := startHTTP(t, nil, Fault{Kind: FaultDrop, Tool: "lookup"})
	c := mustConnectHTTP(t, hs, nil)
	res, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "resume"})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if diff := cmp.Diff("docs: resume", textOf(res.Content)); diff != "" {
		t.Errorf("result mismatch (-want +got):\n%s", diff)
	}
	if n := fs.Counts().Executions["lookup"]; n != 1 {
		t.Errorf("lookup ran %d times, want 1", n)
	}
	reqs := hs.Requests()
	calls := filter(reqs, isCall)
	if len(calls) != 1 {
		t.Fatalf("the fake saw %d tools/call POSTs, want 1: %v", len(calls), reqs)
	}
	if calls[0].Fault != FaultDrop || calls[0].SentEventID == "" {
		t.Fatalf("the call's stream was not dropped after an event with an id: %v", calls[0])
	}
	resumes := filter(reqs, isResume)
	if len(resumes) != 1 {
		t.Fatalf("the fake saw %d resuming GETs, want 1: %v", len(resumes), reqs)
	}
	if diff := cmp.Diff(calls[0].SentEventID, resumes[0].LastEventID); diff != "" {
		t.Errorf("the resuming GET's Last-Event-ID is not the last id sent (-want +got):\n%s", diff)
	}
}

func TestHTTPDropWithoutIDFails(t *testing.T) {
	leakcheck.Check(t)
	fs, hs := startHTTP(t, nil, Fault{Kind: FaultDropNoID, Tool: "lookup"})
	c := mustConnectHTTP(t, hs, nil)
	_, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "lost"})
	if !errors.Is(err, &jsonrpc.Error{Code: streamablehttp.CodeStreamDropped}) {
		t.Fatalf("CallTool error = %v, want CodeStreamDropped", err)
	}
	wantClass(t, err, client.ClassTransport)
	if n := fs.Counts().Executions["lookup"]; n != 1 {
		t.Errorf("lookup ran %d times, want 1", n)
	}
	reqs := hs.Requests()
	if calls := filter(reqs, isCall); len(calls) != 1 || calls[0].SentEventID != "" {
		t.Errorf("the fake saw tools/call POSTs %v, want one, with no event id sent", calls)
	}
	if resumes := filter(reqs, isResume); len(resumes) != 0 {
		t.Errorf("the client resumed with no event id: %v", resumes)
	}
	// The session goes on: the next call works, and runs once.
	if _, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "next"}); err != nil {
		t.Fatalf("next CallTool: %v", err)
	}
	if n := fs.Counts().Executions["lookup"]; n != 2 {
		t.Errorf("lookup ran %d times after two calls, want 2", n)
	}
}

func TestHTTPCloseSendsDelete(t *testing.T) {
	leakcheck.Check(t)
	_, hs := startHTTP(t, nil)
	c := mustConnectHTTP(t, hs, nil)
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	var got []string
	for _, r := range hs.Requests() {
		if r.Method == http.MethodDelete {
			got = append(got, r.String())
		}
	}
	want := []string{"DELETE session=fake-1 auth status=204"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DELETEs mismatch (-want +got):\n%s", diff)
	}
}

func TestHTTPGoneSession(t *testing.T) {
	leakcheck.Check(t)
	fs, hs := startHTTP(t, nil, Fault{Kind: FaultGone, Tool: "lookup"})
	c := mustConnectHTTP(t, hs, nil)
	_, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "gone"})
	if err == nil {
		t.Fatal("CallTool on a gone session succeeded")
	}
	wantClass(t, err, client.ClassServer)
	if n := fs.Counts().Executions["lookup"]; n != 0 {
		t.Errorf("lookup ran %d times on a gone session, want 0", n)
	}
	calls := filter(hs.Requests(), isCall)
	if len(calls) != 1 || calls[0].Status != http.StatusNotFound {
		t.Errorf("tools/call POSTs = %v, want one answered 404", calls)
	}
}

// A server error answers the call's POST before the protocol sees it: the
// tool does not run, and the client fails the call as the server's
// failure without sending it again.
func TestHTTPServerError(t *testing.T) {
	leakcheck.Check(t)
	for _, status := range []int{0, http.StatusServiceUnavailable} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			fs, hs := startHTTP(t, nil, Fault{Kind: FaultServerError, Tool: "lookup", Status: status})
			c := mustConnectHTTP(t, hs, nil)
			_, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "down"})
			wantClass(t, err, client.ClassServer)
			if n := fs.Counts().Executions["lookup"]; n != 0 {
				t.Errorf("lookup ran %d times behind a server error, want 0", n)
			}
			want := cmp0(status, http.StatusInternalServerError)
			calls := filter(hs.Requests(), isCall)
			if len(calls) != 1 || calls[0].Status != want || calls[0].Fault != FaultServerError {
				t.Errorf("tools/call POSTs = %v, want one answered %d", calls, want)
			}
		})
	}
}

func TestHTTPRedirectRefused(t *testing.T) {
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			leakcheck.Check(t)
			fs, hs := startHTTP(t, nil, Fault{Kind: FaultRedirect, Tool: "lookup", Status: status})
			c := mustConnectHTTP(t, hs, nil)
			_, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "elsewhere"})
			if !errors.Is(err, &transport.PolicyError{Rule: transport.RuleRedirectedPOST}) {
				t.Errorf("CallTool error = %v, want RuleRedirectedPOST", err)
			}
			wantClass(t, err, client.ClassPolicy)
			reqs, auths := hs.OtherCounts()
			if reqs != 0 || auths != 0 {
				t.Errorf("the other origin saw %d requests, %d with Authorization; want 0, 0", reqs, auths)
			}
			if n := fs.Counts().Executions["lookup"]; n != 0 {
				t.Errorf("lookup ran %d times, want 0", n)
			}
		})
	}
}

func TestHTTPRedirectEveryRequest(t *testing.T) {
	leakcheck.Check(t)
	_, hs := startHTTP(t, nil, Fault{Kind: FaultRedirect, Status: http.StatusPermanentRedirect})
	_, err := connectHTTP(t, hs, nil)
	if !errors.Is(err, &transport.PolicyError{Rule: transport.RuleRedirectedPOST}) {
		t.Errorf("Connect error = %v, want RuleRedirectedPOST", err)
	}
	if reqs, auths := hs.OtherCounts(); reqs != 0 || auths != 0 {
		t.Errorf("the other origin saw %d requests, %d with Authorization; want 0, 0", reqs, auths)
	}
}

func TestHTTPOversize(t *testing.T) {
	leakcheck.Check(t)
	_, hs := startHTTP(t, nil, Fault{Kind: FaultOversize, Tool: "lookup", Bytes: 200 << 10})
	c := mustConnectHTTP(t, hs, &streamablehttp.Options{Limits: streamablehttp.Limits{MaxEventBytes: 64 << 10}})
	_, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "big"})
	if !errors.Is(err, transport.ErrLimit) {
		t.Errorf("CallTool error = %v, want ErrLimit", err)
	}
	wantClass(t, err, client.ClassPolicy)
}

func TestHTTPDelayedHeaders(t *testing.T) {
	leakcheck.Check(t)
	fs, hs := startHTTP(t, nil, Fault{Kind: FaultDelayHeaders, Tool: "lookup", Delay: time.Minute})
	// The bound holds for Connect's requests too: long enough for a loaded
	// machine to answer them, far below the fault's minute.
	c := mustConnectHTTP(t, hs, &streamablehttp.Options{Timeouts: streamablehttp.Timeouts{ResponseHeader: 2 * time.Second}})
	start := time.Now()
	_, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "slow"})
	if !errors.Is(err, transport.ErrTimeout) {
		t.Errorf("CallTool error = %v, want ErrTimeout", err)
	}
	wantClass(t, err, client.ClassTimeout)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("CallTool took %v with a 2s header timeout", d)
	}
	if n := fs.Counts().Executions["lookup"]; n != 0 {
		t.Errorf("lookup ran %d times, want 0: the request never reached the protocol", n)
	}
}

func TestHTTPAuthChallenges(t *testing.T) {
	for _, k := range []FaultKind{FaultUnauthorized, FaultForbidden} {
		t.Run(string(k), func(t *testing.T) {
			leakcheck.Check(t)
			_, hs := startHTTP(t, nil, Fault{Kind: k})
			_, err := connectHTTP(t, hs, nil)
			if !errors.Is(err, transport.ErrAuth) {
				t.Errorf("Connect error = %v, want ErrAuth", err)
			}
			wantClass(t, err, client.ClassAuth)
			if reqs := hs.Requests(); len(reqs) != 1 || !reqs[0].Authorization {
				t.Errorf("the fake saw %v, want one request, with the credential, not re-sent", reqs)
			}
		})
	}
}

func TestHTTPNoGet(t *testing.T) {
	leakcheck.Check(t)
	_, hs := startHTTP(t, nil, Fault{Kind: FaultNoGet})
	c := mustConnectHTTP(t, hs, nil)
	if _, err := c.CallTool(context.Background(), "lookup", map[string]any{"query": "no stream"}); err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for _, r := range hs.Requests() {
		if r.Method == http.MethodGet && r.Status != http.StatusMethodNotAllowed {
			t.Errorf("GET answered %d, want 405: %v", r.Status, r)
		}
	}
}

// TestHTTPHandlerOptionErrors: HTTPHandler returns an error, and no
// handler, for options it cannot act on; the same fault with OtherOrigin
// set, and SSE or Stateless alone, give a handler.
func TestHTTPHandlerOptionErrors(t *testing.T) {
	redirect := []Fault{{Kind: FaultRedirect}}
	for _, tc := range []struct {
		name   string
		faults []Fault
		opts   *HTTPOptions
		want   error // nil: valid; errAny: an error of no sentinel
	}{
		{"redirect with OtherOrigin", redirect, &HTTPOptions{OtherOrigin: "http://127.0.0.1:1"}, nil},
		{"SSE alone", nil, &HTTPOptions{SSE: true}, nil},
		{"Stateless alone", nil, &HTTPOptions{Stateless: true}, nil},
		{"redirect without OtherOrigin", redirect, nil, transport.ErrBadFault},
		{"foreign endpoint without OtherOrigin", []Fault{{Kind: FaultForeignEndpoint}}, &HTTPOptions{SSE: true}, transport.ErrBadFault},
		{"SSE and Stateless", nil, &HTTPOptions{SSE: true, Stateless: true}, errAny},
		{"bad Serving origin", nil, &HTTPOptions{Serving: &server.HTTPOptions{AllowedOrigins: []string{"ftp://x"}}}, server.ErrInvalidOptions},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := newFake(t, &Options{Faults: tc.faults}).HTTPHandler(tc.opts)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("HTTPHandler: %v", err)
				}
				h.Close()
				return
			}
			if err == nil || h != nil {
				t.Fatalf("HTTPHandler = %v, %v; want nil and an error", h, err)
			}
			if tc.want != errAny && !errors.Is(err, tc.want) {
				t.Errorf("HTTPHandler error = %v; want %v", err, tc.want)
			}
		})
	}
}

// errAny stands for an error that matches no sentinel.
var errAny = errors.New("any error")

// textOf joins the text of every text content.
func textOf(cs []mcp.Content) string {
	var b strings.Builder
	for _, c := range cs {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
