package sse_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/sse"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// silentStream answers the session GET with headers and then nothing.
func silentStream(http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		<-req.Context().Done()
	})
}

// noHeaders never answers.
func noHeaders(http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		<-req.Context().Done()
	})
}

func TestConnectTimeouts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		server   func(http.Handler) http.Handler
		timeouts sse.Timeouts
		want     *transport.TimeoutError
	}{
		{"no headers", noHeaders, sse.Timeouts{ResponseHeader: 100 * time.Millisecond},
			&transport.TimeoutError{Transport: "sse", Phase: "response header", Limit: 100 * time.Millisecond}},
		{"no endpoint", silentStream, sse.Timeouts{IdleRead: 100 * time.Millisecond},
			&transport.TimeoutError{Transport: "sse", Phase: "idle read", Limit: 100 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			r := newRig(t, tc.server)
			start := time.Now()
			_, err := connectErr(t, newFactory(t, r.url(), &sse.Options{Timeouts: tc.timeouts}))
			var te *transport.TimeoutError
			if !errors.As(err, &te) || !errors.Is(err, transport.ErrTimeout) {
				t.Fatalf("Connect error = %v, want a *TimeoutError", err)
			}
			if te.Phase != tc.want.Phase || te.Limit != tc.want.Limit {
				t.Errorf("TimeoutError = %v, want phase %q after %v", te, tc.want.Phase, tc.want.Limit)
			}
			// The error names the bound that fired; the time only tells it
			// from the default bounds (60 s), which a loaded machine
			// cannot reach by accident.
			if d := time.Since(start); d > sse.DefaultResponseHeaderTimeout/2 {
				t.Errorf("Connect took %v: the default bound ended it, not the %v set", d, tc.want.Limit)
			}
		})
	}
}

func TestSilentCallTimesOut(t *testing.T) {
	leakcheck.Check(t)
	r := newRig(t, nil)
	cs := connect(t, newFactory(t, r.url(), &sse.Options{Timeouts: sse.Timeouts{IdleRead: 200 * time.Millisecond}}))
	_, err := cs.CallTool(testkit.Context(t), &mcp.CallToolParams{Name: "block"})
	var te *transport.TimeoutError
	if !errors.As(err, &te) || te.Phase != "idle read" {
		t.Errorf("CallTool error = %v, want an idle read *TimeoutError", err)
	}
}

// TestIdleSessionNotTimedOut proves that a session with nothing in flight
// outlives IdleRead: the test waits out several idle bounds on purpose
// (the wait is what is tested, not a synchronisation).
func TestIdleSessionNotTimedOut(t *testing.T) {
	leakcheck.Check(t)
	r := newRig(t, nil)
	const idle = 50 * time.Millisecond
	cs := connect(t, newFactory(t, r.url(), &sse.Options{Timeouts: sse.Timeouts{IdleRead: idle}}))
	if _, err := callCount(t, cs); err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	<-time.After(5 * idle)
	if _, err := callCount(t, cs); err != nil {
		t.Errorf("CallTool after %v of silence: %v", 5*idle, err)
	}
}

// TestConnectContextEndsConnect proves that Connect honours its context
// while it waits for the endpoint event, and says so.
func TestConnectContextEndsConnect(t *testing.T) {
	leakcheck.Check(t)
	r := newRig(t, silentStream)
	tr, err := newFactory(t, r.url(), nil).Transport()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = tr.Connect(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, transport.ErrProtocol) {
		t.Errorf("Connect error = %v, want the context's deadline", err)
	}
}
