package server_test

import (
	"context"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestSubscriptionsAndCompletion(t *testing.T) {
	leakcheck.Check(t)
	ctx := context.Background()
	srv, err := server.New("s", "v1", &server.Options{
		Subscriptions: true,
		Completion: func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{req.Params.Argument.Value + "-done"}}}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.RegisterResource(&mcp.Resource{URI: "docs://a", Name: "a"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "a"}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	tr, _ := srv.Factory().Transport()
	updated := make(chan string, 1)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(ctx context.Context, req *mcp.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
	}).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	caps := cs.InitializeResult().Capabilities
	if caps.Completions == nil || caps.Resources == nil || !caps.Resources.Subscribe {
		t.Errorf("capabilities = %+v, want completions and resource subscriptions", caps)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "docs://nope"}); err == nil {
		t.Error("subscribing to an unregistered resource succeeded")
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "docs://a"}); err != nil {
		t.Fatal(err)
	}
	if err := srv.ResourceUpdated(ctx, "docs://a"); err != nil {
		t.Fatal(err)
	}
	if got := <-updated; got != "docs://a" {
		t.Errorf("updated %q, want docs://a", got)
	}
	res, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "docs://a"},
		Argument: mcp.CompleteParamsArgument{Name: "x", Value: "ab"},
	})
	if err != nil || len(res.Completion.Values) != 1 || res.Completion.Values[0] != "ab-done" {
		t.Errorf("Complete = %v, %v", res, err)
	}
}

func TestNoSubscriptionsByDefault(t *testing.T) {
	leakcheck.Check(t)
	ctx := context.Background()
	srv, err := server.New("s", "v1", nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := srv.Factory().Transport()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if caps := cs.InitializeResult().Capabilities; caps.Completions != nil || (caps.Resources != nil && caps.Resources.Subscribe) {
		t.Errorf("capabilities = %+v, want neither completions nor subscriptions", caps)
	}
}
