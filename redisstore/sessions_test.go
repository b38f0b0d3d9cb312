package redisstore

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer adds a bearer token to each request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(req)
}

// TestStatefulSessionsNeedStickiness: a 2025-11-25 session lives in the
// replica that began it. Behind a proxy that sends each session's
// requests to that replica (by Mcp-Session-Id), every call is served
// there; behind plain round robin, the session's next request reaches
// another replica, which does not know it.
func TestStatefulSessionsNeedStickiness(t *testing.T) {
	for _, sticky := range []bool{true, false} {
		name := map[bool]string{true: "sticky", false: "round-robin"}[sticky]
		t.Run(name, func(t *testing.T) {
			f := newFleet(t, &fleetOptions{Stateful: true, Sticky: sticky})
			tr := &mcp.StreamableClientTransport{
				Endpoint:   f.proxy.URL,
				HTTPClient: &http.Client{Transport: bearer{"alice", http.DefaultTransport}},
			}
			cs, err := testkit.TryConnect(t, tr, &testkit.ConnectOptions{Version: "2025-11-25"})
			if !sticky {
				if err == nil {
					_, err = cs.CallTool(testkit.Context(t), &mcp.CallToolParams{Name: "hello"})
				}
				if err == nil {
					t.Fatal("a session behind round robin: no error, want the session unknown at the next replica")
				}
				t.Logf("round robin: %v", err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for range 6 {
				res, err := cs.CallTool(testkit.Context(t), &mcp.CallToolParams{Name: "hello"})
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, res.Content[0].(*mcp.TextContent).Text)
			}
			want := []string{}
			for range 6 {
				want = append(want, got[0])
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("replicas serving one sticky session (-want +got):\n%s", diff)
			}
			if n := f.runs(); n != 6 {
				t.Errorf("executions: %d, want 6", n)
			}
		})
	}
}
