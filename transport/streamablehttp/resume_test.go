package streamablehttp_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func TestDroppedStreamResumesWithLastEventID(t *testing.T) {
	leakcheck.Check(t)
	// The priming event (with an id) gets through; the stream is then cut,
	// after a retry: of 10ms.
	r := newRig(t, rigConfig{eventStore: true, middleware: dropAfter(1, "10")})
	cs := connect(t, newFactory(t, r.url(), &streamablehttp.Options{DisableStandaloneSSE: true}))

	start := time.Now()
	res, err := callCount(t, cs)
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	// Without the server's retry: the go-sdk waits at least 1s to resume.
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Errorf("call took %v; the retry: of 10ms was not honoured", d)
	}
	if diff := cmp.Diff("done", text(res)); diff != "" {
		t.Errorf("result mismatch (-want +got):\n%s", diff)
	}
	if got := r.calls.Load(); got != 1 {
		t.Errorf("tool executed %d times, want 1", got)
	}
	var resumes, posts []string
	for _, s := range r.seen() {
		method, id, _ := strings.Cut(s, " ")
		switch {
		case method == http.MethodGet && id != "":
			resumes = append(resumes, s)
		case method == http.MethodPost:
			posts = append(posts, s)
		}
	}
	if len(resumes) != 1 {
		t.Errorf("server saw %q, want exactly one GET with Last-Event-ID", r.seen())
	}
	// initialize, notifications/initialized, tools/call: no POST re-sent.
	if len(posts) != 3 {
		t.Errorf("server saw %d POSTs, want 3: %q", len(posts), r.seen())
	}
}

func TestDroppedStreamWithoutEventIDFails(t *testing.T) {
	leakcheck.Check(t)
	// No event store: no event ids. The stream is cut before its first event
	// (the tool's result), after the tool ran.
	r := newRig(t, rigConfig{middleware: dropAfter(0, "")})
	cs := connect(t, newFactory(t, r.url(), &streamablehttp.Options{DisableStandaloneSSE: true}))

	_, err := callCount(t, cs)
	if !errors.Is(err, &jsonrpc.Error{Code: streamablehttp.CodeStreamDropped}) {
		t.Fatalf("CallTool error = %v, want CodeStreamDropped", err)
	}
	if got := r.calls.Load(); got != 1 {
		t.Errorf("tool executed %d times, want 1", got)
	}
	// The connection survives: the next call works.
	if _, err := callCount(t, cs); err != nil {
		t.Fatalf("next CallTool: %v", err)
	}
	if got := r.calls.Load(); got != 2 {
		t.Errorf("tool executed %d times after the second call, want 2", got)
	}
}

func TestResumptionDisabledFailsDroppedCall(t *testing.T) {
	leakcheck.Check(t)
	r := newRig(t, rigConfig{eventStore: true, middleware: dropAfter(1, "10")})
	cs := connect(t, newFactory(t, r.url(), &streamablehttp.Options{DisableStandaloneSSE: true, MaxResumeAttempts: -1}))
	_, err := callCount(t, cs)
	if !errors.Is(err, &jsonrpc.Error{Code: streamablehttp.CodeStreamDropped}) {
		t.Fatalf("CallTool error = %v, want CodeStreamDropped", err)
	}
	if got := r.calls.Load(); got != 1 {
		t.Errorf("tool executed %d times, want 1", got)
	}
	for _, s := range r.seen() {
		if strings.HasPrefix(s, "GET ") && s != "GET " {
			t.Errorf("server saw a resumption %q with resumption disabled", s)
		}
	}
}

// Protocol 2026-07-28 has no Last-Event-ID: a call whose stream breaks
// fails at once with CodeStreamDropped even when the stream carried an
// event id and a retry: field, and no GET resumes it. (The stream here is
// the middleware's own: a go-sdk server sends no ids on that revision.)
func TestNoResumptionOn20260728(t *testing.T) {
	leakcheck.Check(t)
	var ran atomic.Int64
	cut := onFirstToolCall(func(w http.ResponseWriter, r *http.Request, _ http.Handler) {
		ran.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "id: ev-1\nretry: 10\ndata: \n\n")
		rc := http.NewResponseController(w)
		rc.Flush()
		if conn, _, err := rc.Hijack(); err == nil {
			conn.Close()
		}
	})
	r := newRig(t, rigConfig{stateless: true, middleware: cut})
	cs := connectAt(t, newFactory(t, r.url(), nil), "2026-07-28")
	_, err := callCount(t, cs)
	if !errors.Is(err, &jsonrpc.Error{Code: streamablehttp.CodeStreamDropped}) {
		t.Fatalf("CallTool error = %v, want CodeStreamDropped", err)
	}
	if got := ran.Load(); got != 1 {
		t.Errorf("the call reached the server %d times, want 1", got)
	}
	for _, s := range r.seen() {
		if strings.HasPrefix(s, "GET ") {
			t.Errorf("server saw %q: a 2026-07-28 stream was resumed", s)
		}
	}
}
