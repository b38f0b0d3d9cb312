package httpguard

import (
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
)

func TestRedirectPolicy(t *testing.T) {
	leakcheck.Check(t)
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
	refused := func(method, to string, err error) *transport.RedirectError {
		return &transport.RedirectError{Transport: "t", Method: method, Status: 307, To: to, Err: err}
	}
	policy := RedirectPolicy("t")
	for _, tc := range []struct {
		name string
		to   string
		via  []*http.Request
		want *transport.RedirectError // nil: followed
	}{
		{"GET same origin", "https://home.example/b", chain(1, "GET"), nil},
		{"GET up to the bound", "https://home.example/b", chain(transport.MaxRedirects, "GET"), nil},
		{"GET other origin", "https://other.example/b", chain(1, "GET"),
			refused("GET", "https://other.example", &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect})},
		{"GET other port", "https://home.example:8443/b", chain(1, "GET"),
			refused("GET", "https://home.example:8443", &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect})},
		{"GET other scheme", "http://home.example/b", chain(1, "GET"),
			refused("GET", "http://home.example", &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect})},
		{"GET other scheme, port 443", "http://home.example:443/b", chain(1, "GET"),
			refused("GET", "http://home.example:443", &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect})},
		{"GET look-alike host", "https://home.example.evil.example/b", chain(1, "GET"),
			refused("GET", "https://home.example.evil.example", &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect})},
		{"GET userinfo", "https://home.example@evil.example/b", chain(1, "GET"),
			refused("GET", "null", &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect})}, // no origin: userinfo is refused
		{"DELETE other origin", "https://other.example/b", chain(1, "DELETE"),
			refused("DELETE", "https://other.example", &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect})},
		{"GET no origin", "file:///etc/passwd", chain(1, "GET"),
			refused("GET", "null", &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect})},
		{"POST same origin", "https://home.example/b", chain(1, "POST"),
			refused("POST", "https://home.example", &transport.PolicyError{Rule: transport.RuleRedirectedPOST})},
		{"POST other origin", "https://other.example/b", chain(1, "POST"),
			refused("POST", "https://other.example", &transport.PolicyError{Rule: transport.RuleRedirectedPOST})},
		{"GET too many", "https://home.example/b", chain(transport.MaxRedirects+1, "GET"),
			refused("GET", "https://home.example", &transport.PolicyError{Rule: transport.RuleTooManyRedirects})},
	} {
		err := policy(req(tc.via[0].Method, tc.to), tc.via)
		got, ok := err.(*transport.RedirectError)
		if err != nil && !ok {
			t.Errorf("%s: RedirectPolicy returned %T %v, want a *transport.RedirectError", tc.name, err, err)
		}
		if diff := cmp.Diff(tc.want, got, sameError); diff != "" {
			t.Errorf("%s: RedirectPolicy mismatch (-want +got):\n%s", tc.name, diff)
		}
	}
}

// sameError compares the Err fields with errors.Is both ways: a refusal
// must be by the same rule.
var sameError = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Err" },
	cmp.Comparer(func(a, b error) bool { return errors.Is(a, b) && errors.Is(b, a) }))

func TestCheckOrigin(t *testing.T) {
	leakcheck.Check(t)
	home, _ := auth.ParseOrigin("https://home.example")
	for _, tc := range []struct {
		url  string
		want error
	}{
		{"https://home.example/mcp", nil},
		{"https://home.example:443/mcp", nil},
		{"https://other.example/mcp", &transport.PolicyError{Rule: transport.RuleCrossOrigin}},
		{"http://home.example/mcp", &transport.PolicyError{Rule: transport.RuleCrossOrigin}},
	} {
		body := &closeCounter{}
		req, _ := http.NewRequest(http.MethodPost, tc.url, body)
		err := CheckOrigin("t", home, req)
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("CheckOrigin(%q) = %v, want %v", tc.url, err, tc.want)
		}
		if wantClosed := tc.want != nil; body.closed != wantClosed {
			t.Errorf("CheckOrigin(%q) closed the body: %v, want %v", tc.url, body.closed, wantClosed)
		}
	}
}

type closeCounter struct{ closed bool }

func (c *closeCounter) Read([]byte) (int, error) { return 0, io.EOF }
func (c *closeCounter) Close() error             { c.closed = true; return nil }

