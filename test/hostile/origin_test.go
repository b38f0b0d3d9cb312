package hostile_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/sse"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newHTTP is streamablehttp.New or sse.New.
type newHTTP func(endpoint string) (transport.Factory, error)

var httpKinds = map[string]newHTTP{
	"streamablehttp": func(e string) (transport.Factory, error) { return streamablehttp.New(e, nil) },
	"sse":            func(e string) (transport.Factory, error) { return sse.New(e, nil) },
}

// Plain http is accepted for loopback only: hosts that merely look like
// loopback are refused (RuleInsecure) on both HTTP transports, and nothing is
// started.
func TestPlainHTTPOnlyToLoopback(t *testing.T) {
	for _, tc := range []struct {
		endpoint string
		ok       bool
	}{
		{"http://127.0.0.1:8080/mcp", true},
		{"http://127.9.9.9/mcp", true},
		{"http://[::1]:8080/mcp", true},
		{"http://localhost:8080/mcp", true},
		{"http://LOCALHOST/mcp", true},
		{"http://127.0.0.1.nip.io/mcp", false},
		{"http://127.0.0.1.example.com/mcp", false},
		{"http://localhost.example.com/mcp", false},
		{"http://localhost-evil.example/mcp", false},
		{"http://evil-localhost/mcp", false},
		{"http://mylocalhost/mcp", false},
		{"http://127.1/mcp", false},      // not an address Go parses: a host name
		{"http://0x7f000001/mcp", false}, // likewise
		{"http://2130706433/mcp", false}, // likewise
		{"http://0177.0.0.1/mcp", false}, // likewise
		{"http://128.0.0.1/mcp", false},  // not 127/8
		{"http://10.0.0.1/mcp", false},   // private, not loopback
		{"http://[::2]/mcp", false},      // not ::1
		{"http://[fe80::1]/mcp", false},  // link-local
		{"http://0.0.0.0/mcp", false},    // unspecified, not loopback
		{"http://[::]/mcp", false},       // unspecified
		{"https://127.0.0.1.nip.io/mcp", true},
	} {
		for name, mk := range httpKinds {
			_, err := mk(tc.endpoint)
			switch {
			case tc.ok && err != nil:
				t.Errorf("%s.New(%q): %v, want it accepted", name, tc.endpoint, err)
			case !tc.ok && !errors.Is(err, &transport.PolicyError{Rule: transport.RuleInsecure}):
				t.Errorf("%s.New(%q) error = %v, want RuleInsecure", name, tc.endpoint, err)
			}
		}
	}
}

// countingServer is a server that counts the requests it receives, and the
// connections that open with a TLS handshake (it speaks plain HTTP: those
// are clients sent to its address with https).
type countingServer struct {
	*httptest.Server
	requests, tlsHellos atomic.Int64
}

func newCountingServer(t *testing.T, h http.Handler) *countingServer {
	s := &countingServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		h.ServeHTTP(w, r)
	}))
	s.Listener = &peekListener{Listener: s.Listener, hellos: &s.tlsHellos}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// peekListener counts the accepted connections whose first byte opens a
// TLS handshake record (0x16).
type peekListener struct {
	net.Listener
	hellos *atomic.Int64
}

func (l *peekListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &peekConn{Conn: c, hellos: l.hellos}, nil
}

type peekConn struct {
	net.Conn
	hellos *atomic.Int64
	seen   bool // only the server's goroutine for the connection reads it
}

func (c *peekConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if !c.seen && n > 0 {
		c.seen = true
		if p[0] == 0x16 {
			c.hellos.Add(1)
		}
	}
	return n, err
}

// redirectCallLimit bounds a call whose POST is redirected.
const redirectCallLimit = 10 * time.Second

// A redirect of a POST is refused whatever its status (301, 302, 303, 307,
// 308) and wherever it points (the same origin, another port, another
// scheme, another host, another server): the call fails by policy
// (RuleRedirectedPOST), the tool does not run, the call is POSTed once, and
// no request or connection reaches the target.
func TestRedirectedPOSTsRefused(t *testing.T) {
	other := newCountingServer(t, http.NotFoundHandler())
	for _, status := range []int{301, 302, 303, 307, 308} {
		for _, kind := range []transport.Kind{transport.KindStreamableHTTP, transport.KindSSE} {
			for _, target := range []string{"same origin", "other port", "other scheme", "other host"} {
				t.Run(fmt.Sprintf("%d/%v/%s", status, kind, target), func(t *testing.T) {
					leakcheck.Check(t)
					n := &counts{}
					srv := newServer(n)
					var h http.Handler
					if kind == transport.KindSSE {
						h = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)
					} else {
						h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
					}
					var posts atomic.Int64
					var home *countingServer
					home = newCountingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if isToolCall(r) {
							posts.Add(1)
							u, _ := url.Parse(home.URL)
							if target == "same origin" {
								u.Path = "/elsewhere"
							}
							http.Redirect(w, r, retarget(u, target, other.URL).String(), status)
							return
						}
						h.ServeHTTP(w, r)
					}))
					t.Cleanup(func() {
						for ss := range srv.Sessions() {
							ss.Close()
						}
					})
					var f transport.Factory
					var err error
					if kind == transport.KindSSE {
						f, err = sse.New(home.URL, nil)
					} else {
						// Without the standalone stream, the call's POST
						// reuses the pool's one connection, and a new
						// connection can only be a followed redirect.
						f, err = streamablehttp.New(home.URL, &streamablehttp.Options{DisableStandaloneSSE: true})
					}
					if err != nil {
						t.Fatal(err)
					}
					// Refused, the call fails at once; followed, it may wait on
					// a stream that never ends: the bound fails it here.
					ctx, cancel := context.WithTimeout(testkit.Context(t), redirectCallLimit)
					defer cancel()
					c, err := client.Connect(ctx, client.Definition{Name: "home", Profile: profileFor(kind), Transport: f}, nil)
					if err != nil {
						t.Fatal(err)
					}
					reqsBefore, otherBefore := home.requests.Load(), other.requests.Load()
					_, err = c.CallTool(ctx, "echo", map[string]any{"text": "x"})
					reqs := home.requests.Load() - reqsBefore
					c.Close()
					if ctx.Err() != nil {
						t.Fatalf("CallTool has not returned within %v (%v): the redirected POST was followed", redirectCallLimit, err)
					}
					var ce *client.Error
					if !errors.As(err, &ce) || ce.Class != client.ClassPolicy || !errors.Is(err, &transport.PolicyError{Rule: transport.RuleRedirectedPOST}) {
						t.Errorf("CallTool error = %v, want ClassPolicy wrapping RuleRedirectedPOST", err)
					}
					if got := n.get("echo"); got != 0 {
						t.Errorf("echo ran %d times, want 0", got)
					}
					if got := posts.Load(); got != 1 {
						t.Errorf("the call was POSTed %d times, want 1", got)
					}
					if reqs != 1 {
						t.Errorf("%d requests reached the home server during the call, want 1 (its POST)", reqs)
					}
					if got := other.requests.Load() - otherBefore; got != 0 {
						t.Errorf("the other server received %d requests, want 0", got)
					}
					// Same port as home: a followed redirect to another
					// scheme would open with a TLS handshake there, one to
					// another host name would be a second request there.
					if n := home.tlsHellos.Load(); n != 0 {
						t.Errorf("%d TLS handshakes reached %s, want 0", n, home.URL)
					}
				})
			}
		}
	}
}

