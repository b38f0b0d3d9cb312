package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestParseProfile(t *testing.T) {
	for _, p := range []client.Profile{
		client.ProfileDefault, client.Profile20260728, client.Profile20251125,
		client.Profile20250618, client.Profile20250326, client.ProfileLegacy,
	} {
		got, err := client.ParseProfile(p.String())
		if err != nil || got != p {
			t.Errorf("ParseProfile(%q) = %v, %v; want %v", p.String(), got, err, p)
		}
	}
	if p, err := client.ParseProfile("2024-11-05"); err != nil || p != client.ProfileLegacy {
		t.Errorf("ParseProfile(2024-11-05) = %v, %v; want legacy", p, err)
	}
	for _, bad := range []string{"", "stable", "draft", "2025-11-24", "Default"} {
		if _, err := client.ParseProfile(bad); !errors.Is(err, &client.ReasonError{Reason: client.ReasonUnknownProfile}) {
			t.Errorf("ParseProfile(%q) error = %v, want ReasonUnknownProfile", bad, err)
		}
	}
	if got := client.Profile(42).String(); got != "Profile(42)" {
		t.Errorf("Profile(42).String() = %q", got)
	}
}

func TestProfileAccepts(t *testing.T) {
	got := map[string][]string{}
	for _, p := range []client.Profile{client.ProfileDefault, client.Profile20260728, client.Profile20251125, client.ProfileLegacy} {
		for _, v := range []string{"2026-07-28", "2025-11-25", "2025-06-18", "2024-11-05"} {
			if p.Accepts(v) {
				got[p.String()] = append(got[p.String()], v)
			}
		}
	}
	want := map[string][]string{
		"default":    {"2026-07-28", "2025-11-25"},
		"2026-07-28": {"2026-07-28"},
		"2025-11-25": {"2025-11-25"},
		"legacy":     {"2024-11-05"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Accepts mismatch (-want +got):\n%s", diff)
	}
}

// httpServer serves srv over Streamable HTTP, stateful or stateless, and
// records the method of every POST.
func httpServer(t *testing.T, srv *mcp.Server, stateless bool) (*httptest.Server, func() []string) {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: stateless})
	rec := newRecorder(h)
	ts := httptest.NewServer(rec)
	t.Cleanup(ts.Close)
	return ts, rec.methods
}

func TestProfileNegotiation(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		name      string
		profile   client.Profile
		http      string // "", "stateful" or "stateless"
		want      string // negotiated revision, or "" for refused
		wantFirst string // first method the server saw, over HTTP
	}{
		{"default in-process", client.ProfileDefault, "", "2026-07-28", ""},
		{"default stateless", client.ProfileDefault, "stateless", "2026-07-28", "server/discover"},
		{"default stateful falls back", client.ProfileDefault, "stateful", "2025-11-25", "server/discover"},
		{"2026-07-28 stateless", client.Profile20260728, "stateless", "2026-07-28", "server/discover"},
		{"2026-07-28 refuses stateful", client.Profile20260728, "stateful", "", "server/discover"},
		{"2025-11-25 in-process", client.Profile20251125, "", "2025-11-25", ""},
		{"2025-11-25 stateful", client.Profile20251125, "stateful", "2025-11-25", "initialize"},
		{"2025-06-18 in-process", client.Profile20250618, "", "2025-06-18", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := docsServer(&counter{})
			var f transport.Factory = inprocess.New(srv)
			var methods func() []string
			if tc.http != "" {
				ts, m := httpServer(t, srv, tc.http == "stateless")
				methods = m
				hf, err := streamablehttp.New(ts.URL, nil)
				if err != nil {
					t.Fatal(err)
				}
				f = hf
			}
			c, err := client.Connect(context.Background(), client.Definition{Name: "docs", Profile: tc.profile, Transport: f}, nil)
			if tc.want == "" {
				assertClass(t, err, client.ClassProtocol, client.ErrRevisionMismatch)
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if got := c.ProtocolVersion(); got != tc.want {
					t.Errorf("ProtocolVersion() = %q, want %q", got, tc.want)
				}
				if err := c.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			}
			if methods != nil {
				if m := methods(); len(m) == 0 || m[0] != tc.wantFirst {
					t.Errorf("server saw %v first, want %s", m, tc.wantFirst)
				}
			}
		})
	}
}

