package mcptest_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// tokenGate is a Protector of a test's own: it lets through the requests
// that carry its bearer token and refuses the rest 401, counting both.
type tokenGate struct {
	token           string
	mu              sync.Mutex // guards passed, refused
	passed, refused int
}

func (g *tokenGate) Protect(next http.Handler) (http.Handler, error) {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok := r.Header.Get("Authorization") == "Bearer "+g.token
		g.mu.Lock()
		if ok {
			g.passed++
		} else {
			g.refused++
		}
		g.mu.Unlock()
		if !ok {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	}), nil
}

func (g *tokenGate) counts() (passed, refused int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.passed, g.refused
}

// TestHTTPAuthTakesAnyProtector: HTTPOptions.Auth guards the fake with a
// Protector that is not oauthtest's. The right token reaches the tool,
// which runs once; a wrong one is refused at the gate, and the tool never
// runs.
func TestHTTPAuthTakesAnyProtector(t *testing.T) {
	for _, tc := range []struct {
		name, token string
		wantErr     bool
	}{
		{"right token", "t0ken", false},
		{"wrong token", "other", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mcptest.LeakCheck(t)
			gate := &tokenGate{token: "t0ken"}
			fake := mcptest.HTTP(t, &mcptest.HTTPOptions{
				Auth:      gate,
				Transport: &streamablehttp.Options{Credentials: auth.Bearer(auth.NewToken(tc.token))},
			})
			c, err := client.Connect(t.Context(), fake.Definition(), nil)
			if err == nil {
				_, err = c.CallTool(t.Context(), "lookup", map[string]any{"query": "x"})
				c.Close()
			}
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want an error: %v", err, tc.wantErr)
			}
			passed, refused := gate.counts()
			wantRuns := 1
			if tc.wantErr {
				wantRuns = 0
				if passed != 0 || refused == 0 {
					t.Errorf("gate passed %d, refused %d; want 0 passed, some refused", passed, refused)
				}
			} else if passed == 0 || refused != 0 {
				t.Errorf("gate passed %d, refused %d; want some passed, 0 refused", passed, refused)
			}
			if got := fake.Counts().Executions["lookup"]; got != wantRuns {
				t.Errorf("lookup ran %d times, want %d", got, wantRuns)
			}
		})
	}
}
