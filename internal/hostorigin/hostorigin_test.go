package hostorigin

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
)

var (
	loopback = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	mapped   = &net.TCPAddr{IP: net.ParseIP("::ffff:127.0.0.1"), Port: 8080}
	public   = &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 443}
)

func TestPolicy(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		name    string
		cfg     Config
		local   net.Addr // nil: unknown
		host    string
		origins []string // nil: no Origin header
		allowed bool
	}{
		{"loopback ip", Config{}, loopback, "127.0.0.1:8080", nil, true},
		{"loopback ip, no port", Config{}, loopback, "127.0.0.1", nil, true},
		{"other loopback ip", Config{}, loopback, "127.8.9.10:8080", nil, true},
		{"localhost", Config{}, loopback, "localhost:8080", nil, true},
		{"LOCALHOST", Config{}, loopback, "LOCALHOST:8080", nil, true},
		{"ipv6 loopback", Config{}, loopback, "[::1]:8080", nil, true},
		{"ipv6 loopback, no port", Config{}, loopback, "[::1]", nil, true},
		{"ipv4-mapped loopback", Config{}, loopback, "[::ffff:127.0.0.1]:8080", nil, true},
		{"served on a mapped address", Config{}, mapped, "evil.example", nil, false},
		{"dot localhost", Config{}, loopback, "app.localhost", nil, true},
		{"foreign host on loopback", Config{}, loopback, "evil.example", nil, false},
		{"foreign host with port", Config{}, loopback, "evil.example:8080", nil, false},
		{"localhost as a subdomain", Config{}, loopback, "localhost.evil.example", nil, false},
		{"loopback ip as a subdomain", Config{}, loopback, "127.0.0.1.nip.io:8080", nil, false},
		{"trailing dot", Config{}, loopback, "localhost.:8080", nil, false},
		{"ip trailing dot", Config{}, loopback, "127.0.0.1.", nil, false},
		{"short ip", Config{}, loopback, "127.1", nil, false},
		{"decimal ip", Config{}, loopback, "2130706433", nil, false},
		{"hex ip", Config{}, loopback, "0x7f.0.0.1", nil, false},
		{"empty port", Config{}, loopback, "localhost:", nil, false},
		{"port 0", Config{}, loopback, "localhost:0", nil, false},
		{"port too big", Config{}, loopback, "localhost:65536", nil, false},
		{"port with sign", Config{}, loopback, "localhost:+80", nil, false},
		{"two ports", Config{}, loopback, "localhost:80:80", nil, false},
		{"user info", Config{}, loopback, "evil.example@localhost", nil, false},
		{"zoned ipv6", Config{}, loopback, "[::1%25lo]:8080", nil, false},
		{"unbracketed ipv6", Config{}, loopback, "::1", nil, false},
		{"half bracket", Config{}, loopback, "[::1", nil, false},
		{"empty host on loopback", Config{}, loopback, "", nil, false},
		{"unknown local address is loopback", Config{}, nil, "evil.example", nil, false},
		{"loopback origin any port", Config{}, loopback, "localhost:8080", []string{"http://localhost:3000"}, true},
		{"upper-case loopback origin", Config{}, loopback, "localhost:8080", []string{"HTTP://LOCALHOST:3000"}, true},
		{"ipv6 loopback origin", Config{}, loopback, "localhost:8080", []string{"http://[::1]:3000"}, true},
		{"same origin", Config{}, loopback, "127.0.0.1:8080", []string{"http://127.0.0.1:8080"}, true},
		{"null origin", Config{}, loopback, "localhost:8080", []string{"null"}, false},
		{"empty origin", Config{}, loopback, "localhost:8080", []string{""}, false},
		{"two origins", Config{}, loopback, "localhost:8080", []string{"http://localhost:3000", "http://localhost:3000"}, false},
		{"origin with path", Config{}, loopback, "localhost:8080", []string{"http://localhost:3000/x"}, false},
		{"file origin", Config{}, loopback, "localhost:8080", []string{"file://"}, false},
		{"foreign origin on loopback", Config{}, loopback, "localhost:8080", []string{"https://evil.example"}, false},
		{"rebinding origin", Config{}, loopback, "localhost:8080", []string{"http://localhost.evil.example:8080"}, false},
		{"public: any host", Config{}, public, "mcp.example.com", nil, true},
		{"public: same origin", Config{}, public, "mcp.example.com", []string{"https://mcp.example.com"}, true},
		{"public: same origin, explicit port", Config{}, public, "mcp.example.com:8443", []string{"https://mcp.example.com:8443"}, true},
		{"public: other origin", Config{}, public, "mcp.example.com", []string{"https://evil.example"}, false},
		{"public: other port", Config{}, public, "mcp.example.com:8443", []string{"https://mcp.example.com"}, false},
		{"listed host any port", Config{AllowedHosts: []string{"mcp.example.com"}}, public, "mcp.example.com:1234", nil, true},
		{"listed host:port", Config{AllowedHosts: []string{"mcp.example.com:443"}}, public, "mcp.example.com:443", nil, true},
		{"listed host:port, other port", Config{AllowedHosts: []string{"mcp.example.com:443"}}, public, "mcp.example.com:444", nil, false},
		{"listed ipv6", Config{AllowedHosts: []string{"[2001:db8::1]"}}, public, "[2001:db8::1]:80", nil, true},
		{"unlisted host", Config{AllowedHosts: []string{"mcp.example.com"}}, public, "evil.example", nil, false},
		{"listed host on loopback, loopback no longer", Config{AllowedHosts: []string{"mcp.internal"}}, loopback, "localhost", nil, false},
		{"listed origin", Config{AllowedOrigins: []string{"https://app.example"}}, public, "mcp.example.com", []string{"https://APP.example"}, true},
		{"unlisted origin", Config{AllowedOrigins: []string{"https://app.example"}}, public, "mcp.example.com", []string{"https://mcp.example.com"}, false},
		{"listed origin on loopback", Config{AllowedOrigins: []string{"https://app.example"}}, loopback, "localhost", []string{"https://app.example"}, true},
		{"listed origin, null still refused", Config{AllowedOrigins: []string{"https://app.example"}}, loopback, "localhost", []string{"null"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			req.Host = tc.host
			for _, o := range tc.origins {
				req.Header.Add("Origin", o)
			}
			if tc.local != nil {
				req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, tc.local))
			}
			p, err := New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			err = p.Check(req)
			if got := err == nil; got != tc.allowed {
				t.Errorf("Check(Host %q, Origin %q) = %v; allowed %v, want %v", tc.host, tc.origins, err, got, tc.allowed)
			}
			var re *RefusedError
			if err != nil && !errors.As(err, &re) {
				t.Errorf("Check error %T, want *RefusedError", err)
			}
		})
	}
}

