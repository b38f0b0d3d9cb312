package client_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Subscribe, Unsubscribe and Handlers.ListChanged work on both revisions:
// on 2026-07-28 through subscriptions/listen streams, on 2025-11-25 through
// resources/subscribe and the session's notifications.
func TestSubscriptions(t *testing.T) {
	for _, p := range peers {
		t.Run(p.name, func(t *testing.T) {
			leakcheck.Check(t)
			srv := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "v1"}, &mcp.ServerOptions{
				SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
				UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
			})
			for _, uri := range []string{"docs://readme", "docs://other"} {
				srv.AddResource(&mcp.Resource{URI: uri, Name: strings.TrimPrefix(uri, "docs://")}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
					return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "v1"}}}, nil
				})
			}
			mcp.AddTool(srv, &mcp.Tool{Name: "lookup"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, nil
			})
			updated := make(chan string, 16)
			changed := make(chan []string, 16)
			h := &client.Handlers{
				ResourceUpdated: func(_ context.Context, p *mcp.ResourceUpdatedNotificationParams) {
					updated <- fmt.Sprint(p.URI, p.Meta["n"])
				},
				ListChanged: func(what string, cat *client.Catalog) {
					var tools []string
					for _, tl := range cat.Tools {
						tools = append(tools, tl.Name)
					}
					changed <- tools
				},
			}
			c, _ := connectPeer(t, p, srv, h, client.Limits{})
			ctx := context.Background()
			if err := c.Subscribe(ctx, "docs://readme"); err != nil {
				t.Fatalf("Subscribe: %v", err)
			}
			// Subscribe returned once the server had the subscription: the
			// first update reaches the handler.
			if err := srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "docs://readme"}); err != nil {
				t.Fatal(err)
			}
			if got := receive(t, updated, 1); got[0] != "docs://readme<nil>" {
				t.Errorf("updated %v", got)
			}
			mcp.AddTool(srv, &mcp.Tool{Name: "added"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, nil
			})
			select {
			case tools := <-changed:
				if diff := cmp.Diff([]string{"added", "lookup"}, tools); diff != "" {
					t.Errorf("re-discovered tools mismatch (-want +got):\n%s", diff)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no ListChanged after the server added a tool")
			}
			if err := c.Unsubscribe(ctx, "docs://readme"); err != nil {
				t.Fatalf("Unsubscribe: %v", err)
			}
			// Unsubscribed, the next update is not delivered: the one of
			// the resource subscribed to next is the first to arrive. (A
			// go-sdk v1.8.0 server ends the subscription of a session and a
			// URI when the stream it was opened on ends, so subscribing to
			// the same URI at once could race with that; another URI does
			// not.)
			if err := srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "docs://readme", Meta: mcp.Meta{"n": 1}}); err != nil {
				t.Fatal(err)
			}
			if err := c.Subscribe(ctx, "docs://other"); err != nil {
				t.Fatalf("Subscribe docs://other: %v", err)
			}
			if err := srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "docs://other", Meta: mcp.Meta{"n": 2}}); err != nil {
				t.Fatal(err)
			}
			if got := receive(t, updated, 1); got[0] != "docs://other2" {
				t.Errorf("after Unsubscribe, the first update is %v, want docs://other's", got)
			}
		})
	}
}
