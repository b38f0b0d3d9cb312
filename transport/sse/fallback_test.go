package sse_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/sse"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStreamableServerIsNotFallenBackTo connects to servers that speak only
// Streamable HTTP: the error names the other transport, and nothing but the
// one session GET is sent (no POST, no second attempt).
func TestStreamableServerIsNotFallenBackTo(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   *mcp.StreamableHTTPOptions
		status int
	}{
		{"stateful", nil, http.StatusBadRequest},
		{"stateless", &mcp.StreamableHTTPOptions{Stateless: true}, http.StatusMethodNotAllowed},
		{"json", nil, http.StatusOK}, // a plain handler below answers JSON
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			s := mcp.NewServer(&mcp.Implementation{Name: "streamable", Version: "v0"}, nil)
			var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, tc.opts)
			if tc.status == http.StatusOK {
				h = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
				})
			}
			var mu sync.Mutex
			var methods []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				methods = append(methods, r.Method)
				mu.Unlock()
				h.ServeHTTP(w, r)
			}))
			defer srv.Close()

			_, err := client.Connect(testkit.Context(t), client.Definition{
				Name: "streamable", Profile: client.ProfileLegacy, Transport: newFactory(t, srv.URL, nil),
			}, nil)
			if err == nil || !strings.Contains(err.Error(), "transport/streamablehttp") {
				t.Errorf("client.Connect error = %v, want one naming transport/streamablehttp", err)
			}
			var se *sse.StatusError
			if !errors.As(err, &se) || se.Status != tc.status || !errors.Is(err, transport.ErrProtocol) {
				t.Errorf("StatusError = %+v, want status %d", se, tc.status)
			}
			var ce *client.Error
			if !errors.As(err, &ce) || ce.Class != client.ClassProtocol {
				t.Errorf("client.Connect error = %v, want a protocol failure", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff([]string{http.MethodGet}, methods); diff != "" {
				t.Errorf("requests mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnauthorizedIsAnAuthFailure(t *testing.T) {
	leakcheck.Check(t)
	r := newRig(t, func(http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "no", http.StatusUnauthorized)
		})
	})
	_, err := client.Connect(testkit.Context(t), client.Definition{
		Name: "rig", Profile: client.ProfileLegacy, Transport: newFactory(t, r.url(), nil),
	}, nil)
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Class != client.ClassAuth || !errors.Is(err, transport.ErrAuth) {
		t.Errorf("client.Connect error = %v, want an auth failure wrapping ErrAuth", err)
	}
	if diff := cmp.Diff([]string{"GET "}, r.seen()); diff != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", diff)
	}
}
