package streamablehttp_test

import (
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// stall holds the first tools/call until the client goes away; with
// headers true it sends the response headers first.
func stall(headers bool) func(http.Handler) http.Handler {
	return onFirstToolCall(func(w http.ResponseWriter, r *http.Request, _ http.Handler) {
		if headers {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			http.NewResponseController(w).Flush()
		}
		<-r.Context().Done()
	})
}

func TestTimeouts(t *testing.T) {
	const bound = 200 * time.Millisecond
	for _, tc := range []struct {
		name     string
		headers  bool
		timeouts streamablehttp.Timeouts
		phase    string
	}{
		{"response header", false, streamablehttp.Timeouts{ResponseHeader: bound}, "response header"},
		{"idle read", true, streamablehttp.Timeouts{IdleRead: bound}, "idle read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			r := newRig(t, rigConfig{middleware: stall(tc.headers)})
			cs := connect(t, newFactory(t, r.url(), &streamablehttp.Options{Timeouts: tc.timeouts, DisableStandaloneSSE: true}))
			_, err := callCount(t, cs)
			if !errors.Is(err, transport.ErrTimeout) {
				t.Fatalf("CallTool error = %v, want ErrTimeout", err)
			}
			if tc.phase == "response header" {
				// This one comes straight from the round trip, typed.
				var te *transport.TimeoutError
				if !errors.As(err, &te) || te.Phase != tc.phase || te.Limit != bound {
					t.Errorf("TimeoutError = %+v, want phase %q, limit %v", te, tc.phase, bound)
				}
			}
			// Not re-sent, and the session survives.
			if _, err := callCount(t, cs); err != nil {
				t.Fatalf("next CallTool: %v", err)
			}
			if n := r.calls.Load(); n != 1 {
				t.Errorf("tool executed %d times, want 1 (the second call only)", n)
			}
		})
	}
}

func TestCloseIsBounded(t *testing.T) {
	leakcheck.Check(t)
	var deletes atomic.Bool
	r := newRig(t, rigConfig{middleware: func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.Method == http.MethodDelete && deletes.CompareAndSwap(false, true) {
				<-req.Context().Done() // never answer
				return
			}
			next.ServeHTTP(w, req)
		})
	}})
	const bound = 200 * time.Millisecond
	cs := connect(t, newFactory(t, r.url(), &streamablehttp.Options{Timeouts: streamablehttp.Timeouts{Close: bound}}))
	start := time.Now()
	err := cs.Close()
	// The go-sdk's own bound is 5s; ours is what ends it.
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("Close took %v, want about %v", d, bound)
	}
	var te *transport.TimeoutError
	if !errors.As(err, &te) || te.Phase != "close" {
		t.Errorf("Close error = %v, want a close TimeoutError", err)
	}
	// End the server's session, which the unanswered DELETE left open.
	req, _ := http.NewRequest(http.MethodDelete, r.url(), nil)
	req.Header.Set("Mcp-Session-Id", cs.ID())
	resp, err := r.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}
