package streamablehttp_test

import (
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// hostileResume answers a GET that resumes a stream (Last-Event-ID) with
// body instead of the server's replay, then ends it.
func hostileResume(body string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "" {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.Write([]byte(body))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// A stream resumed with Last-Event-ID that breaks again before the answer,
// with nothing new to resume from, fails its call with CodeStreamDropped; one
// that passes a bound fails it with ErrLimit. Either way the tool ran once,
// the call was POSTed once, and it was resumed once.
func TestResumedStreamThatFailsAgain(t *testing.T) {
	const maxEvent = 4 << 10
	for _, tc := range []struct {
		name   string
		resume string // what the hostile server sends on the resumed stream
		want   error
		what   string
	}{
		{"breaks again", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n", &jsonrpc.Error{Code: streamablehttp.CodeStreamDropped}, "response stream dropped"},
		{"ends at once", "", &jsonrpc.Error{Code: streamablehttp.CodeStreamDropped}, "response stream dropped"},
		{"event over the bound", "data: " + strings.Repeat("x", maxEvent) + "\n\n", transport.ErrLimit, "sse event over"},
		{"stream over the bound", strings.Repeat(": keep-alive "+strings.Repeat("k", 1000)+"\n\n", 80), transport.ErrLimit, "stream over"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			drop := dropAfter(1, "10")
			r := newRig(t, rigConfig{eventStore: true, middleware: func(next http.Handler) http.Handler {
				return hostileResume(tc.resume, drop(next))
			}})
			cs := connect(t, newFactory(t, r.url(), &streamablehttp.Options{
				DisableStandaloneSSE: true,
				Limits:               streamablehttp.Limits{MaxEventBytes: maxEvent, MaxStreamBytes: 64 << 10},
			}))
			_, err := callCount(t, cs)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.what) {
				t.Errorf("CallTool error = %v, want %v (%q)", err, tc.want, tc.what)
			}
			if got := r.calls.Load(); got != 1 {
				t.Errorf("tool executed %d times, want 1", got)
			}
			var resumes, calls int
			for _, s := range r.seen() {
				method, id, _ := strings.Cut(s, " ")
				if method == http.MethodGet && id != "" {
					resumes++
				}
			}
			for _, s := range r.seen() {
				if strings.HasPrefix(s, "POST") {
					calls++
				}
			}
			if resumes != 1 {
				t.Errorf("server saw %d GETs with Last-Event-ID, want 1: %q", resumes, r.seen())
			}
			if calls != 3 { // initialize, notifications/initialized, the call
				t.Errorf("server saw %d POSTs, want 3 (the call once): %q", calls, r.seen())
			}
		})
	}
}

// failResumes is a base round tripper that fails every GET resuming a
// stream (Last-Event-ID) before any response, as a refused connection
// does, and counts them: the attempts themselves, which the network would
// not show (net/http tries a failed GET again on a new connection when the
// one it reused broke).
type failResumes struct {
	base    http.RoundTripper
	mu      sync.Mutex
	resumes int
}

func (f *failResumes) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet && req.Header.Get("Last-Event-ID") != "" {
		f.mu.Lock()
		f.resumes++
		f.mu.Unlock()
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	}
	return f.base.RoundTrip(req)
}

func (f *failResumes) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.resumes
}

// MaxResumeAttempts bounds the GETs that try to resume a dropped stream in
// a row: with a bound of 1, a resumption whose GET fails before any
// response is tried once and not again, and the call fails with
// CodeStreamDropped (its outcome unknown, not the go-sdk's connection
// failure); the tool ran once and was POSTed once. (Larger bounds wait the go-sdk's backoff, a
// second and more, between attempts.)
func TestResumeAttemptsAtTheEdge(t *testing.T) {
	leakcheck.Check(t)
	r := newRig(t, rigConfig{eventStore: true, middleware: dropAfter(1, "10")})
	pool := &http.Transport{}
	t.Cleanup(pool.CloseIdleConnections)
	base := &failResumes{base: pool}
	cs := connect(t, newFactory(t, r.url(), &streamablehttp.Options{DisableStandaloneSSE: true, MaxResumeAttempts: 1, Base: base}))
	if _, err := callCount(t, cs); !errors.Is(err, &jsonrpc.Error{Code: streamablehttp.CodeStreamDropped}) || !strings.Contains(err.Error(), "resumption failed: attempt 1 of 1: ") {
		t.Errorf("CallTool error = %v, want ErrStreamDropped once its resumption failed once", err)
	}
	if got := base.count(); got != 1 {
		t.Errorf("%d GETs tried to resume the stream, want exactly MaxResumeAttempts (1)", got)
	}
	posts := 0
	for _, s := range r.seen() {
		if strings.HasPrefix(s, http.MethodPost) {
			posts++
		}
	}
	if got := r.calls.Load(); got != 1 || posts != 3 {
		t.Errorf("tool executed %d times in %d POSTs, want once in 3 (initialize, initialized, the call)", got, posts)
	}
}

// refuseResume answers a GET that resumes a stream (Last-Event-ID) with
// code, as a server that ended the session (404) or failed (500) does.
func refuseResume(code int, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "" {
			http.Error(w, http.StatusText(code), code)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// A resumption refused with a status fails its call with CodeStreamDropped
// (the server had the call, which ran once, and its answer is lost), not
// with the session error the go-sdk would fail the connection with: 404
// would say only "session not found", as if the call had never been sent.
// The call was POSTed once and resumed once; a 2xx is not a refusal, any
// other final status is (a 3xx here is one the redirect policy did not
// follow).
func TestRefusedResumptionFailsTheCallAsDropped(t *testing.T) {
	for _, code := range []int{http.StatusNotFound, http.StatusInternalServerError, http.StatusBadRequest, http.StatusForbidden, http.StatusTooManyRequests, http.StatusNotModified} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			leakcheck.Check(t)
			drop := dropAfter(1, "10")
			r := newRig(t, rigConfig{eventStore: true, middleware: func(next http.Handler) http.Handler {
				return refuseResume(code, drop(next))
			}})
			cs := connect(t, newFactory(t, r.url(), &streamablehttp.Options{DisableStandaloneSSE: true}))
			_, err := callCount(t, cs)
			want := "resumption failed: the server refused it: " + strconv.Itoa(code)
			if !errors.Is(err, &jsonrpc.Error{Code: streamablehttp.CodeStreamDropped}) || !strings.Contains(err.Error(), want) {
				t.Errorf("CallTool error = %v, want ErrStreamDropped saying %q", err, want)
			}
			if got := r.calls.Load(); got != 1 {
				t.Errorf("tool executed %d times, want 1", got)
			}
			var resumes, posts int
			for _, s := range r.seen() {
				method, id, _ := strings.Cut(s, " ")
				switch {
				case method == http.MethodGet && id != "":
					resumes++
				case method == http.MethodPost:
					posts++
				}
			}
			if resumes != 1 || posts != 3 {
				t.Errorf("server saw %d resuming GETs and %d POSTs, want 1 and 3 (the call once): %q", resumes, posts, r.seen())
			}
		})
	}
}
