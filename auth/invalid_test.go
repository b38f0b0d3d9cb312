package auth_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/sse"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// countingServer is an MCP server that takes no credential, over
// Streamable HTTP (/mcp) and HTTP+SSE (/sse), that counts every request it
// receives, whatever its path (a token endpoint at /token, which answers
// 404, included), with its Authorization header.
type countingServer struct {
	srv  *httptest.Server
	mu   sync.Mutex // guards seen
	seen []string   // "METHOD path Authorization" of every request
}

func newCountingServer(t *testing.T) *countingServer {
	t.Helper()
	cs := &countingServer{}
	s := mcp.NewServer(&mcp.Implementation{Name: "counted", Version: "v1"}, nil)
	of := func(*http.Request) *mcp.Server { return s }
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(of, &mcp.StreamableHTTPOptions{Stateless: true}))
	mux.Handle("/sse", mcp.NewSSEHandler(of, nil))
	cs.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs.mu.Lock()
		cs.seen = append(cs.seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		cs.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(cs.srv.Close)
	return cs
}

func (cs *countingServer) requests() []string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return append([]string(nil), cs.seen...)
}

// httpFactories are the HTTP transports a Source is given to, by name:
// each returns a factory for cs with Credentials src.
var httpFactories = map[string]func(t *testing.T, cs *countingServer, src auth.Source) transport.Factory{
	"streamablehttp": func(t *testing.T, cs *countingServer, src auth.Source) transport.Factory {
		f, err := streamablehttp.New(cs.srv.URL+"/mcp", &streamablehttp.Options{Credentials: src})
		if err != nil {
			t.Fatal(err)
		}
		return f
	},
	"sse": func(t *testing.T, cs *countingServer, src auth.Source) transport.Factory {
		f, err := sse.New(cs.srv.URL+"/sse", &sse.Options{Credentials: src})
		if err != nil {
			t.Fatal(err)
		}
		return f
	},
}