// TestHandlerRefusesBeforeTheHandler: a refused request gets 403 with the
// option that admits it named, and the handler behind never runs.
func TestHandlerRefusesBeforeTheHandler(t *testing.T) {
	leakcheck.Check(t)
	p, err := New(Config{HostsOption: "--allow-host", OriginsOption: "--allow-origin"})
	if err != nil {
		t.Fatal(err)
	}
	var runs int
	h := p.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { runs++ }))
	for _, tc := range []struct {
		host, origin, want string
	}{
		{"evil.example", "", "--allow-host admits other names"},
		{"localhost", "https://evil.example", "--allow-origin admits other origins"},
		{"localhost\x1b[2J", "", `\x1b[2J`},
	} {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
		req.Host = tc.host
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), tc.want) {
			t.Errorf("Host %q, Origin %q: %d %q; want 403 naming %q", tc.host, tc.origin, w.Code, w.Body, tc.want)
		}
	}
	if runs != 0 {
		t.Errorf("handler ran %d times behind refusals, want 0", runs)
	}
}

func TestNewRefusesABadOrigin(t *testing.T) {
	leakcheck.Check(t)
	if _, err := New(Config{AllowedOrigins: []string{"https://a.example", "http://localhost:8080", "http://[::1]:3000/"}}); err != nil {
		t.Fatalf("valid origins: %v", err)
	}
	for _, bad := range []string{"ftp://x", "https://user@a.example", "not a url", "", "null", "https://a.example/path", "https://a.example:0", "https://a.example:"} {
		_, err := New(Config{AllowedOrigins: []string{"https://a.example", bad}})
		var ee *EntryError
		if !errors.As(err, &ee) || !errors.Is(err, ErrInvalidOrigin) {
			t.Errorf("New(AllowedOrigins %q) error = %v; want an *EntryError wrapping ErrInvalidOrigin", bad, err)
			continue
		}
		if diff := cmp.Diff(EntryError{Index: 1, Value: bad}, EntryError{Index: ee.Index, Value: ee.Value}); diff != "" {
			t.Errorf("EntryError mismatch (-want +got):\n%s", diff)
		}
	}
}
