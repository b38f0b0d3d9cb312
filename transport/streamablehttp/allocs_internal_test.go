package streamablehttp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"testing"

	"github.com/looprig/mcp/internal/testkit"
)

// callPolicyAllocs is what this package allocates for a tools/call over
// Streamable HTTP answered on an event stream, on top of what the request,
// the server's response and reading it allocate anyway: reading the call
// again (GetBody) and its header (the call, and its id as the go-sdk boxes
// it; the method and the id's encoding need none), the request's own
// context, cancel and write trace, what the request holds with its stream
// (exchange), what an idle read's expiry calls, the events' ids and the
// answer's data and header. It is the edge: TestCallPolicyAllocations
// fails at one more.
const callPolicyAllocs = 20

// TestCallPolicyAllocations counts the allocations of the policy on a
// call's round trip and the reading of its answer, against those of the
// same request and response without it.
func TestCallPolicyAllocations(t *testing.T) {
	if testkit.RaceEnabled {
		t.Skip("the race detector changes what allocates")
	}
	const runs = 200
	var bodies, streams [][]byte // each call has an id of its own: the replay guard refuses one sent before
	for i := range 2*runs + 2 {
		id := 1000 + i
		bodies = append(bodies, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"count"}}`, id))
		streams = append(streams, fmt.Appendf(nil, "event: prime\nid: s_0\ndata: \n\nevent: message\nid: s_1\n"+
			`data: {"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"done"}]}}`+"\n\n", id))
	}
	next := 0
	respond := func(r *http.Request) *http.Response {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: &netBody{pieces: pieces{streams[next-1]}}, Request: r}
	}
	network := baseFunc(func(r *http.Request) (*http.Response, error) { return respond(r), nil })
	f, err := New("http://127.0.0.1:1/mcp", &Options{Base: network})
	if err != nil {
		t.Fatal(err)
	}
	f.opts.Base = network // the network's stand-in, not a caller's base: no guard (httpguard.GuardBase)
	st := newConnState(f)
	t.Cleanup(st.shutdown)
	request := func() *http.Request {
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/mcp", bytes.NewReader(bodies[next]))
		next++
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		return req
	}
	buf := make([]byte, 4<<10)
	drain := func(body io.ReadCloser) {
		for {
			if _, err := body.Read(buf); err != nil {
				break
			}
		}
		body.Close()
	}
	bare := testing.AllocsPerRun(runs, func() { drain(respond(request()).Body) })
	next = 0
	policy := testing.AllocsPerRun(runs, func() {
		resp, err := st.RoundTrip(request())
		if err != nil {
			t.Fatal(err)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Fatalf("the answer was handed over as %s, want application/json", ct)
		}
		drain(resp.Body)
	})
	if got := policy - bare; got > callPolicyAllocs {
		t.Errorf("the policy allocates %v times per call (%v with it, %v without), want at most %d", got, policy, bare, callPolicyAllocs)
	} else {
		t.Logf("the policy allocates %v times per call (%v with it, %v without)", got, policy, bare)
	}
}

// guardAllocs is what httpguard.GuardBase adds to a call through a
// caller's Options.Base: the request's context, cancel, and GetConn and
// ConnectStart trace (with the dialer's), and what the call holds (the
// addresses it connected to, its body). It is the edge:
// TestGuardedBaseAllocations fails at one more.
const guardAllocs = 10

// TestGuardedBaseAllocations counts what guarding a caller's base against
// redirects adds to a call's round trip.
func TestGuardedBaseAllocations(t *testing.T) {
	if testkit.RaceEnabled {
		t.Skip("the race detector changes what allocates")
	}
	const runs = 200
	respond := func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	}
	f, err := New("http://127.0.0.1:1/mcp", &Options{Base: baseFunc(respond)})
	if err != nil {
		t.Fatal(err)
	}
	// The request carries a trace, as the transport's own do (its write).
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:1/mcp", http.NoBody)
	count := func(rt http.RoundTripper) float64 {
		return testing.AllocsPerRun(runs, func() {
			resp, err := rt.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		})
	}
	bare, guarded := count(baseFunc(respond)), count(f.opts.Base)
	if got := guarded - bare; got > guardAllocs {
		t.Errorf("the guard allocates %v times per call (%v with it, %v without), want at most %d", got, guarded, bare, guardAllocs)
	} else {
		t.Logf("the guard allocates %v times per call (%v with it, %v without)", got, guarded, bare)
	}
}