// A Source made from a nil or zero argument fails client.Connect, over
// Streamable HTTP and legacy SSE alike, with a ClassPolicy error (a
// configuration error, not the server's refusal) naming the constructor
// and wrapping ErrInvalidArgument, and no request of any kind reaches the
// server: none goes without the credential. A Source made properly
// connects through the same server, which counts its requests, so the
// count can fail.
func TestInvalidSourceSendsNothing(t *testing.T) {
	leakcheck.Check(t)
	for name, newFactory := range httpFactories {
		for _, tc := range []struct {
			name string
			src  func(t *testing.T, cs *countingServer) auth.Source
			want string // the constructor the error names; "" for none (the Source is valid)
		}{
			{"Bearer", func(*testing.T, *countingServer) auth.Source { return auth.Bearer(auth.NewToken("tok")) }, ""},
			{"Bearer(zero Token)", func(*testing.T, *countingServer) auth.Source { return auth.Bearer(auth.Token{}) }, "auth.Bearer"},
			{"Bearer(NewToken(\"\"))", func(*testing.T, *countingServer) auth.Source { return auth.Bearer(auth.NewToken("")) }, "auth.Bearer"},
			{"NewOAuth(nil)", func(*testing.T, *countingServer) auth.Source { return auth.NewOAuth(nil) }, "auth.NewOAuth"},
			{"a nil *OAuth", func(*testing.T, *countingServer) auth.Source { return (*auth.OAuth)(nil) }, "auth.NewOAuth"},
			{"client credentials through the zero DPoPKey's client", func(t *testing.T, cs *countingServer) auth.Source {
				src, err := auth.NewClientCredentials(&auth.ClientCredentialsConfig{
					ClientID: ccClientID, ClientSecret: auth.NewSecret(ccSecret),
					TokenURL: cs.srv.URL + "/token", HTTPClient: auth.DPoPKey{}.Client(nil),
				})
				if err != nil {
					t.Fatal(err)
				}
				return src
			}, "auth.DPoPKey.Client"},
		} {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				cs := newCountingServer(t)
				def := client.Definition{Name: "counted", Transport: newFactory(t, cs, tc.src(t, cs))}
				c, err := client.Connect(testkit.Context(t), def, nil)
				if tc.want == "" {
					if err != nil {
						t.Fatalf("Connect: %v", err)
					}
					c.Close()
					if len(cs.requests()) == 0 {
						t.Fatal("a valid Source connected with no request counted")
					}
					return
				}
				if err == nil {
					c.Close()
				}
				checkInvalid(t, err, tc.want)
				if diff := cmp.Diff([]string(nil), cs.requests()); diff != "" {
					t.Errorf("requests at the server mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// checkInvalid fails t unless err is Connect's ClassPolicy error for a
// credential made from an invalid argument of the constructor named fn.
func checkInvalid(t *testing.T, err error, fn string) {
	t.Helper()
	var ce *client.Error
	switch {
	case !errors.As(err, &ce) || ce.Class != client.ClassPolicy || ce.Op != client.OpConnect:
		t.Errorf("Connect error = %v, want a ClassPolicy error of %s", err, client.OpConnect)
	case !errors.Is(err, auth.ErrInvalidArgument) || !errors.Is(err, transport.ErrPolicy):
		t.Errorf("Connect error = %v, want it to wrap auth.ErrInvalidArgument and transport.ErrPolicy", err)
	case !strings.Contains(err.Error(), fn+":"):
		t.Errorf("Connect error = %v, want it to name %s", err, fn)
	case errors.Is(err, client.ErrOutcomeUnknown):
		t.Errorf("Connect error = %v says the outcome is unknown; nothing was sent", err)
	}
}

// bodyCloser is a request body that records whether it was closed.
type bodyCloser struct {
	io.Reader
	closed bool
}

func (b *bodyCloser) Close() error { b.closed = true; return nil }

// A round tripper made from a nil Source or the zero Origin, and the zero
// DPoPKey's client, send nothing: every request, to any origin, token
// request or not, fails with ErrInvalidArgument naming the constructor,
// its body closed, and none reaches a server. The same requests through a
// round tripper and a key made properly reach it, so the count can fail.
func TestInvalidRoundTripperSendsNothing(t *testing.T) {
	leakcheck.Check(t)
	home, other := newCountingServer(t), newCountingServer(t)
	o, err := auth.ParseOrigin(home.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	key, err := auth.NewDPoPKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		rt   http.RoundTripper
		want string // the constructor the error names; "" for none (the round tripper is valid)
	}{
		{"NewRoundTripper", auth.NewRoundTripper(nil, o, auth.Bearer(auth.NewToken("tok"))), ""},
		{"NewRoundTripper(nil Source)", auth.NewRoundTripper(nil, o, nil), "auth.NewRoundTripper"},
		{"NewRoundTripper(zero Origin)", auth.NewRoundTripper(nil, auth.Origin{}, auth.Bearer(auth.NewToken("tok"))), "auth.NewRoundTripper"},
		{"DPoPKey.Client", key.Client(nil).Transport, ""},
		{"DPoPKey{}.Client", auth.DPoPKey{}.Client(nil).Transport, "auth.DPoPKey.Client"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, srv := range []*countingServer{home, other} {
				for _, form := range []bool{false, true} {
					checkSendsNothing(t, tc.rt, srv, form, tc.want)
				}
			}
		})
	}
}

// checkSendsNothing sends rt a GET of srv's /mcp, or a token request
// (a form POST with a grant_type), and checks that it fails naming fn
// and reaches no server, or for fn "" that it reaches srv.
func checkSendsNothing(t *testing.T, rt http.RoundTripper, srv *countingServer, form bool, fn string) {
	t.Helper()
	before := len(srv.requests())
	req, err := http.NewRequestWithContext(testkit.Context(t), http.MethodGet, srv.srv.URL+"/mcp", nil)
	body := &bodyCloser{Reader: strings.NewReader("grant_type=client_credentials")}
	if form {
		req, err = http.NewRequestWithContext(testkit.Context(t), http.MethodPost, srv.srv.URL+"/token", body)
		req.GetBody = func() (io.ReadCloser, error) {
			return io.NopCloser(strings.NewReader("grant_type=client_credentials")), nil
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: rt}).Do(req)
	if fn == "" {
		if err != nil {
			t.Fatalf("%s %s: %v", req.Method, req.URL, err)
		}
		resp.Body.Close()
		if got := len(srv.requests()); got != before+1 {
			t.Fatalf("%s %s: %d requests at the server, want %d", req.Method, req.URL, got, before+1)
		}
		return
	}
	if err == nil {
		resp.Body.Close()
	}
	if !errors.Is(err, auth.ErrInvalidArgument) || !strings.Contains(err.Error(), fn+":") {
		t.Errorf("%s %s: error = %v, want ErrInvalidArgument naming %s", req.Method, req.URL, err, fn)
	}
	if got := len(srv.requests()); got != before {
		t.Errorf("%s %s: %d requests at the server, want %d", req.Method, req.URL, got, before)
	}
	if form && !body.closed {
		t.Errorf("%s %s: the request's body was not closed", req.Method, req.URL)
	}
}

// An OAuth made by NewOAuth(nil) has no handler: Credential and Authorize
// fail with ErrInvalidArgument, and Authorize closes the refused
// response's body as an Authorizer must.
func TestNewOAuthNil(t *testing.T) {
	for name, o := range map[string]*auth.OAuth{"NewOAuth(nil)": auth.NewOAuth(nil), "a nil *OAuth": nil} {
		t.Run(name, func(t *testing.T) { checkNoHandler(t, o) })
	}
}

func checkNoHandler(t *testing.T, o *auth.OAuth) {
	leakcheck.Check(t)
	if o.Handler() != nil {
		t.Errorf("Handler() = %v, want nil", o.Handler())
	}
	req := httptest.NewRequest(http.MethodPost, "https://mcp.example.com/mcp", nil)
	tok, err := o.Credential(testkit.Context(t), req)
	if !tok.IsZero() || !errors.Is(err, auth.ErrInvalidArgument) || !strings.Contains(err.Error(), "auth.NewOAuth:") {
		t.Errorf("Credential = %v, %v; want the zero Token and ErrInvalidArgument naming auth.NewOAuth", tok, err)
	}
	body := &bodyCloser{Reader: strings.NewReader("")}
	err = o.Authorize(testkit.Context(t), req, &http.Response{StatusCode: http.StatusUnauthorized, Body: body})
	if !errors.Is(err, auth.ErrInvalidArgument) {
		t.Errorf("Authorize = %v, want ErrInvalidArgument", err)
	}
	if !body.closed {
		t.Error("Authorize left the response body open")
	}
}
