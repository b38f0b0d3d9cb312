package httpguard_test

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/sse"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// TestStructErrorsClassifiedAlike proves that both remote transports
// classify the shared error types (package transport's) alike.
func TestStructErrorsClassifiedAlike(t *testing.T) {
	leakcheck.Check(t)
	sf, err := sse.New("https://legacy.example/sse", nil)
	if err != nil {
		t.Fatal(err)
	}
	hf, err := streamablehttp.New("https://mcp.example/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		err  error
		want error // the transport sentinel both factories classify it as
	}{
		{fmt.Errorf("call: %w", &transport.LimitError{Transport: "sse", What: "body", Limit: 10}), transport.ErrPolicy},
		{fmt.Errorf("call: %w", &transport.TimeoutError{Transport: "sse", Phase: "idle read"}), transport.ErrTimeout},
		{fmt.Errorf("call: %w", &transport.RedirectError{Transport: "sse", Err: transport.ErrRedirectedPOST}), transport.ErrPolicy},
		{fmt.Errorf("call: %w", transport.ErrUnauthorized), transport.ErrAuth},
		{fmt.Errorf("call: %w", transport.ErrInsecure), transport.ErrPolicy},
	} {
		if got := sf.Classify(tc.err); got != tc.want {
			t.Errorf("sse Classify(%v) = %v, want %v", tc.err, got, tc.want)
		}
		if got := hf.Classify(tc.err); got != tc.want {
			t.Errorf("streamablehttp Classify(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
	// The shared sentinels stay distinct from one another, and from
	// streamablehttp's own ErrStreamDropped.
	if errors.Is(transport.ErrLimit, transport.ErrTimeout) || errors.Is(transport.ErrRedirectedPOST, transport.ErrCrossOriginRedirect) ||
		errors.Is(streamablehttp.ErrStreamDropped, transport.ErrLimit) || errors.Is(streamablehttp.ErrStreamDropped, transport.ErrTimeout) {
		t.Error("distinct sentinels match each other")
	}
}

// TestRealRedirectErrors drives each transport into a refused redirect and
// checks the error is package transport's, naming the transport.
func TestRealRedirectErrors(t *testing.T) {
	leakcheck.Check(t)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("other origin received %s %s", r.Method, r.URL)
	}))
	defer other.Close()
	// Every request is redirected to the other origin: sse's session GET
	// meets the cross-origin rule, streamablehttp's initialize POST the
	// POST rule.
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer home.Close()

	sf, err := sse.New(home.URL+"/sse", nil)
	if err != nil {
		t.Fatal(err)
	}
	err = connect(t, sf, sse.ProtocolVersion)
	var re *transport.RedirectError
	switch {
	case !errors.Is(err, transport.ErrCrossOriginRedirect):
		t.Errorf("sse Connect error = %v, want transport.ErrCrossOriginRedirect", err)
	case !errors.As(err, &re) || re.Transport != "sse":
		t.Errorf("sse Connect error = %v, want a *transport.RedirectError naming sse", err)
	}

	hf, err := streamablehttp.New(home.URL+"/mcp", &streamablehttp.Options{DisableStandaloneSSE: true})
	if err != nil {
		t.Fatal(err)
	}
	err = connect(t, hf, "")
	var sre *transport.RedirectError
	switch {
	case !errors.Is(err, transport.ErrRedirectedPOST):
		t.Errorf("streamablehttp Connect error = %v, want transport.ErrRedirectedPOST", err)
	case !errors.As(err, &sre) || sre.Transport != "streamablehttp":
		t.Errorf("streamablehttp Connect error = %v, want a *transport.RedirectError naming streamablehttp", err)
	}
}

// connect opens a go-sdk session over f, which it expects to fail, and
// returns the error.
func connect(t *testing.T, f transport.Factory, version string) error {
	t.Helper()
	_, err := testkit.TryConnect(t, testkit.Transport(t, f), &testkit.ConnectOptions{Version: version})
	if err == nil {
		t.Fatal("Connect succeeded, want a refused redirect")
	}
	return err
}

// TestNewValidates proves that both transports' New pass their options to
// ParseEndpoint (whose own test has the full table) and pin the endpoint's
// origin.
func TestNewValidates(t *testing.T) {
	leakcheck.Check(t)
	type options struct {
		allowInsecure bool
		tls           *tls.Config
	}
	news := map[string]func(endpoint string, o options) (auth.Origin, error){
		"sse": func(endpoint string, o options) (auth.Origin, error) {
			f, err := sse.New(endpoint, &sse.Options{AllowInsecureHTTP: o.allowInsecure, TLSConfig: o.tls})
			if err != nil {
				return auth.Origin{}, err
			}
			return f.Origin(), nil
		},
		"streamablehttp": func(endpoint string, o options) (auth.Origin, error) {
			f, err := streamablehttp.New(endpoint, &streamablehttp.Options{AllowInsecureHTTP: o.allowInsecure, TLSConfig: o.tls})
			if err != nil {
				return auth.Origin{}, err
			}
			return f.Origin(), nil
		},
	}
	for name, newFactory := range news {
		for _, tc := range []struct {
			endpoint string
			opts     options
			want     error // nil: accepted
		}{
			{"https://mcp.example.com/mcp", options{}, nil},
			{"http://127.0.0.1:8080/mcp", options{}, nil},
			{"http://mcp.example.com/mcp", options{}, transport.ErrInsecure},
			{"http://mcp.example.com/mcp", options{allowInsecure: true}, nil},
			{"https://mcp.example.com/mcp", options{tls: &tls.Config{MinVersion: tls.VersionTLS10}}, transport.ErrInsecure},
			{"https://mcp.example.com/mcp", options{tls: &tls.Config{MinVersion: tls.VersionTLS13}}, nil},
			{"https://user:pw@mcp.example.com/mcp", options{}, auth.ErrInvalidOrigin},
		} {
			got, err := newFactory(tc.endpoint, tc.opts)
			switch {
			case tc.want == nil && err != nil:
				t.Errorf("%s.New(%q): %v", name, tc.endpoint, err)
			case tc.want != nil && !errors.Is(err, tc.want):
				t.Errorf("%s.New(%q) error = %v, want %v", name, tc.endpoint, err, tc.want)
			case tc.want == nil:
				if o, _ := auth.ParseOrigin(tc.endpoint); got != o {
					t.Errorf("%s.New(%q).Origin() = %v, want %v", name, tc.endpoint, got, o)
				}
			}
		}
	}
}
