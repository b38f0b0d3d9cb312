package httpguard

import (
	"errors"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/leakcheck"
)

func TestCheckRedirect(t *testing.T) {
	leakcheck.Check(t)
	home, _ := auth.ParseOrigin("https://home.example")
	req := func(method, rawURL string) *http.Request {
		u, _ := url.Parse(rawURL)
		return &http.Request{Method: method, URL: u, Response: &http.Response{StatusCode: 307}}
	}
	chain := func(n int, method string) []*http.Request {
		var via []*http.Request
		for range n {
			via = append(via, req(method, "https://home.example/a"))
		}
		return via
	}
	for _, tc := range []struct {
		name string
		to   string
		via  []*http.Request
		want Redirect
	}{
		{"GET same origin", "https://home.example/b", chain(1, "GET"),
			Redirect{Rule: RedirectAllowed, Method: "GET", Status: 307, To: "https://home.example"}},
		{"GET other origin", "https://other.example/b", chain(1, "GET"),
			Redirect{Rule: RedirectCrossOrigin, Method: "GET", Status: 307, To: "https://other.example"}},
		{"GET other port", "https://home.example:8443/b", chain(1, "GET"),
			Redirect{Rule: RedirectCrossOrigin, Method: "GET", Status: 307, To: "https://home.example:8443"}},
		{"POST same origin", "https://home.example/b", chain(1, "POST"),
			Redirect{Rule: RedirectPOST, Method: "POST", Status: 307, To: "https://home.example"}},
		{"GET too many", "https://home.example/b", chain(MaxRedirects+1, "GET"),
			Redirect{Rule: RedirectTooMany, Method: "GET", Status: 307, To: "https://home.example"}},
	} {
		got := CheckRedirect(home, req(tc.via[0].Method, tc.to), tc.via)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: CheckRedirect mismatch (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestParseEndpoint(t *testing.T) {
	leakcheck.Check(t)
	errInsecure := errors.New("insecure")
	errAny := errors.New("any error") // refused, with no sentinel
	for _, tc := range []struct {
		endpoint string
		c        Config
		want     error
	}{
		{"https://h.example/mcp", Config{}, nil},
		{"http://127.0.0.1:9/mcp", Config{}, nil},
		{"http://h.example/mcp", Config{}, errInsecure},
		{"http://h.example/mcp", Config{AllowInsecureHTTP: true}, nil},
		{"https://h.example/mcp#frag", Config{}, errAny},
		{"mailto:x@h.example", Config{}, auth.ErrInvalidOrigin},
	} {
		ep, err := ParseEndpoint("t", tc.endpoint, tc.c, errInsecure)
		switch {
		case tc.want == errAny:
			if err == nil {
				t.Errorf("ParseEndpoint(%q) accepted it, want an error", tc.endpoint)
			}
		case tc.want != nil && !errors.Is(err, tc.want):
			t.Errorf("ParseEndpoint(%q) error = %v, want %v", tc.endpoint, err, tc.want)
		case tc.want == nil && err != nil:
			t.Errorf("ParseEndpoint(%q): %v", tc.endpoint, err)
		case tc.want == nil && ep.TLS.MinVersion == 0:
			t.Errorf("ParseEndpoint(%q): TLS MinVersion unset", tc.endpoint)
		}
	}
}
