package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// burstServer serves "burst": it sends one notifications/message, waits
// until started is closed (the client's handler has it), sends n-1 more,
// then asks the client for its roots, so that when the answer arrives every
// message before it has been handed to the client's handlers (the go-sdk
// hands incoming messages over in order). "changes" does the same with a
// burst of list changes in place of the n-1 messages. lists counts
// tools/list requests.
func burstServer(started <-chan struct{}, n int, lists *atomic.Int64) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "burst", Version: "v1"}, &mcp.ServerOptions{
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerCapabilities.Logging, mcp.LoggingCapabilities
		Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}, Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" && lists != nil {
				lists.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	log := func(ctx context.Context, s *mcp.ServerSession) error {
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerSession.Log, mcp.LoggingMessageParams
		return s.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "x"})
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "burst"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if err := log(ctx, req.Session); err != nil {
			return nil, nil, err
		}
		select {
		case <-started:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		for range n - 1 {
			if err := log(ctx, req.Session); err != nil {
				return nil, nil, err
			}
		}
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ServerSession.ListRoots
		if _, err := req.Session.ListRoots(ctx, nil); err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "changes"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if err := log(ctx, req.Session); err != nil {
			return nil, nil, err
		}
		select {
		case <-started:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		// The go-sdk server debounces list changes: the client's side of
		// the connection turns this message into n of them (see injector).
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerSession.Log, mcp.LoggingMessageParams
		if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "list changes"}); err != nil {
			return nil, nil, err
		}
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ServerSession.ListRoots
		if _, err := req.Session.ListRoots(ctx, nil); err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{}, nil, nil
	})
	return srv
}

// injector is a factory whose connections replace each notifications/message
// whose data is "list changes" with n notifications/tools/list_changed, as
// a server that does not debounce them would send.
type injector struct {
	transport.Factory
	n int
}

func (f injector) Transport() (mcp.Transport, error) {
	tr, err := f.Factory.Transport()
	return injectTransport{tr, f.n}, err
}

type injectTransport struct {
	mcp.Transport
	n int
}

func (t injectTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	return &injectConn{Connection: conn, n: t.n}, err
}

type injectConn struct {
	mcp.Connection
	n       int
	pending int // list changes still to return; only the go-sdk's reader calls Read
}

func (c *injectConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if c.pending > 0 {
			c.pending--
			return &jsonrpc.Request{Method: "notifications/tools/list_changed", Params: json.RawMessage(`{}`)}, nil
		}
		msg, err := c.Connection.Read(ctx)
		if r, ok := msg.(*jsonrpc.Request); ok && r.Method == "notifications/message" && strings.Contains(string(r.Params), `"list changes"`) {
			c.pending = c.n
			continue
		}
		return msg, err
	}
}

// gatedLogging is a Logging handler that blocks on its first message until
// release is closed, after closing started.
type gatedLogging struct {
	started, release chan struct{}
	once             sync.Once
	handled          atomic.Int64
}

func newGatedLogging() *gatedLogging {
	return &gatedLogging{started: make(chan struct{}), release: make(chan struct{})}
}

//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.LoggingMessageParams
func (g *gatedLogging) handle(ctx context.Context, _ *mcp.LoggingMessageParams) {
	g.handled.Add(1)
	g.once.Do(func() {
		close(g.started)
		<-g.release
	})
}

