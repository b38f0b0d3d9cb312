package client_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// gateServer's tool "wait" signals entered, then blocks until release is
// closed or its context ends.
func gateServer(entered chan<- struct{}, release <-chan struct{}, n *counter) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "gate", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "wait"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		n.inc("wait")
		entered <- struct{}{}
		select {
		case <-release:
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	})
	return srv
}

func TestCloseDrainsInFlightCalls(t *testing.T) {
	leakcheck.Check(t)
	entered, release := make(chan struct{}, 1), make(chan struct{})
	n := &counter{}
	c, err := client.Connect(context.Background(), client.Definition{Name: "gate", Transport: inprocess.New(gateServer(entered, release, n)),
		Limits: client.Limits{DrainTimeout: time.Minute}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	callErr := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), "wait", map[string]any{})
		callErr <- err
	}()
	recv(t, entered, "the call reached the tool")
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()

	// Close has begun: new calls are refused, while the in-flight one is
	// still running (Close has not returned).
	waitRefused(t, c)
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) while a call was in flight", err)
	default:
	}
	close(release)
	if err := recv(t, callErr, "the in-flight call returned"); err != nil {
		t.Errorf("in-flight call failed: %v", err)
	}
	if err := recv(t, closed, "Close returned"); err != nil {
		t.Errorf("Close: %v", err)
	}
	if got := n.get("wait"); got != 1 {
		t.Errorf("tool ran %d times, want 1", got)
	}
}

func TestCloseCancelsCallsAfterDrainTimeout(t *testing.T) {
	leakcheck.Check(t)
	entered, release := make(chan struct{}, 1), make(chan struct{})
	n := &counter{}
	c, err := client.Connect(context.Background(), client.Definition{Name: "gate", Transport: inprocess.New(gateServer(entered, release, n)),
		Limits: client.Limits{DrainTimeout: 50 * time.Millisecond}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	callErr := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), "wait", map[string]any{})
		callErr <- err
	}()
	recv(t, entered, "the call reached the tool")
	if _, err := testkit.CloseWithin(t, c, 30*time.Second); err != nil {
		t.Errorf("Close: %v", err)
	}
	assertClass(t, recv(t, callErr, "the cancelled call returned"), client.ClassClosed, client.ErrClosed)
	if got := n.get("wait"); got != 1 {
		t.Errorf("tool ran %d times, want 1 (never retried)", got)
	}
}

func TestConcurrentClose(t *testing.T) {
	leakcheck.Check(t)
	c, err := client.Connect(context.Background(), client.Definition{Name: "docs", Transport: inprocess.New(docsServer(&counter{}))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if err := c.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
	wg.Wait()
}

// waitRefused polls until the client refuses new calls, which it does as
// soon as Close has begun. It probes with an unknown tool, which is refused
// locally (ErrUnknownTool) until the client is closing (ErrClosed).
func waitRefused(t *testing.T, c *client.Client) {
	t.Helper()
	var err error
	testkit.Poll(t, "calls refused once Close began", func() bool {
		_, err = c.CallTool(testkit.Context(t), "probe", nil)
		return errors.Is(err, client.ErrClosed)
	})
	assertClass(t, err, client.ClassClosed, client.ErrClosed)
}

// A server that never answers a call fails it after Limits.CallTimeout, with
// ClassTimeout; the tool ran once and the session goes on.
func TestCallTimeout(t *testing.T) {
	leakcheck.Check(t)
	entered, release := make(chan struct{}, 1), make(chan struct{})
	defer close(release)
	n := &counter{}
	srv := gateServer(entered, release, n)
	mcp.AddTool(srv, &mcp.Tool{Name: "quick"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	c := connect(t, srv, client.Definition{Name: "gate", Limits: client.Limits{CallTimeout: 50 * time.Millisecond}}, nil)
	ctx := backstop(t)
	_, err := c.CallTool(ctx, "wait", map[string]any{})
	notBackstopped(t, ctx, err)
	assertClass(t, err, client.ClassTimeout, context.DeadlineExceeded)
	if got := n.get("wait"); got != 1 {
		t.Errorf("wait ran %d times, want 1", got)
	}
	if _, err := c.CallTool(context.Background(), "quick", map[string]any{}); err != nil {
		t.Errorf("a call after the timeout: %v", err)
	}
}

// recv receives from ch, failing t if nothing comes within 30s: a broken
// guard fails the test instead of hanging it.
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting until %s", what)
		var zero T
		return zero
	}
}
