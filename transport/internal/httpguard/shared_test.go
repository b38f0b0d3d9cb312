package httpguard_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/internal/httpguard"
	"github.com/looprig/mcp/transport/sse"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
		{fmt.Errorf("call: %w", &transport.RedirectError{Transport: "sse", Err: &transport.PolicyError{Rule: transport.RuleRedirectedPOST}}), transport.ErrPolicy},
		{fmt.Errorf("call: %w", httpguard.Unauthorized), transport.ErrAuth},
		{fmt.Errorf("call: %w", &transport.PolicyError{Rule: transport.RuleInsecure}), transport.ErrPolicy},
	} {
		if got := sf.Classify(tc.err); got != tc.want {
			t.Errorf("sse Classify(%v) = %v, want %v", tc.err, got, tc.want)
		}
		if got := hf.Classify(tc.err); got != tc.want {
			t.Errorf("streamablehttp Classify(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
	// The shared sentinels stay distinct from one another, and from
	// streamablehttp's own CodeStreamDropped.
	if errors.Is(transport.ErrLimit, transport.ErrTimeout) || errors.Is(&transport.PolicyError{Rule: transport.RuleRedirectedPOST}, &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect}) ||
		errors.Is(&jsonrpc.Error{Code: streamablehttp.CodeStreamDropped}, transport.ErrLimit) || errors.Is(&jsonrpc.Error{Code: streamablehttp.CodeStreamDropped}, transport.ErrTimeout) {
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
	case !errors.Is(err, &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect}):
		t.Errorf("sse Connect error = %v, want &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect}", err)
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
	case !errors.Is(err, &transport.PolicyError{Rule: transport.RuleRedirectedPOST}):
		t.Errorf("streamablehttp Connect error = %v, want &transport.PolicyError{Rule: transport.RuleRedirectedPOST}", err)
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
			{"http://mcp.example.com/mcp", options{}, &transport.PolicyError{Rule: transport.RuleInsecure}},
			{"http://mcp.example.com/mcp", options{allowInsecure: true}, nil},
			{"https://mcp.example.com/mcp", options{tls: &tls.Config{MinVersion: tls.VersionTLS10}}, &transport.PolicyError{Rule: transport.RuleInsecure}},
			{"https://mcp.example.com/mcp", options{tls: &tls.Config{MinVersion: tls.VersionTLS13}}, nil},
			{"https://user:pw@mcp.example.com/mcp", options{}, auth.ErrInvalidArgument},
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

// A base the caller supplies may follow redirects itself: here a round
// tripper over an http.Client whose CheckRedirect allows everything. The
// MCP server answers every request with a redirect to an evil origin on
// the same host name and another port, where Go keeps Authorization (and
// re-sends a 307 or 308 body anywhere). The evil origin counts what
// reaches it: no request and no credential, for each status, on each
// transport; the refusal is a *transport.RedirectError; and a second
// connection through the same factory sends the credential nowhere.
func TestBaseThatFollowsRedirectsCarriesNoCredential(t *testing.T) {
	leakcheck.Check(t)
	const secret = "the-bearer-token"
	for _, status := range []int{301, 302, 303, 307, 308} {
		for _, kind := range []string{"sse", "streamablehttp"} {
			t.Run(fmt.Sprintf("%s/%d", kind, status), func(t *testing.T) {
				var evilRequests, evilCreds, homeCreds atomic.Int64
				evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					evilRequests.Add(1)
					body, _ := io.ReadAll(r.Body)
					if strings.Contains(r.Header.Get("Authorization"), secret) || strings.Contains(string(body), secret) {
						evilCreds.Add(1)
					}
					w.WriteHeader(http.StatusNotFound)
				}))
				defer evil.Close()
				_, evilPort, _ := net.SplitHostPort(strings.TrimPrefix(evil.URL, "http://"))
				home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if strings.Contains(r.Header.Get("Authorization"), secret) {
						homeCreds.Add(1)
					}
					http.Redirect(w, r, "http://127.0.0.1:"+evilPort+r.URL.Path, status)
				}))
				defer home.Close()
				permissive := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }}
				defer permissive.CloseIdleConnections()
				base := baseFunc(func(r *http.Request) (*http.Response, error) { return permissive.Do(r) })
				creds := auth.Bearer(auth.NewToken(secret))
				var f transport.Factory
				var err error
				version := ""
				if kind == "sse" {
					f, err = sse.New(home.URL+"/sse", &sse.Options{Base: base, Credentials: creds})
					version = sse.ProtocolVersion
				} else {
					f, err = streamablehttp.New(home.URL+"/mcp", &streamablehttp.Options{Base: base, Credentials: creds, DisableStandaloneSSE: true})
				}
				if err != nil {
					t.Fatal(err)
				}
				for attempt := 1; attempt <= 2; attempt++ {
					err := connect(t, f, version)
					var re *transport.RedirectError
					if !errors.As(err, &re) {
						t.Errorf("attempt %d: Connect error = %v, want a *transport.RedirectError", attempt, err)
					}
				}
				if n, c := evilRequests.Load(), evilCreds.Load(); n != 0 || c != 0 {
					t.Errorf("the evil origin received %d requests, %d with the credential; want none", n, c)
				}
				if homeCreds.Load() == 0 {
					t.Error("the MCP server received no credential: the case proves nothing")
				}
			})
		}
	}
}

