package cassette_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/looprig/mcp/transport/sse"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// echoHeaders adds to c a tool "headers" that answers with the values of
// the request's Authorization, Proxy-Authorization, Cookie, X-Api-Key and
// DPoP headers, as a server
// that echoes what it was sent does.
func echoHeaders(c *counter) *counter {
	mcp.AddTool(c.srv, &mcp.Tool{Name: "headers", Description: "Echoes credentials."}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		var parts []string
		if h := req.Extra; h != nil && h.Header != nil {
			for _, k := range []string{"Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "DPoP"} {
				parts = append(parts, k+"="+h.Header.Get(k))
			}
		}
		return text(strings.Join(parts, " ") + " session=" + setCookieValue), nil, nil
	})
	return c
}

// setCookieValue is the session cookie the server sets.
const setCookieValue = "sid-5e7c0ffee5e7c0ffee"

// setsCookie is middleware setting the session cookie on every response.
func setsCookie(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Set-Cookie", "sid="+setCookieValue+"; Path=/; HttpOnly")
		h.ServeHTTP(w, r)
	})
}

// above is an HTTPFactory that adds headers to every request above the
// cassette's recorder (between the transport and it), as a transport that
// sends them itself would.
type above struct {
	cassette.HTTPFactory
	headers http.Header
}

