package fakeserver

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/looprig/mcp/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMain(m *testing.M) {
	MainIfChild()
	os.Exit(m.Run())
}

// stable pins the protocol revision this project's client speaks by
// default. (Under the go-sdk's draft default, 2026-07-28, a server may not
// send requests to the client while serving a call.)
var stable = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}

// newFake returns a fake server, failing the test on an error.
func newFake(t testing.TB, opts *Options) *Server {
	t.Helper()
	fs, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return fs
}

// connect returns a go-sdk client session to fs, in-process, closed at
// cleanup.
func connect(t testing.TB, fs *Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return testkit.Connect(t, testkit.Transport(t, fs.Factory()), &testkit.ConnectOptions{Client: testkit.NewClient(opts), Version: stable.ProtocolVersion})
}

type outcome struct {
	Text    string
	IsError bool
}

func callTool(ctx context.Context, cs *mcp.ClientSession, tool, args string) (outcome, error) {
	p := &mcp.CallToolParams{Name: tool}
	if args != "" {
		p.Arguments = json.RawMessage(args)
	}
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		return outcome{}, err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return outcome{b.String(), res.IsError}, nil
}

func call(t testing.TB, cs *mcp.ClientSession, tool, args string) outcome {
	t.Helper()
	o, err := callTool(context.Background(), cs, tool, args)
	if err != nil {
		t.Fatalf("CallTool(%s, %s): %v", tool, args, err)
	}
	return o
}