type baseFunc func(*http.Request) (*http.Response, error)

func (f baseFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A base that fetches from another origin by a way no trace sees (here it
// copies the request to the evil origin by hand) is refused by what it
// hands back: a response to another origin's request. The base is then
// never used again: the second connection sends nothing.
func TestBaseAnsweringForAnotherOriginIsRefusedForGood(t *testing.T) {
	leakcheck.Check(t)
	const secret = "the-bearer-token"
	var evilCreds, homeRequests atomic.Int64
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Authorization"), secret) {
			evilCreds.Add(1)
		}
		w.WriteHeader(http.StatusNotFound)
	}))
	defer evil.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { homeRequests.Add(1) }))
	defer home.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	base := baseFunc(func(r *http.Request) (*http.Response, error) {
		to := r.Clone(context.Background())
		to.URL.Host, to.Host = strings.TrimPrefix(evil.URL, "http://"), ""
		return tr.RoundTrip(to)
	})
	f, err := streamablehttp.New(home.URL+"/mcp", &streamablehttp.Options{Base: base, Credentials: auth.Bearer(auth.NewToken(secret)), DisableStandaloneSSE: true})
	if err != nil {
		t.Fatal(err)
	}
	for attempt := 1; attempt <= 2; attempt++ {
		if err := connect(t, f, ""); !errors.Is(err, &transport.PolicyError{Rule: transport.RuleRedirectedPOST}) {
			t.Errorf("attempt %d: Connect error = %v, want one wrapping &transport.PolicyError{Rule: transport.RuleRedirectedPOST}", attempt, err)
		}
	}
	if n := evilCreds.Load(); n != 1 {
		t.Errorf("the evil origin received the credential %d times; want once, from the base itself, and never again", n)
	}
	if n := homeRequests.Load(); n != 0 {
		t.Errorf("the MCP server received %d requests; the base sends elsewhere", n)
	}
}

// TestUnauthorizedIsAuth: a 401 or 403 keeps its text "unauthorized" and
// matches ErrAuth, and no other class.
func TestUnauthorizedIsAuth(t *testing.T) {
	err := fmt.Errorf("streamablehttp: %w: status 401", httpguard.Unauthorized)
	if got, want := err.Error(), "streamablehttp: unauthorized: status 401"; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	for _, s := range []error{transport.ErrStart, transport.ErrPolicy, transport.ErrProtocol, transport.ErrTimeout,
		transport.ErrBroken, transport.ErrServer, transport.ErrMismatch} {
		if errors.Is(err, s) {
			t.Errorf("%v matches %v", err, s)
		}
	}
	if !errors.Is(err, transport.ErrAuth) {
		t.Errorf("%v does not match ErrAuth", err)
	}
}
