package streamablehttp_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A call the client cancels ends at this module's server, on both
// revisions: on 2025-11-25 the server's session gets the client's
// notifications/cancelled; on 2026-07-28, where each request stands alone
// and the notification reaches no handler, the client stops reading the
// call's POST, which ends the request at the server. Counted at the
// server: its handler's context ends. (A go-sdk v1.8.0 stateless handler
// does not end the handler when the POST goes away.)
func TestCancelledCallEndsAtTheServer(t *testing.T) {
	for _, tc := range []struct {
		rev       string
		stateless bool
	}{{stableVersion, false}, {"2026-07-28", true}} {
		t.Run(tc.rev, func(t *testing.T) {
			leakcheck.Check(t)
			entered, ended := make(chan struct{}, 1), make(chan struct{}, 1)
			own, err := server.New("own", "v1", nil)
			if err != nil {
				t.Fatal(err)
			}
			own.RegisterTool(&mcp.Tool{Name: "wait", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				entered <- struct{}{}
				select {
				case <-ctx.Done():
					ended <- struct{}{}
					return nil, ctx.Err()
				case <-time.After(20 * time.Second):
					return nil, nil
				}
			})
			h, err := own.HTTPHandler(&server.HTTPOptions{Stateless: tc.stateless})
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(h)
			defer ts.Close()
			f, err := streamablehttp.New(ts.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			tr, _ := f.Transport()
			deadline, stop := context.WithTimeout(context.Background(), 10*time.Second)
			defer stop()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil).Connect(deadline, tr, &mcp.ClientSessionOptions{ProtocolVersion: tc.rev})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			ctx, cancel := context.WithCancel(deadline)
			go func() {
				select {
				case <-entered:
				case <-deadline.Done():
				}
				cancel()
			}()
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}}); err == nil {
				t.Fatal("the cancelled call succeeded")
			}
			select {
			case <-ended:
			case <-deadline.Done():
				t.Fatal("the server's handler was not told the call was cancelled")
			}
		})
	}
}
