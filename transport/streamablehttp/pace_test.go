package streamablehttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/clientseam"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The transport paces its own connections (the go-sdk's, which a client
// cannot wrap): every notification on a response stream goes to the pacer
// before the go-sdk reads it, and a pacer that blocks holds the stream
// back, answer included.
func TestPacerHoldsTheResponseStream(t *testing.T) {
	leakcheck.Check(t)
	//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerCapabilities.Logging, mcp.LoggingCapabilities
	srv := mcp.NewServer(&mcp.Implementation{Name: "chatty", Version: "v0"}, &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}}})
	mcp.AddTool(srv, &mcp.Tool{Name: "chatty"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		for range 5 {
			//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerSession.Log, mcp.LoggingMessageParams
			req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "x"})
		}
		return &mcp.CallToolResult{}, nil, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close) // after the session's, which Connect registers later
	f := newFactory(t, ts.URL, &streamablehttp.Options{DisableStandaloneSSE: true})
	tr, err := f.Transport()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	held, release := make(chan struct{}), make(chan struct{})
	tr.(clientseam.Pacer).SetPacer(func(ctx context.Context, method string) {
		mu.Lock()
		seen = append(seen, method)
		first := len(seen) == 1
		mu.Unlock()
		if first {
			close(held)
			<-release
		}
	})
	c := testkit.NewClient(&mcp.ClientOptions{
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ClientOptions.LoggingMessageHandler
		LoggingMessageHandler: func(context.Context, *mcp.LoggingMessageRequest) {},
	})
	cs := testkit.Connect(t, tr, &testkit.ConnectOptions{Client: c, Version: stableVersion})
	//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ClientSession.SetLoggingLevel, mcp.SetLoggingLevelParams
	if err := cs.SetLoggingLevel(testkit.Context(t), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(testkit.Context(t), &mcp.CallToolParams{Name: "chatty"})
		done <- err
	}()
	testkit.Await(t, held, "the pacer was asked to admit the stream's first notification")
	select {
	case err := <-done:
		t.Fatalf("the call returned (%v) while the pacer held its stream", err)
	case <-time.After(50 * time.Millisecond): // a held stream stays held
	}
	close(release)
	if err := testkit.Await(t, done, "the call once its stream was released"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff(slices.Repeat([]string{"notifications/message"}, 5), seen); diff != "" {
		t.Errorf("pacer saw (-want +got):\n%s", diff)
	}
}
