package fakeserver

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/server"
)

// TestHTTPHandlerRefusesOtherSitesFirst: a request with a rebound Host or
// a cross-site Origin is answered 403 before the fake's faults or log see
// it: a scripted 401 does not answer it, Requests stays empty, no tool
// runs. HTTPOptions.Serving.AllowedOrigins admits a listed origin.
func TestHTTPHandlerRefusesOtherSitesFirst(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		name         string
		serving      *server.HTTPOptions
		host, origin string
		want         int
		logged       int
	}{
		{"rebound host", nil, "evil.example", "", http.StatusForbidden, 0},
		{"cross-site origin", nil, "127.0.0.1", "https://evil.example", http.StatusForbidden, 0},
		{"null origin", nil, "127.0.0.1", "null", http.StatusForbidden, 0},
		{"loopback, to the scripted 401", nil, "127.0.0.1", "", http.StatusUnauthorized, 1},
		{"allowed origin", &server.HTTPOptions{AllowedOrigins: []string{"https://app.example"}}, "127.0.0.1", "https://app.example", http.StatusUnauthorized, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseFault("unauthorized")
			if err != nil {
				t.Fatal(err)
			}
			s, err := New(&Options{Faults: []Fault{f}})
			if err != nil {
				t.Fatal(err)
			}
			h, err := s.HTTPHandler(&HTTPOptions{Serving: tc.serving})
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(h)
			defer func() { ts.Close(); h.Close() }()
			req, _ := http.NewRequestWithContext(testkit.Context(t), http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			req.Host = tc.host
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want || len(h.Requests()) != tc.logged {
				t.Errorf("status %d, %d requests logged; want %d and %d", resp.StatusCode, len(h.Requests()), tc.want, tc.logged)
			}
		})
	}
}