// A named profile refuses a server that negotiates another revision: an
// old server that speaks 2025-06-18 only is refused by the default profile
// and by Profile20251125, and reached by Profile20250618.
func TestProfileRefusesOlderServer(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		profile client.Profile
		ok      bool
	}{
		{client.ProfileDefault, false},
		{client.Profile20251125, false},
		{client.Profile20260728, false},
		{client.Profile20250618, true},
	} {
		old := mcp.NewServer(&mcp.Implementation{Name: "old", Version: "v1"}, &mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-06-18"}})
		c, err := client.Connect(context.Background(), client.Definition{Name: "old", Profile: tc.profile, Transport: inprocess.New(old)}, nil)
		if !tc.ok {
			assertClass(t, err, client.ClassProtocol, client.ErrRevisionMismatch)
			continue
		}
		if err != nil {
			t.Fatalf("profile %s: %v", tc.profile, err)
		}
		if got := c.ProtocolVersion(); got != "2025-06-18" {
			t.Errorf("ProtocolVersion() = %q", got)
		}
		c.Close()
	}
}

func TestLegacyProfileNeedsSSE(t *testing.T) {
	leakcheck.Check(t)
	n := &counter{}
	_, err := client.Connect(context.Background(), client.Definition{Name: "docs", Profile: client.ProfileLegacy, Transport: inprocess.New(docsServer(n))}, nil)
	assertClass(t, err, client.ClassPolicy, nil)
}

// Definition.Implementation is how the client introduces itself, on every
// 2026-07-28 request and in the 2025-11-25 initialize; nil is
// DefaultImplementation.
func TestImplementationIsSent(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		profile   client.Profile
		stateless bool
		impl      *mcp.Implementation
		want      string
	}{
		{client.ProfileDefault, true, &mcp.Implementation{Name: "my-agent", Version: "v2"}, `"name":"my-agent"`},
		{client.Profile20251125, false, &mcp.Implementation{Name: "my-agent", Version: "v2"}, `"name":"my-agent"`},
		{client.ProfileDefault, true, nil, `"name":"` + client.DefaultImplementation().Name + `"`},
	} {
		srv := docsServer(&counter{})
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: tc.stateless})
		rec := newRecorder(h)
		ts := httptest.NewServer(rec)
		f, err := streamablehttp.New(ts.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := client.Connect(context.Background(), client.Definition{Name: "docs", Profile: tc.profile, Implementation: tc.impl, Transport: f}, nil)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		ts.Close()
		var first string
		for _, p := range rec.all() {
			if p.Method == "server/discover" || p.Method == "initialize" {
				first = string(p.Body)
				break
			}
		}
		if !strings.Contains(first, tc.want) {
			t.Errorf("profile %s: first request %s does not carry %s", tc.profile, first, tc.want)
		}
	}
}

// A server and a profile with no revision in common fail Connect with
// ErrRevisionMismatch, whose message names both: a server that negotiates
// a revision the profile does not accept, and one that refuses the
// revision the profile offers (it has no initialize, being of 2026-07-28
// only). It is a ClassProtocol error, not retryable, and does not read
// "transport: protocol violation".
func TestRevisionMismatchNamesBoth(t *testing.T) {
	old := func() *mcp.Server {
		return mcp.NewServer(&mcp.Implementation{Name: "old", Version: "v1"}, &mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	}
	current := func() *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "current", Version: "v1"}, nil)
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "initialize" {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: `"initialize" is not supported in the new protocol`}
				}
				return next(ctx, method, req)
			}
		})
		return s
	}
	for _, tc := range []struct {
		name    string
		srv     func() *mcp.Server
		profile client.Profile
		want    []string
	}{
		{"negotiated", old, client.Profile20260728, []string{"the server negotiated 2025-11-25", "profile 2026-07-28 accepts 2026-07-28 only"}},
		{"refused", current, client.Profile20251125, []string{"the server refused initialize at 2025-11-25", "2026-07-28", "profile 2025-11-25 accepts 2025-11-25 only"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			_, err := client.Connect(context.Background(), client.Definition{Name: tc.name, Profile: tc.profile, Transport: inprocess.New(tc.srv())}, nil)
			assertClass(t, err, client.ClassProtocol, client.ErrRevisionMismatch)
			var ce *client.Error
			if errors.As(err, &ce) && ce.ConnectionRetryable() {
				t.Errorf("%v is ConnectionRetryable", err)
			}
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("error %v does not say %q", err, w)
				}
			}
			if err != nil && strings.Contains(err.Error(), "protocol violation") {
				t.Errorf("error %v reads as a protocol violation", err)
			}
		})
	}
}
