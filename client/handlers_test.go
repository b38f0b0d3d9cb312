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

// askingServer has one tool per thing a server can ask of its client; each
// returns what the client answered as text.
func askingServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "rich", Version: "v1"}, &mcp.ServerOptions{
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerCapabilities.Logging, mcp.LoggingCapabilities
		Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}, Tools: &mcp.ToolCapabilities{}},
	})
	add := func(name string, f func(context.Context, *mcp.CallToolRequest) (string, error)) {
		mcp.AddTool(srv, &mcp.Tool{Name: name}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			s, err := f(ctx, req)
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}, nil, nil
		})
	}
	add("sample", func(ctx context.Context, req *mcp.CallToolRequest) (string, error) {
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.ServerSession.CreateMessage, mcp.CreateMessageParams
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
			//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.SamplingMessage
			Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
		if err != nil {
			return "", err
		}
		return res.Content.(*mcp.TextContent).Text, nil
	})
	add("elicit", func(ctx context.Context, req *mcp.CallToolRequest) (string, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "name?"})
		if err != nil {
			return "", err
		}
		return res.Action, nil
	})
	add("roots", func(ctx context.Context, req *mcp.CallToolRequest) (string, error) {
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ServerSession.ListRoots
		res, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			return "", err
		}
		var uris []string
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
		return strings.Join(uris, ","), nil
	})
	add("log", func(ctx context.Context, req *mcp.CallToolRequest) (string, error) {
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.LoggingLevel
		for _, level := range []mcp.LoggingLevel{"debug", "info", "error"} {
			//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerSession.Log, mcp.LoggingMessageParams
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: level, Data: string(level)}); err != nil {
				return "", err
			}
		}
		return "logged", nil
	})
	add("progress", func(ctx context.Context, req *mcp.CallToolRequest) (string, error) {
		token := req.Params.GetProgressToken()
		for i := 1; i <= 2; i++ {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: 2}); err != nil {
				return "", err
			}
		}
		return fmt.Sprint(token), nil
	})
	return srv
}

func TestHandlers(t *testing.T) {
	leakcheck.Check(t)
	logs, progress := make(chan string, 10), make(chan string, 10)
	h := &client.Handlers{
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageParams, mcp.CreateMessageResult
		Sampling: func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageResult
			return &mcp.CreateMessageResult{Role: "assistant", Model: "scripted", Content: &mcp.TextContent{Text: "sampled"}}, nil
		},
		Elicitation: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.Root
		Roots: []*mcp.Root{{URI: "file:///a"}, {URI: "file:///b"}},
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.LoggingMessageParams
		Logging: func(ctx context.Context, p *mcp.LoggingMessageParams) {
			logs <- fmt.Sprint(p.Data)
		},
		Progress: func(ctx context.Context, p *mcp.ProgressNotificationParams) {
			progress <- fmt.Sprintf("%v:%v/%v", p.ProgressToken, p.Progress, p.Total)
		},
	}
	// On 2025-11-25 the server asks during the call.
	c := connect(t, askingServer(), client.Definition{Name: "rich", Profile: client.Profile20251125}, h)
	got := map[string]string{}
	for _, tool := range []string{"sample", "elicit", "roots", "log", "progress"} {
		res, err := c.CallTool(context.Background(), tool, map[string]any{})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		got[tool] = res.Content[0].(*mcp.TextContent).Text
	}
	want := map[string]string{"sample": "sampled", "elicit": "decline", "roots": "file:///a,file:///b", "log": "logged", "progress": "looprig-5"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool results mismatch (-want +got):\n%s", diff)
	}
	// Notifications may be handled after the call's response: wait for them.
	if diff := cmp.Diff([]string{"info", "error"}, receive(t, logs, 2)); diff != "" {
		t.Errorf("logs at the default level mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"looprig-5:1/2", "looprig-5:2/2"}, receive(t, progress, 2)); diff != "" {
		t.Errorf("progress mismatch (-want +got):\n%s", diff)
	}
}

func TestNoHandlersNoCapabilities(t *testing.T) {
	leakcheck.Check(t)
	c := connect(t, askingServer(), client.Definition{Name: "rich", Profile: client.Profile20251125}, nil)
	for _, tool := range []string{"sample", "elicit"} {
		_, err := c.CallTool(context.Background(), tool, map[string]any{})
		if err == nil {
			t.Errorf("%s succeeded against a client that offers no handler", tool)
		}
	}
	// The go-sdk answers roots/list with no roots when none are offered.
	res, err := c.CallTool(context.Background(), "roots", map[string]any{})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "" {
		t.Errorf("roots = %v, %v; want no roots", res, err)
	}
}

// receive reads n values from ch, failing the test after a deadline.
func receive(t *testing.T, ch <-chan string, n int) []string {
	t.Helper()
	var got []string
	timeout := time.After(10 * time.Second)
	for len(got) < n {
		select {
		case s := <-ch:
			got = append(got, s)
		case <-timeout:
			t.Fatalf("received %v, want %d values", got, n)
		}
	}
	return got
}

// Logging works on both revisions: on 2025-11-25 through logging/setLevel,
// on 2026-07-28 (which has no logging/setLevel and drops a request's logs
// unless its _meta names a level) through every request's _meta. The level
// is honoured on both: the server logs debug, info and error, in order, so
// once "error" has arrived nothing below the level can still come.
func TestLoggingOnBothRevisions(t *testing.T) {
	leakcheck.Check(t)
	for _, profile := range []client.Profile{client.ProfileDefault, client.Profile20251125} {
		for _, tc := range []struct {
			//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.LoggingLevel
			level mcp.LoggingLevel
			want  []string
		}{
			{"", []string{"info", "error"}},
			{"error", []string{"error"}},
			{"debug", []string{"debug", "info", "error"}},
		} {
			t.Run(fmt.Sprintf("%s/%q", profile, tc.level), func(t *testing.T) {
				logs := make(chan string, 10)
				//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.LoggingMessageParams
				h := &client.Handlers{LogLevel: tc.level, Logging: func(ctx context.Context, p *mcp.LoggingMessageParams) {
					logs <- fmt.Sprint(p.Data)
				}}
				c := connect(t, askingServer(), client.Definition{Name: "rich", Profile: profile}, h)
				if _, err := c.CallTool(t.Context(), "log", map[string]any{}); err != nil {
					t.Fatalf("log: %v", err)
				}
				if diff := cmp.Diff(tc.want, receive(t, logs, len(tc.want))); diff != "" {
					t.Errorf("logs at %s (-want +got):\n%s", c.ProtocolVersion(), diff)
				}
			})
		}
	}
}