func profileFor(kind transport.Kind) client.Profile {
	if kind == transport.KindSSE {
		return client.ProfileDefault
	}
	return client.Profile20251125
}

// A redirect of the GET stream (Streamable HTTP's standalone stream, legacy
// SSE's session stream) to another origin is refused whatever its status
// (301, 302, 303, 307, 308) and wherever it points (another port, scheme
// or host): Connect fails by policy at once, not retryable, after one GET
// (no retry with backoff), and no request or connection reaches the
// target. The negative case: a redirect within the origin is followed.
func TestRedirectedGETsRefused(t *testing.T) {
	other := newCountingServer(t, http.NotFoundHandler())
	for _, status := range []int{301, 302, 303, 307, 308} {
		for _, kind := range []transport.Kind{transport.KindStreamableHTTP, transport.KindSSE} {
			for _, target := range []string{"same origin", "other port", "other scheme", "other host"} {
				t.Run(fmt.Sprintf("%d/%v/%s", status, kind, target), func(t *testing.T) {
					leakcheck.Check(t)
					srv := newServer(nil)
					var h http.Handler
					if kind == transport.KindSSE {
						h = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)
					} else {
						h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
					}
					var gets atomic.Int64
					var home *countingServer
					home = newCountingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if r.Method == http.MethodGet && r.URL.Query().Get("moved") == "" {
							gets.Add(1)
							u, _ := url.Parse(home.URL)
							u.RawQuery = "moved=1"
							http.Redirect(w, r, retarget(u, target, other.URL).String(), status)
							return
						}
						h.ServeHTTP(w, r)
					}))
					t.Cleanup(func() {
						for ss := range srv.Sessions() {
							ss.Close()
						}
					})
					mk := httpKinds["streamablehttp"]
					if kind == transport.KindSSE {
						mk = httpKinds["sse"]
					}
					f, err := mk(home.URL)
					if err != nil {
						t.Fatal(err)
					}
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					otherBefore := other.requests.Load()
					c, err := client.Connect(ctx, client.Definition{Name: "home", Profile: profileFor(kind), Transport: f}, nil)
					if target == "same origin" {
						if err != nil {
							t.Fatalf("Connect through a redirect within the origin: %v", err)
						}
						if _, err := c.CallTool(ctx, "echo", map[string]any{"text": "x"}); err != nil {
							t.Errorf("CallTool after a redirect within the origin: %v", err)
						}
						testkit.CloseWithin(t, c, 10*time.Second)
						return
					}
					if err == nil {
						testkit.CloseWithin(t, c, 10*time.Second)
					}
					var ce *client.Error
					if !errors.As(err, &ce) || ce.Op != client.OpConnect || ce.Class != client.ClassPolicy || ce.ConnectionRetryable() {
						t.Errorf("Connect error = %v, want op connect, ClassPolicy, not retryable", err)
					}
					if got := gets.Load(); got != 1 {
						t.Errorf("%d GETs at the home server, want 1 (refused at once, not retried)", got)
					}
					if got := other.requests.Load() - otherBefore; got != 0 {
						t.Errorf("the other server received %d requests, want 0", got)
					}
					if n := home.tlsHellos.Load(); n != 0 {
						t.Errorf("%d TLS handshakes reached %s, want 0", n, home.URL)
					}
				})
			}
		}
	}
}

// retarget returns u moved to target: "other port" is the server at other
// (u's path and query dropped, as before), "other scheme" https, "other
// host" localhost on u's port; anything else leaves u as it is.
func retarget(u *url.URL, target, other string) *url.URL {
	switch target {
	case "other port":
		u, _ = url.Parse(other)
	case "other scheme":
		u.Scheme = "https"
	case "other host":
		u.Host = "localhost:" + u.Port()
	}
	return u
}