// The queue of unhandled notifications holds MaxQueuedNotifications: with
// the handler busy on the first message, N more are queued and handled, the
// N+1st is dropped and counted. Counted at the client's handler, against
// what the server sent.
func TestNotificationQueueBoundary(t *testing.T) {
	const max = 8
	for _, tc := range []struct {
		sent, handled int
	}{
		{sent: 1 + max, handled: 1 + max},     // one running, N queued: none dropped
		{sent: 1 + max + 1, handled: 1 + max}, // N+1 queued: one dropped
		{sent: 1 + max + 50, handled: 1 + max},
	} {
		leakcheck.Check(t)
		g := newGatedLogging()
		c, err := client.Connect(testkit.Context(t), client.Definition{
			Name:      "burst",
			Profile:   client.Profile20251125, // logging/setLevel; 2026-07-28 asks per request
			Limits:    client.Limits{MaxQueuedNotifications: max},
			Transport: inprocess.New(burstServer(g.started, tc.sent, nil)),
			//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.Root
		}, &client.Handlers{Logging: g.handle, Roots: []*mcp.Root{}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.CallTool(testkit.Context(t), "burst", nil); err != nil {
			t.Fatal(err)
		}
		close(g.release)
		if err := c.Close(); err != nil { // drains what is queued
			t.Fatal(err)
		}
		if got := g.handled.Load(); got != int64(tc.handled) {
			t.Errorf("%d sent, queue %d: handled %d, want %d", tc.sent, max, got, tc.handled)
		}
		if got, want := c.DroppedNotifications(), int64(tc.sent-tc.handled); got != want {
			t.Errorf("%d sent, queue %d: DroppedNotifications() = %d, want %d", tc.sent, max, got, want)
		}
	}
}

// A flood of list changes while the handler is busy is one re-discovery,
// counted at the server in tools/list requests; none is dropped.
func TestListChangesCoalesce(t *testing.T) {
	leakcheck.Check(t)
	g := newGatedLogging()
	var lists atomic.Int64
	var changes atomic.Int64
	c, err := client.Connect(testkit.Context(t), client.Definition{
		Name:      "burst",
		Profile:   client.Profile20251125, // logging/setLevel; 2026-07-28 asks per request
		Limits:    client.Limits{MaxQueuedNotifications: 4},
		Transport: injector{inprocess.New(burstServer(g.started, 0, &lists)), 500},
	}, &client.Handlers{
		Logging: g.handle,
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.Root
		Roots:       []*mcp.Root{},
		ListChanged: func(string, *client.Catalog) { changes.Add(1) },
	})
	if err != nil {
		t.Fatal(err)
	}
	atConnect := lists.Load()
	if _, err := c.CallTool(testkit.Context(t), "changes", nil); err != nil {
		t.Fatal(err)
	}
	close(g.release)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if got := lists.Load() - atConnect; got != 1 {
		t.Errorf("500 tools/list_changed while the handler was busy: %d tools/list at the server, want 1", got)
	}
	if got := changes.Load(); got != 1 {
		t.Errorf("ListChanged called %d times, want 1", got)
	}
	if got := c.DroppedNotifications(); got != 0 {
		t.Errorf("DroppedNotifications() = %d, want 0 (list changes are never dropped)", got)
	}
}

// A Logging handler that ignores its context cannot hold Close past
// DrainTimeout + HandlerGrace; Close says which handler it abandoned.
func TestCloseBoundedWhenLoggingHandlerIgnoresContext(t *testing.T) {
	leakcheck.Check(t)
	g := newGatedLogging()
	t.Cleanup(func() { close(g.release) }) // runs before leakcheck's wait, registered earlier
	const drain = 50 * time.Millisecond
	c, err := client.Connect(testkit.Context(t), client.Definition{
		Name:      "burst",
		Profile:   client.Profile20251125, // logging/setLevel; 2026-07-28 asks per request
		Limits:    client.Limits{DrainTimeout: drain},
		Transport: inprocess.New(burstServer(g.started, 100, nil)),
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.Root
	}, &client.Handlers{Logging: g.handle, Roots: []*mcp.Root{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(testkit.Context(t), "burst", nil); err != nil {
		t.Fatal(err)
	}
	took, err := testkit.CloseWithin(t, c, 30*time.Second)
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Class != client.ClassTimeout || !errors.Is(err, &client.ReasonError{Reason: client.ReasonHandlerStuck}) {
		t.Errorf("Close() = %v, want a ClassTimeout error wrapping ReasonHandlerStuck", err)
	}
	if limit := 10 * (drain + client.HandlerGrace); took > limit {
		t.Errorf("Close took %v, want well under %v", took, limit)
	}
	if got, want := c.DroppedNotifications(), int64(99); got != want {
		t.Errorf("DroppedNotifications() = %d, want %d (all but the stuck one)", got, want)
	}
}

// A Sampling handler that ignores its context holds the go-sdk's Close (it
// waits for every request it is serving); the client's Close still returns
// within its bound.
func TestCloseBoundedWhenSamplingHandlerIgnoresContext(t *testing.T) {
	leakcheck.Check(t)
	entered, release := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(release) }) // runs before leakcheck's wait, registered earlier
	srv := mcp.NewServer(&mcp.Implementation{Name: "asks", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.ServerSession.CreateMessage, mcp.CreateMessageParams, mcp.SamplingMessage
		_, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 1, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
		return &mcp.CallToolResult{}, nil, err
	})
	const drain = 50 * time.Millisecond
	c, err := client.Connect(testkit.Context(t), client.Definition{
		Name:      "asks",
		Profile:   client.Profile20251125,
		Limits:    client.Limits{DrainTimeout: drain},
		Transport: inprocess.New(srv),
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageParams, mcp.CreateMessageResult
	}, &client.Handlers{Sampling: func(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		close(entered)
		<-release // ignores its context
		return nil, errors.New("too late")
	}})
	if err != nil {
		t.Fatal(err)
	}
	go c.CallTool(testkit.Context(t), "ask", nil) // ends when Close cancels it
	<-entered
	took, err := testkit.CloseWithin(t, c, 30*time.Second)
	if !errors.Is(err, &client.ReasonError{Reason: client.ReasonHandlerStuck}) {
		t.Errorf("Close() = %v, want ReasonHandlerStuck", err)
	}
	if limit := 10 * (drain + client.HandlerGrace); took > limit {
		t.Errorf("Close took %v, want well under %v", took, limit)
	}
}

// Close cancels the context of the handlers still running when its drain
// ends: a handler that waits for nothing but its context (a Logging handler,
// a Sampling handler serving the server's request) returns then, and Close
// returns nil within its bound, with nothing abandoned.
func TestCloseCancelsHandlersThatHonourTheirContext(t *testing.T) {
	const drain = 50 * time.Millisecond
	// A handler that honours its context may take a moment to return once
	// cancelled: Close waits for it, within HandlerGrace.
	const cleanup = client.HandlerGrace / 10
	for _, tc := range []struct {
		name    string
		connect func(t *testing.T, entered chan<- struct{}, ended chan<- error) *client.Client
		run     func(c *client.Client)
	}{
		{"logging", func(t *testing.T, entered chan<- struct{}, ended chan<- error) *client.Client {
			var once sync.Once
			started := make(chan struct{})
			c, err := client.Connect(testkit.Context(t), client.Definition{
				Name:      "burst",
				Profile:   client.Profile20251125, // logging/setLevel; 2026-07-28 asks per request
				Limits:    client.Limits{DrainTimeout: drain},
				Transport: inprocess.New(burstServer(started, 1, nil)),
				//lint:ignore SA1019 roots and logging, deprecated by SEP-2577 and still supported: mcp.Root, mcp.LoggingMessageParams
			}, &client.Handlers{Roots: []*mcp.Root{}, Logging: func(ctx context.Context, _ *mcp.LoggingMessageParams) {
				once.Do(func() {
					close(started)
					close(entered)
					<-ctx.Done()
					time.Sleep(cleanup) // the handler's own clean-up, on the bubble's clock
					ended <- ctx.Err()
				})
			}})
			if err != nil {
				t.Fatal(err)
			}
			return c
		}, func(c *client.Client) { c.CallTool(context.Background(), "burst", nil) }},
		{"sampling", func(t *testing.T, entered chan<- struct{}, ended chan<- error) *client.Client {
			srv := mcp.NewServer(&mcp.Implementation{Name: "asks", Version: "v1"}, nil)
			mcp.AddTool(srv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.ServerSession.CreateMessage, mcp.CreateMessageParams, mcp.SamplingMessage
				_, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 1, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
				return &mcp.CallToolResult{}, nil, err
			})
			c, err := client.Connect(testkit.Context(t), client.Definition{
				Name:      "asks",
				Profile:   client.Profile20251125,
				Limits:    client.Limits{DrainTimeout: drain},
				Transport: inprocess.New(srv),
				//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageParams, mcp.CreateMessageResult
			}, &client.Handlers{Sampling: func(ctx context.Context, _ *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
				close(entered)
				<-ctx.Done()
				time.Sleep(cleanup) // the handler's own clean-up, on the bubble's clock
				ended <- ctx.Err()
				return nil, ctx.Err()
			}})
			if err != nil {
				t.Fatal(err)
			}
			return c
		}, func(c *client.Client) { c.CallTool(context.Background(), "ask", nil) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			// In a bubble the handler's clean-up takes exactly cleanup on
			// the bubble's clock, however busy the machine is.
			synctest.Test(t, func(t *testing.T) {
				entered, ended := make(chan struct{}), make(chan error, 1)
				c := tc.connect(t, entered, ended)
				called := make(chan struct{})
				go func() { defer close(called); tc.run(c) }()
				<-entered
				took, err := testkit.CloseWithin(t, c, 30*time.Second)
				if err != nil {
					t.Errorf("Close() = %v, want nil: the handler honours its context", err)
				}
				if limit := 10 * (drain + client.HandlerGrace); took > limit {
					t.Errorf("Close took %v, want well under %v", took, limit)
				}
				select {
				case err := <-ended:
					if !errors.Is(err, context.Canceled) {
						t.Errorf("the handler's context ended with %v, want context.Canceled", err)
					}
				default:
					t.Error("the handler was still waiting on its context when Close returned")
				}
				<-called
			})
		})
	}
}

// No handler runs after Close returns: a handler that honours its context
// is cancelled at the drain's end and has returned by then, and none starts
// later. Each handler call records whether Close had returned when it
// started; leakcheck (which runs first at cleanup) waits for stray
// goroutines, giving a handler that would start late the time to be seen.
func TestNoHandlerAfterClose(t *testing.T) {
	var closed, late, running atomic.Bool
	t.Cleanup(func() {
		if late.Load() {
			t.Error("a handler started after Close returned")
		}
	})
	leakcheck.Check(t)
	started := make(chan struct{})
	var once sync.Once
	c, err := client.Connect(testkit.Context(t), client.Definition{
		Name:      "burst",
		Profile:   client.Profile20251125, // logging/setLevel; 2026-07-28 asks per request
		Limits:    client.Limits{DrainTimeout: 20 * time.Millisecond},
		Transport: inprocess.New(burstServer(started, 200, nil)),
		//lint:ignore SA1019 roots and logging, deprecated by SEP-2577 and still supported: mcp.Root, mcp.LoggingMessageParams
	}, &client.Handlers{Roots: []*mcp.Root{}, Logging: func(ctx context.Context, _ *mcp.LoggingMessageParams) {
		if closed.Load() {
			late.Store(true)
		}
		running.Store(true)
		defer running.Store(false)
		once.Do(func() { close(started) })
		select {
		case <-ctx.Done():
		case <-time.After(time.Millisecond): // a slow handler's work
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(testkit.Context(t), "burst", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := testkit.CloseWithin(t, c, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	closed.Store(true)
	if running.Load() {
		t.Error("a handler was still running when Close returned")
	}
}

// A ResourceUpdated handler that ignores its context cannot hold Close
// past its bound either, on both revisions: resource updates are queued
// and run like the other notifications, not on the go-sdk's goroutine.
func TestCloseBoundedWhenResourceUpdatedHandlerIgnoresContext(t *testing.T) {
	for _, p := range []client.Profile{client.ProfileDefault, client.Profile20251125} {
		t.Run(p.String(), func(t *testing.T) {
			leakcheck.Check(t)
			entered, release := make(chan struct{}), make(chan struct{})
			t.Cleanup(func() { close(release) }) // runs before leakcheck's wait, registered earlier
			srv := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "v1"}, &mcp.ServerOptions{
				SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
				UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
			})
			srv.AddResource(&mcp.Resource{URI: "docs://readme", Name: "readme"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "v1"}}}, nil
			})
			var once sync.Once
			const drain = 50 * time.Millisecond
			c, err := client.Connect(testkit.Context(t), client.Definition{
				Name: "docs", Profile: p, Limits: client.Limits{DrainTimeout: drain}, Transport: inprocess.New(srv),
			}, &client.Handlers{ResourceUpdated: func(context.Context, *mcp.ResourceUpdatedNotificationParams) {
				once.Do(func() {
					close(entered)
					<-release // ignores its context
				})
			}})
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Subscribe(testkit.Context(t), "docs://readme"); err != nil {
				t.Fatal(err)
			}
			if err := srv.ResourceUpdated(testkit.Context(t), &mcp.ResourceUpdatedNotificationParams{URI: "docs://readme"}); err != nil {
				t.Fatal(err)
			}
			select {
			case <-entered:
			case <-testkit.Context(t).Done():
				t.Fatal("the update never reached the handler")
			}
			took, err := testkit.CloseWithin(t, c, 10*time.Second)
			if !errors.Is(err, &client.ReasonError{Reason: client.ReasonHandlerStuck}) {
				t.Errorf("Close() = %v, want ReasonHandlerStuck", err)
			}
			if limit := 10 * (drain + client.HandlerGrace); took > limit {
				t.Errorf("Close took %v, want well under %v", took, limit)
			}
		})
	}
}

// A call returns with the notifications its server sent before the answer
// (progress, log messages) queued for the handlers, though the go-sdk
// hands them over on a goroutine of its own, which the answer could
// overtake: a Close right after the call runs every one of them, rather
// than dropping the ones not yet handed over. In-process and over HTTP, at
// both revisions, many times over (the race is a matter of scheduling).
func TestCallReturnsWithItsNotificationsQueued(t *testing.T) {
	const steps, runs = 3, 20
	//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerCapabilities.Logging, mcp.LoggingCapabilities
	srv := mcp.NewServer(&mcp.Implementation{Name: "noisy", Version: "v1"}, &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}}})
	mcp.AddTool(srv, &mcp.Tool{Name: "work"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		for i := range steps {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i + 1), Total: steps}); err != nil {
				return nil, nil, err
			}
			//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerSession.Log, mcp.LoggingMessageParams
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: fmt.Sprint(i)}); err != nil {
				return nil, nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	for _, tc := range []struct {
		name    string
		profile client.Profile
		http    bool
	}{
		{"inprocess", client.ProfileDefault, false},
		{"http/2025-11-25", client.Profile20251125, true},
		{"http/2026-07-28", client.Profile20260728, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			var f transport.Factory = inprocess.New(srv)
			if tc.http {
				ts, _ := httpServer(t, srv, tc.profile == client.Profile20260728)
				hf, err := streamablehttp.New(ts.URL, nil)
				if err != nil {
					t.Fatal(err)
				}
				f = hf
			}
			for run := range runs {
				var progress, logs atomic.Int64
				h := &client.Handlers{
					Progress: func(context.Context, *mcp.ProgressNotificationParams) { progress.Add(1) },
					//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.LoggingMessageParams
					Logging: func(context.Context, *mcp.LoggingMessageParams) { logs.Add(1) },
				}
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				c, err := client.Connect(ctx, client.Definition{Name: "noisy", Profile: tc.profile, Transport: f}, h)
				if err != nil {
					cancel()
					t.Fatal(err)
				}
				_, err = c.CallTool(ctx, "work", map[string]any{})
				cancel()
				if err != nil {
					t.Fatal(err)
				}
				if err := c.Close(); err != nil {
					t.Fatal(err)
				}
				if p, l := progress.Load(), logs.Load(); p != steps || l != steps {
					t.Fatalf("run %d: the handlers ran for %d progress notifications and %d log messages, want %d of each (dropped %d)", run+1, p, l, steps, c.DroppedNotifications())
				}
			}
		})
	}
}