// TestParseEndpoint is the validation both transports' New apply.
func TestParseEndpoint(t *testing.T) {
	leakcheck.Check(t)
	errAny := errors.New("any error") // refused, with no sentinel
	for _, tc := range []struct {
		endpoint string
		c        Config
		want     error // nil: accepted
	}{
		{"https://mcp.example.com/mcp", Config{}, nil},
		{"http://127.0.0.1:8080/mcp", Config{}, nil},
		{"http://[::1]:8080/mcp", Config{}, nil},
		{"http://localhost/mcp", Config{}, nil},
		{"http://mcp.example.com/mcp", Config{}, &transport.PolicyError{Rule: transport.RuleInsecure}},
		{"http://10.0.0.1/mcp", Config{}, &transport.PolicyError{Rule: transport.RuleInsecure}},
		{"http://mcp.example.com/mcp", Config{AllowInsecureHTTP: true}, nil},
		{"https://mcp.example.com/mcp", Config{TLSConfig: &tls.Config{MinVersion: tls.VersionTLS10}}, &transport.PolicyError{Rule: transport.RuleInsecure}},
		{"https://mcp.example.com/mcp", Config{TLSConfig: &tls.Config{MinVersion: tls.VersionTLS13}}, nil},
		{"https://mcp.example.com/mcp#frag", Config{}, errAny},
		{"ftp://mcp.example.com/mcp", Config{}, auth.ErrInvalidArgument},
		{"https://user:pw@mcp.example.com/mcp", Config{}, auth.ErrInvalidArgument},
		{"/mcp", Config{}, auth.ErrInvalidArgument},
		{"mailto:x@h.example", Config{}, auth.ErrInvalidArgument},
	} {
		ep, err := ParseEndpoint("t", tc.endpoint, tc.c)
		switch {
		case tc.want == errAny:
			if err == nil {
				t.Errorf("ParseEndpoint(%q) accepted it, want an error", tc.endpoint)
			}
		case tc.want != nil && !errors.Is(err, tc.want):
			t.Errorf("ParseEndpoint(%q) error = %v, want %v", tc.endpoint, err, tc.want)
		case tc.want == nil && err != nil:
			t.Errorf("ParseEndpoint(%q): %v", tc.endpoint, err)
		case tc.want == nil && ep.TLS.MinVersion < tls.VersionTLS12:
			t.Errorf("ParseEndpoint(%q): TLS MinVersion %#x, want at least TLS 1.2", tc.endpoint, ep.TLS.MinVersion)
		case tc.want == nil:
			if o, _ := auth.ParseOrigin(tc.endpoint); ep.Origin != o {
				t.Errorf("ParseEndpoint(%q).Origin = %v, want %v", tc.endpoint, ep.Origin, o)
			}
		}
	}
}

func TestParseEndpointNamesTransport(t *testing.T) {
	leakcheck.Check(t)
	_, err := ParseEndpoint("sse", "http://mcp.example.com/sse", Config{})
	want := "sse: insecure endpoint: plain http to http://mcp.example.com (set AllowInsecureHTTP to permit it)"
	if err == nil || err.Error() != want {
		t.Errorf("ParseEndpoint error = %v, want %q", err, want)
	}
}

// roundTripFunc records what reaches the base.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// TestCarrierBase proves that a given base carries the requests, with the
// credential on the endpoint's origin only.
func TestCarrierBase(t *testing.T) {
	leakcheck.Check(t)
	ep, err := ParseEndpoint("t", "https://home.example/mcp", Config{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	base := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		got = append(got, req.URL.Host+" "+req.Header.Get("Authorization"))
		return &http.Response{StatusCode: 200, Body: http.NoBody, Request: req}, nil
	})
	c := NewCarrier(ep, base, nil, auth.Bearer(auth.NewToken("tok")), Timeouts{}, 1)
	for _, u := range []string{"https://home.example/mcp", "https://other.example/mcp"} {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		resp, err := c.RoundTrip(req)
		if err == nil {
			resp.Body.Close()
		}
	}
	c.CloseIdleConnections() // a base is not the carrier's to close: no panic, no effect
	want := []string{"home.example Bearer tok", "other.example "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests at the base mismatch (-want +got):\n%s", diff)
	}
}

// TestRewrap: wraps given one after another carry a request outermost last:
// the last wrap a transport's WithBase was given sees a request first, and
// the base sees it last.
func TestRewrap(t *testing.T) {
	var order []string
	layer := func(name string) func(http.RoundTripper) http.RoundTripper {
		return func(next http.RoundTripper) http.RoundTripper {
			return rtFunc(func(req *http.Request) (*http.Response, error) {
				order = append(order, name)
				return next.RoundTrip(req)
			})
		}
	}
	var wrap func(http.RoundTripper) http.RoundTripper
	for _, name := range []string{"first", "second", "third"} {
		wrap = Rewrap(wrap, layer(name))
	}
	base := rtFunc(func(*http.Request) (*http.Response, error) {
		order = append(order, "base")
		return &http.Response{StatusCode: 204, Body: http.NoBody}, nil
	})
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
	if _, err := wrap(base).RoundTrip(req); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"third", "second", "first", "base"}, order); diff != "" {
		t.Errorf("order mismatch (-want +got):\n%s", diff)
	}
}

type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
