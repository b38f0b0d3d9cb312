package sse_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/sse"
)

// Every status rule of Classify at its edges, with its negative cases: a
// 5xx (500 and 599, not 499 or 600 on a GET), a 429 (not 428 or 430 on a
// GET) and a POST's 4xx (400 and 499, not 399 or 600; 404 the session
// gone) are the server's, as on Streamable HTTP; the session GET's 404 is
// not (there is no session yet to be gone: the endpoint is wrong); 401 and
// 403 are auth, on a POST too; any other status breaks the protocol. Each
// is wrapped as the go-sdk wraps it. The error itself matches that class,
// and no other.
func TestStatusClassesAtTheirEdges(t *testing.T) {
	f := newFactory(t, "http://127.0.0.1:1/sse", nil)
	for _, tc := range []struct {
		method string
		status int
		want   error
	}{
		{http.MethodPost, 404, transport.ErrServer},
		{http.MethodGet, 404, transport.ErrProtocol},
		{http.MethodPost, 499, transport.ErrServer},
		{http.MethodPost, 399, transport.ErrProtocol},
		{http.MethodGet, 499, transport.ErrProtocol},
		{http.MethodPost, 500, transport.ErrServer},
		{http.MethodGet, 500, transport.ErrServer},
		{http.MethodPost, 599, transport.ErrServer},
		{http.MethodGet, 599, transport.ErrServer},
		{http.MethodPost, 600, transport.ErrProtocol},
		{http.MethodPost, 400, transport.ErrServer},
		{http.MethodGet, 400, transport.ErrProtocol},
		{http.MethodPost, 429, transport.ErrServer},
		{http.MethodGet, 429, transport.ErrServer},
		{http.MethodGet, 428, transport.ErrProtocol},
		{http.MethodGet, 430, transport.ErrProtocol},
		{http.MethodPost, 405, transport.ErrServer},
		{http.MethodGet, 405, transport.ErrProtocol},
		{http.MethodPost, 403, transport.ErrAuth},
		{http.MethodGet, 200, transport.ErrProtocol}, // not an event stream
		{http.MethodPost, 401, transport.ErrAuth},
		{http.MethodGet, 403, transport.ErrAuth},
	} {
		err := fmt.Errorf("calling: %w", &sse.StatusError{Method: tc.method, Status: tc.status})
		if got := f.Classify(err); !errors.Is(got, tc.want) {
			t.Errorf("%s answered %d: Classify = %v, want %v", tc.method, tc.status, got, tc.want)
		}
		for _, s := range classes {
			if errors.Is(err, s) != (s == tc.want) {
				t.Errorf("%s answered %d: errors.Is(err, %v) = %v, want %v", tc.method, tc.status, s, !(s == tc.want), s == tc.want)
			}
		}
	}
}

// classes are package transport's class sentinels.
var classes = []error{transport.ErrStart, transport.ErrPolicy, transport.ErrAuth, transport.ErrProtocol,
	transport.ErrTimeout, transport.ErrBroken, transport.ErrServer, transport.ErrMismatch}

// TestEndpointErrorIsPolicy: the folded ErrCrossOriginEndpoint keeps its
// text and matches transport.ErrPolicy, and no other class.
func TestEndpointErrorIsPolicy(t *testing.T) {
	err := fmt.Errorf("connecting: %w", &sse.EndpointError{Endpoint: "https://evil.example/m", Origin: "https://evil.example"})
	want := `connecting: sse: endpoint event names another origin: "https://evil.example/m" is on https://evil.example`
	if got := err.Error(); got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	for _, s := range classes {
		if errors.Is(err, s) != (s == transport.ErrPolicy) {
			t.Errorf("errors.Is(err, %v) = %v", s, errors.Is(err, s))
		}
	}
}
