package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/looprig/mcp/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connect returns a go-sdk client session to s over its in-process
// factory, closed at cleanup.
func connect(t testing.TB, s *Server) *mcp.ClientSession {
	t.Helper()
	return testkit.Connect(t, testkit.Transport(t, s.Factory()), nil)
}

// call calls tool with raw JSON arguments ("" for none) and returns the
// result's text and isError, failing t on a JSON-RPC error.
func call(t testing.TB, cs *mcp.ClientSession, tool, args string) (string, bool) {
	t.Helper()
	text, isErr, err := tryCall(cs, tool, args)
	if err != nil {
		t.Fatalf("CallTool(%s, %s): %v", tool, args, err)
	}
	return text, isErr
}

func tryCall(cs *mcp.ClientSession, tool, args string) (string, bool, error) {
	p := &mcp.CallToolParams{Name: tool}
	if args != "" {
		p.Arguments = json.RawMessage(args)
	}
	res, err := cs.CallTool(context.Background(), p)
	if err != nil {
		return "", false, err
	}
	return text(res.Content), res.IsError, nil
}

func text(cs []mcp.Content) string {
	var b strings.Builder
	for _, c := range cs {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// lookupSchema is {"query": string, required}.
const lookupSchema = `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`

func lookupTool() *mcp.Tool {
	return &mcp.Tool{Name: "lookup", Description: "Look up the docs.", InputSchema: json.RawMessage(lookupSchema)}
}

func lookup(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct{ Query string }
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
		return nil, err
	}
	return textResult("docs: " + in.Query), nil
}

func mustRegister(t testing.TB, s *Server, tool *mcp.Tool, h ToolHandler) {
	t.Helper()
	if err := s.RegisterTool(tool, h); err != nil {
		t.Fatalf("RegisterTool(%s): %v", tool.Name, err)
	}
}

// newServer is New, failing t on an error.
func newServer(t testing.TB, name, version string, opts *Options) *Server {
	t.Helper()
	s, err := New(name, version, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// httpHandler is s.HTTPHandler, failing t on an error.
func httpHandler(t testing.TB, s *Server, opts *HTTPOptions) *HTTPHandler {
	t.Helper()
	h, err := s.HTTPHandler(opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// sseHandler is s.SSEHandler, failing t on an error.
func sseHandler(t testing.TB, s *Server, opts *HTTPOptions) *SSEHandler {
	t.Helper()
	h, err := s.SSEHandler(opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
