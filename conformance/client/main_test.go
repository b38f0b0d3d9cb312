package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/leakcheck"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// testServer is a Streamable HTTP MCP server with the suite's add_numbers
// tool, counting its executions; gate, if set, may refuse a request first.
type testServer struct {
	URL   string
	calls atomic.Int64
}

func startServer(t *testing.T, gate func(w http.ResponseWriter, r *http.Request, method string) bool) *testServer {
	t.Helper()
	ts := &testServer{}
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	type args struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "add_numbers"}, func(ctx context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		ts.calls.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(a.A + a.B)}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gate != nil && r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var m struct{ Method string }
			_ = json.Unmarshal(body, &m)
			if !gate(w, r, m.Method) {
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ts.URL = srv.URL
	return ts
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func quiet() *log.Logger { return log.New(io.Discard, "", 0) }

func TestRunUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
	}{
		{"no url", nil, map[string]string{envScenario: "initialize"}},
		{"two urls", []string{"http://127.0.0.1:1/mcp", "x"}, map[string]string{envScenario: "initialize"}},
		{"no scenario", []string{"http://127.0.0.1:1/mcp"}, nil},
		{"unknown scenario", []string{"http://127.0.0.1:1/mcp"}, map[string]string{envScenario: "no-such"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(t.Context(), tt.args, env(tt.env), quiet())
			if !errors.Is(err, errUsage) {
				t.Fatalf("run() = %v, want errUsage", err)
			}
			for _, name := range []string{"initialize", "auth/scope-step-up"} {
				if !strings.Contains(err.Error(), "\n  "+name) {
					t.Errorf("usage error does not list scenario %q:\n%s", name, err)
				}
			}
		})
	}
}

func TestRunBadContext(t *testing.T) {
	err := run(t.Context(), []string{"http://127.0.0.1:1/mcp"},
		env(map[string]string{envScenario: "initialize", envContext: "{"}), quiet())
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("run() = %v, want a *json.SyntaxError", err)
	}
}

// TestRunScenarios runs scenarios through run, as the suite does, and
// checks what reached the server.
func TestRunScenarios(t *testing.T) {
	leakcheck.Check(t)
	tests := []struct {
		scenario  string
		wantCalls int64
	}{
		{"initialize", 0},
		{"tools_call", 1},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			ts := startServer(t, nil)
			err := run(t.Context(), []string{ts.URL}, env(map[string]string{envScenario: tt.scenario}), quiet())
			if err != nil {
				t.Fatalf("run() = %v", err)
			}
			if got := ts.calls.Load(); got != tt.wantCalls {
				t.Errorf("add_numbers ran %d times, want %d", got, tt.wantCalls)
			}
		})
	}
}

// fakeAuthorizer is an auth.Authorizer whose n-th authorization yields the
// token "t<n>".
type fakeAuthorizer struct {
	mu    sync.Mutex // guards n
	n     int
	token string
}

func (f *fakeAuthorizer) Credential(context.Context, *http.Request) (auth.Token, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.token == "" {
		return auth.Token{}, nil
	}
	return auth.NewToken(f.token), nil
}

func (f *fakeAuthorizer) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	resp.Body.Close()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	f.token = fmt.Sprintf("t%d", f.n)
	return nil
}

func (f *fakeAuthorizer) authorizations() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// newRunner returns a runner for scenario name with credentials creds.
func newRunner(url, name string, creds auth.Source) *runner {
	return &runner{url: url, profile: scenarios[name].profile, creds: creds, reauth: maxReauthorizations, log: quiet()}
}

// TestStepUp plays the suite's scope step-up: initialize passes without a
// credential, tools/list needs one (the first connection fails and the
// client connects again), tools/call needs a stronger one (the refused call
// did not run and is issued again). The tool runs exactly once.
func TestStepUp(t *testing.T) {
	leakcheck.Check(t)
	ts := startServer(t, func(w http.ResponseWriter, r *http.Request, method string) bool {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		switch {
		case method == "initialize" || strings.HasPrefix(method, "notifications/"):
			return true
		case tok == "":
			http.Error(w, "no token", http.StatusUnauthorized)
			return false
		case method == "tools/call" && tok != "t2":
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="admin"`)
			http.Error(w, "insufficient scope", http.StatusForbidden)
			return false
		}
		return true
	})
	az := &fakeAuthorizer{}
	if err := toolsCall(t.Context(), newRunner(ts.URL, "tools_call", az)); err != nil {
		t.Fatalf("toolsCall() = %v", err)
	}
	got := []int{az.authorizations(), int(ts.calls.Load())}
	if diff := cmp.Diff([]int{2, 1}, got); diff != "" {
		t.Errorf("[authorizations, tool runs] mismatch (-want +got):\n%s", diff)
	}
}

// TestReauthorizationLimit: a server that refuses every request but
// initialize, whatever the credential, gets at most 3 authorizations (what
// the suite's auth/scope-retry-limit accepts) and the scenario fails. (The
// transport re-sends a refused tools/list once after renewing the
// credential, since it executes nothing; the second refusal ends the run.)
func TestReauthorizationLimit(t *testing.T) {
	leakcheck.Check(t)
	ts := startServer(t, func(w http.ResponseWriter, r *http.Request, method string) bool {
		if method == "initialize" || strings.HasPrefix(method, "notifications/") {
			return true
		}
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="admin"`)
		http.Error(w, "never enough", http.StatusForbidden)
		return false
	})
	az := &fakeAuthorizer{}
	err := toolsCall(t.Context(), newRunner(ts.URL, "tools_call", az))
	if err == nil {
		t.Fatal("toolsCall() succeeded against a server that refuses everything")
	}
	if got := az.authorizations(); got < 1 || got > 3 {
		t.Errorf("authorizations = %d, want 1 to 3", got)
	}
	if n := ts.calls.Load(); n != 0 {
		t.Errorf("add_numbers ran %d times, want 0", n)
	}
}

func TestFetchAuthorizationCode(t *testing.T) {
	leakcheck.Check(t)
	tests := []struct {
		name     string
		location string // "" answers 200 with no redirect
		want     *sdkauth.AuthorizationResult
		wantErr  bool
	}{
		{"code", redirectURL + "?code=c1&state=s1&iss=https%3A%2F%2Fas.example", &sdkauth.AuthorizationResult{Code: "c1", State: "s1", Iss: "https://as.example"}, false},
		{"no iss", redirectURL + "?code=c1&state=s1", &sdkauth.AuthorizationResult{Code: "c1", State: "s1"}, false},
		{"error", redirectURL + "?error=access_denied&state=s1", nil, true},
		{"no redirect", "", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.location == "" {
					w.WriteHeader(http.StatusOK)
					return
				}
				http.Redirect(w, r, tt.location, http.StatusFound)
			}))
			defer srv.Close()
			got, err := fetchAuthorizationCode(t.Context(), &sdkauth.AuthorizationArgs{URL: srv.URL + "/authorize"})
			if (err != nil) != tt.wantErr {
				t.Fatalf("fetchAuthorizationCode() error = %v, want error %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("fetchAuthorizationCode() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
