package cassette_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// counter is a test server whose tools count their executions.
type counter struct {
	srv   *mcp.Server
	calls atomic.Int64 // executions of every tool
}

type countIn struct {
	Label string `json:"label"`
}

type echoIn struct {
	Text     string `json:"text"`
	Password string `json:"password,omitempty"` // accepted and ignored
}

func newCounter() *counter { return newCounterWith(nil) }

// newCounterWith is newCounter with server options.
func newCounterWith(opts *mcp.ServerOptions) *counter {
	c := &counter{srv: mcp.NewServer(&mcp.Implementation{Name: "counter", Version: "v1.0.0"}, opts)}
	mcp.AddTool(c.srv, &mcp.Tool{Name: "count", Description: "Counts its calls."}, func(ctx context.Context, req *mcp.CallToolRequest, in countIn) (*mcp.CallToolResult, any, error) {
		n := c.calls.Add(1)
		return text(fmt.Sprintf("%s #%d", in.Label, n)), nil, nil
	})
	mcp.AddTool(c.srv, &mcp.Tool{Name: "echo", Description: "Echoes its text."}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		c.calls.Add(1)
		return text("echo: " + in.Text), nil, nil
	})
	mcp.AddTool(c.srv, &mcp.Tool{Name: "ask", Description: "Asks the client: roots, sampling, elicitation."}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		c.calls.Add(1)
		ss := req.Session
		roots, err := ss.ListRoots(ctx, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("roots: %w", err)
		}
		msg, err := ss.CreateMessage(ctx, &mcp.CreateMessageParams{
			MaxTokens: 10,
			Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "say hi"}}},
		})
		if err != nil {
			return nil, nil, fmt.Errorf("sampling: %w", err)
		}
		el, err := ss.Elicit(ctx, &mcp.ElicitParams{
			Message:         "name?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
		})
		if err != nil {
			return nil, nil, fmt.Errorf("elicitation: %w", err)
		}
		return text(fmt.Sprintf("roots=%d sampled=%q elicited=%v", len(roots.Roots), msg.Content.(*mcp.TextContent).Text, el.Content["name"])), nil, nil
	})
	return c
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// newClient returns a go-sdk client that answers sampling, elicitation and
// roots requests.
func newClient() *mcp.Client {
	c := mcp.NewClient(&mcp.Implementation{Name: "tester", Version: "v1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "fake", Role: "assistant", Content: &mcp.TextContent{Text: "hi"}}, nil
		},
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
	})
	c.AddRoots(&mcp.Root{URI: "file:///work", Name: "work"})
	return c
}

// call is one tool call of a scripted session.
type call struct {
	Tool string
	Args map[string]any
}

// outcome is what a call returned: its text or its error.
type outcome struct {
	Text string
	Err  string
}

// session connects to f, makes the calls in order and closes. It returns
// the outcomes and the error Close returned.
func session(t testing.TB, f transport.Factory, calls ...call) ([]outcome, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr, err := f.Transport()
	if err != nil {
		t.Fatalf("Transport: %v", err)
	}
	cs, err := newClient().Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: stable})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	var outs []outcome
	for _, c := range calls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args})
		switch {
		case err != nil:
			outs = append(outs, outcome{Err: err.Error()})
		case res.IsError:
			outs = append(outs, outcome{Err: res.Content[0].(*mcp.TextContent).Text})
		default:
			outs = append(outs, outcome{Text: res.Content[0].(*mcp.TextContent).Text})
		}
	}
	return outs, cs.Close()
}

// errText returns err's text, or "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func mustContain(t testing.TB, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s does not contain %q:\n%s", what, sub, s)
		}
	}
}

var _ = errors.New

// stable is the protocol revision of the project's stable profile; the
// go-sdk's default is the draft.
const stable = "2025-11-25"