func (a above) WithBase(wrap func(http.RoundTripper) http.RoundTripper) transport.Factory {
	return a.HTTPFactory.WithBase(func(base http.RoundTripper) http.RoundTripper {
		rec := wrap(base)
		return roundTripper(func(req *http.Request) (*http.Response, error) {
			req = req.Clone(req.Context())
			for k, vs := range a.headers {
				req.Header[k] = vs
			}
			return rec.RoundTrip(req)
		})
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestRedactedByDefault proves each rule of default redaction alone: the
// secret is placed where the recorder sees it (above it, in the
// transport's own requests, or in what the server answers and sets), the
// server echoes it in bodies and events, nothing else is configured, and
// the file holds no trace of it; the redacted cassette still replays.
func TestRedactedByDefault(t *testing.T) {
	const (
		bearer  = "bearer-7d1f9a2b4c6e"
		cookie  = "cookie-0a1b2c3d4e5f"
		proxy   = "proxycred-31415926"
		apiKey  = "apikey-99887766aabb"
		inURL   = "urlkey-1029384756"
		twice   = "tok-twice-42"
		matched = "sk-abc12345"
		atPath  = "hunter2"
		proof   = "eyJ0eXAiOiJkcG9wK2p3dCJ9.eyJqdGkiOiIxIn0.c2lnbmF0dXJl"
	)
	for _, tc := range []struct {
		name    string
		secrets []string // what must not be in the file
		live    func(t *testing.T) transport.Factory
		opts    *cassette.Options
		calls   []call
		want    []string // what must be in it, in its place
	}{
		{
			name: "Authorization from the transport's credentials", secrets: []string{bearer},
			live: func(t *testing.T) transport.Factory {
				return httpLive(t, newHTTPServer(t, echoHeaders(statefulCounter()), false, nil).url(), &streamablehttp.Options{Credentials: auth.Bearer(auth.NewToken(bearer))})
			},
			calls: []call{{Tool: "headers"}}, want: []string{`"Authorization":["Bearer REDACTED-1"]`, "Authorization=Bearer REDACTED-1"},
		},
		{
			name: "Proxy-Authorization above the recorder", secrets: []string{proxy},
			live: func(t *testing.T) transport.Factory {
				return above{httpLive(t, newHTTPServer(t, echoHeaders(statefulCounter()), false, nil).url(), nil), http.Header{"Proxy-Authorization": {"Basic " + proxy}}}
			},
			calls: []call{{Tool: "headers"}}, want: []string{`"Proxy-Authorization":["Basic REDACTED-1"]`, "Proxy-Authorization=Basic REDACTED-1"},
		},
		{
			name: "a DPoP proof above the recorder", secrets: []string{proof},
			live: func(t *testing.T) transport.Factory {
				return above{httpLive(t, newHTTPServer(t, echoHeaders(statefulCounter()), false, nil).url(), nil), http.Header{"Dpop": {proof}}}
			},
			calls: []call{{Tool: "headers"}}, want: []string{`"Dpop":["REDACTED-1"]`, "DPoP=REDACTED-1"},
		},
		{
			name: "Cookie above the recorder", secrets: []string{cookie},
			live: func(t *testing.T) transport.Factory {
				return above{httpLive(t, newHTTPServer(t, echoHeaders(statefulCounter()), false, nil).url(), nil), http.Header{"Cookie": {"sid=" + cookie}}}
			},
			calls: []call{{Tool: "headers"}}, want: []string{`"Cookie":["REDACTED-1"]`, "Cookie=REDACTED-1"},
		},
		{
			name: "Set-Cookie from the server", secrets: []string{setCookieValue},
			live: func(t *testing.T) transport.Factory {
				return httpLive(t, newHTTPServer(t, echoHeaders(statefulCounter()), false, setsCookie).url(), nil)
			},
			calls: []call{{Tool: "headers"}}, want: []string{`"Set-Cookie":["REDACTED-1"]`, "session=REDACTED-2"},
		},
		{
			name: "a custom header above the recorder", secrets: []string{apiKey}, opts: &cassette.Options{RedactHeaders: []string{"X-Api-Key"}},
			live: func(t *testing.T) transport.Factory {
				return above{httpLive(t, newHTTPServer(t, echoHeaders(statefulCounter()), false, nil).url(), nil), http.Header{"X-Api-Key": {apiKey}}}
			},
			calls: []call{{Tool: "headers"}}, want: []string{`"X-Api-Key":["REDACTED-1"]`, "X-Api-Key=REDACTED-1"},
		},
		{
			name: "a secret in the URL", secrets: []string{inURL}, opts: &cassette.Options{Secrets: []string{inURL}},
			live: func(t *testing.T) transport.Factory {
				return httpLive(t, newHTTPServer(t, statefulCounter(), false, nil).url()+"?key="+inURL, nil)
			},
			calls: []call{{Tool: "echo", Args: map[string]any{"text": inURL}}}, want: []string{`"url":"/mcp?key=REDACTED-1"`, "echo: REDACTED-1"},
		},
		{
			name: "a secret twice in one string", secrets: []string{twice}, opts: &cassette.Options{Secrets: []string{twice}},
			live:  func(t *testing.T) transport.Factory { return inprocess.New(newCounter().srv) },
			calls: []call{{Tool: "echo", Args: map[string]any{"text": twice + " and " + twice}}}, want: []string{"echo: REDACTED-1 and REDACTED-1"},
		},
		{
			name: "a pattern with nothing else configured", secrets: []string{matched}, opts: &cassette.Options{Patterns: []*regexp.Regexp{regexp.MustCompile(`sk-[a-z0-9]+`)}},
			live:  func(t *testing.T) transport.Factory { return inprocess.New(newCounter().srv) },
			calls: []call{{Tool: "echo", Args: map[string]any{"text": "key " + matched}}}, want: []string{"echo: key REDACTED-1"},
		},
		{
			name: "a path with nothing else configured", secrets: []string{atPath}, opts: &cassette.Options{RedactPaths: []string{"params.arguments.password"}},
			live:  func(t *testing.T) transport.Factory { return inprocess.New(newCounter().srv) },
			calls: []call{{Tool: "echo", Args: map[string]any{"text": "hi", "password": atPath}}}, want: []string{`"password":"REDACTED-1"`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			path := tempPath(t, "secrets.jsonl")
			data, outs := record(t, path, tc.live(t), tc.opts, rev2025, tc.calls...)
			for _, s := range tc.secrets {
				if bytes.Contains(data, []byte(s)) {
					t.Errorf("the cassette holds %q:\n%s", s, data)
				}
			}
			if !strings.Contains(outs[0].Text+outs[0].Err, tc.secrets[0]) && tc.name != "a path with nothing else configured" {
				t.Fatalf("the live session never carried the secret (%+v): the test proves nothing", outs)
			}
			for _, w := range tc.want {
				if !bytes.Contains(data, []byte(w)) {
					t.Errorf("the cassette lacks %s:\n%s", w, data)
				}
			}
		})
	}
}

// TestStdioEnvRedactedByDefault: every value handed to a stdio child in
// Options.Env is redacted wherever it appears (a tool result, the stderr
// tail), with no second listing, and the cassette replays with the live
// factory given (its values redacted alike); a value shorter than
// MinAutoSecret is left.
func TestStdioEnvRedactedByDefault(t *testing.T) {
	leakcheck.Check(t)
	const key = "envkey-c0ffee-1234"
	live := stdioCounter(t, &stdio.Options{Env: map[string]string{secretEnv: key, "SHORT": "tiny"}})
	path := tempPath(t, "env.jsonl")
	data, outs := record(t, path, live, &cassette.Options{Stderr: true}, rev2025, call{Tool: "env"})
	if outs[0].Text != "the key is "+key {
		t.Fatalf("live outcome %+v: the child did not tell its key", outs)
	}
	if bytes.Contains(data, []byte(key)) {
		t.Errorf("the cassette holds the Env value:\n%s", data)
	}
	for _, w := range []string{"the key is REDACTED-", `"stderr":"listening with key s3cr3t\nusing the key REDACTED-`} {
		if !bytes.Contains(data, []byte(w)) {
			t.Errorf("the cassette lacks %q:\n%s", w, data)
		}
	}
	got := replay(t, path, live, &cassette.Options{Stderr: true}, rev2025, call{Tool: "env"})
	if !strings.HasPrefix(got[0].Text, "the key is REDACTED-") {
		t.Errorf("replayed %+v", got)
	}
	if cassette.MinAutoSecret <= len("tiny") {
		t.Fatalf("MinAutoSecret %d: the short value is not short", cassette.MinAutoSecret)
	}
}

// TestSSEBearerRedactedByDefault: a legacy SSE session, recorded at the
// message level, still learns the bearer token its transport sends, and
// redacts it where the server echoes it.
func TestSSEBearerRedactedByDefault(t *testing.T) {
	leakcheck.Check(t)
	const bearer = "sse-bearer-44aa55bb66"
	c := newCounter()
	var seen atomic.Value // the last Authorization the server saw: legacy SSE gives a tool no headers
	seen.Store("")
	mcp.AddTool(c.srv, &mcp.Tool{Name: "headers", Description: "Echoes the credential."}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		return text("Authorization=" + seen.Load().(string)), nil, nil
	})
	h := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return c.srv }, nil)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("Authorization"); a != "" {
			seen.Store(a)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	live, err := sse.New(s.URL, &sse.Options{Credentials: auth.Bearer(auth.NewToken(bearer))})
	if err != nil {
		t.Fatal(err)
	}
	path := tempPath(t, "sse.jsonl")
	data, outs := record(t, path, live, nil, "", call{Tool: "headers"})
	if !strings.Contains(outs[0].Text, bearer) {
		t.Fatalf("live outcome %+v: the server did not echo the token", outs)
	}
	if bytes.Contains(data, []byte(bearer)) {
		t.Errorf("the cassette holds the bearer token:\n%s", data)
	}
	if !bytes.Contains(data, []byte("Authorization=Bearer REDACTED-1")) {
		t.Errorf("the echoed token has no placeholder:\n%s", data)
	}
}

// Options.NotSecret names Env values that are not secret: the recorder
// writes them as they are (a plain path, here), while it still redacts
// every other Env value, and a value also named in Secrets.
func TestNotSecretEnvIsWritten(t *testing.T) {
	leakcheck.Check(t)
	const path = "/etc/counter/config.yaml"
	for _, tc := range []struct {
		name    string
		opts    cassette.Options
		written bool
	}{
		{"by default", cassette.Options{}, false},
		{"not secret", cassette.Options{NotSecret: []string{path}}, true},
		{"another value not secret", cassette.Options{NotSecret: []string{"/some/other/path"}}, false},
		{"also a secret", cassette.Options{NotSecret: []string{path}, Secrets: []string{path}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			live := stdioCounter(t, &stdio.Options{Env: map[string]string{secretEnv: path}})
			data, outs := record(t, tempPath(t, "env.jsonl"), live, &tc.opts, rev2025, call{Tool: "env"})
			if outs[0].Text != "the key is "+path {
				t.Fatalf("live outcome %+v: the child did not tell its value", outs)
			}
			if got := bytes.Contains(data, []byte("the key is "+path)); got != tc.written {
				t.Errorf("the cassette holds the value: %v, want %v:\n%s", got, tc.written, data)
			}
		})
	}
}
