package server

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func readme(text string) mcp.ResourceHandler {
	return func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: text}}}, nil
	}
}

func rpcCode(err error) int64 {
	var werr *jsonrpc.Error
	if errors.As(err, &werr) {
		return werr.Code
	}
	return 0
}

func TestResources(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "docs", "v1", &Options{MaxResultBytes: 256})
	for _, r := range []struct {
		uri string
		h   mcp.ResourceHandler
	}{
		{"docs://readme", readme("# docs")},
		{"docs://big", readme(strings.Repeat("x", 300))},
		{"docs://panic", func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) { panic("boom") }},
		{"docs://gone", func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}},
	} {
		if err := s.RegisterResource(&mcp.Resource{URI: r.uri, Name: r.uri}, r.h); err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, s)
	ctx := context.Background()
	tests := []struct {
		uri      string
		wantText string
		wantCode int64
		wantMsg  string
	}{
		{uri: "docs://readme", wantText: "# docs"},
		{uri: "docs://big", wantCode: jsonrpc.CodeInternalError, wantMsg: "result too large: 398 bytes exceed the 256-byte limit"},
		{uri: "docs://panic", wantCode: jsonrpc.CodeInternalError, wantMsg: "handler panicked: boom"},
		{uri: "docs://gone", wantCode: jsonrpc.CodeInvalidParams, wantMsg: "Resource not found"},
		{uri: "docs://readme", wantText: "# docs"}, // still serving
	}
	for _, tt := range tests {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: tt.uri})
		if tt.wantCode != 0 {
			if rpcCode(err) != tt.wantCode || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("ReadResource(%s) error = %v, want code %d and %q", tt.uri, err, tt.wantCode, tt.wantMsg)
			}
			continue
		}
		if err != nil {
			t.Fatalf("ReadResource(%s): %v", tt.uri, err)
		}
		if diff := cmp.Diff(tt.wantText, res.Contents[0].Text); diff != "" {
			t.Errorf("ReadResource(%s) mismatch (-want +got):\n%s", tt.uri, diff)
		}
	}
}

func TestRegisterResourceErrors(t *testing.T) {
	s := newServer(t, "docs", "v1", nil)
	if err := s.RegisterResource(&mcp.Resource{URI: "docs://readme"}, readme("x")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		r    *mcp.Resource
		h    mcp.ResourceHandler
		want error
	}{
		{"nil", nil, readme("x"), ErrInvalidDefinition},
		{"nil handler", &mcp.Resource{URI: "docs://x"}, nil, ErrInvalidDefinition},
		{"relative", &mcp.Resource{URI: "readme"}, readme("x"), ErrInvalidDefinition},
		{"unparsable", &mcp.Resource{URI: "docs://%zz"}, readme("x"), ErrInvalidDefinition},
		{"duplicate", &mcp.Resource{URI: "docs://readme"}, readme("x"), ErrDuplicate},
	}
	for _, tt := range tests {
		if err := s.RegisterResource(tt.r, tt.h); !errors.Is(err, tt.want) {
			t.Errorf("%s: RegisterResource error = %v, want %v", tt.name, err, tt.want)
		}
	}
	s.RemoveResources("docs://readme")
	if err := s.RegisterResource(&mcp.Resource{URI: "docs://readme"}, readme("x")); err != nil {
		t.Errorf("RegisterResource after RemoveResources: %v", err)
	}
}

func summarize(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	topic := req.Params.Arguments["topic"]
	if topic == "panic" {
		panic("boom")
	}
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Summarize " + topic + "."}}}}, nil
}

func TestPrompts(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "docs", "v1", &Options{MaxInputBytes: 32})
	p := &mcp.Prompt{Name: "summarize", Arguments: []*mcp.PromptArgument{{Name: "topic", Required: true}}}
	if err := s.RegisterPrompt(p, summarize); err != nil {
		t.Fatal(err)
	}
	if err := s.RegisterPrompt(p, summarize); !errors.Is(err, ErrDuplicate) {
		t.Errorf("second RegisterPrompt error = %v, want ErrDuplicate", err)
	}
	if err := s.RegisterPrompt(&mcp.Prompt{}, summarize); !errors.Is(err, ErrInvalidDefinition) {
		t.Errorf("RegisterPrompt with no name: error = %v, want ErrInvalidDefinition", err)
	}
	cs := connect(t, s)
	ctx := context.Background()
	tests := []struct {
		args     map[string]string
		wantText string
		wantCode int64
		wantMsg  string
	}{
		{args: map[string]string{"topic": "go"}, wantText: "Summarize go."},
		{args: nil, wantCode: jsonrpc.CodeInvalidParams, wantMsg: `invalid input: missing required argument "topic"`},
		{args: map[string]string{"topic": strings.Repeat("x", 40)}, wantCode: jsonrpc.CodeInvalidParams, wantMsg: "input too large: 45 bytes of arguments exceed the 32-byte limit"},
		{args: map[string]string{"topic": "panic"}, wantCode: jsonrpc.CodeInternalError, wantMsg: "handler panicked: boom"},
		{args: map[string]string{"topic": "mcp"}, wantText: "Summarize mcp."},
	}
	for _, tt := range tests {
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: tt.args})
		if tt.wantCode != 0 {
			if rpcCode(err) != tt.wantCode || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("GetPrompt(%v) error = %v, want code %d and %q", tt.args, err, tt.wantCode, tt.wantMsg)
			}
			continue
		}
		if err != nil {
			t.Fatalf("GetPrompt(%v): %v", tt.args, err)
		}
		if diff := cmp.Diff(tt.wantText, res.Messages[0].Content.(*mcp.TextContent).Text); diff != "" {
			t.Errorf("GetPrompt(%v) mismatch (-want +got):\n%s", tt.args, diff)
		}
	}
	s.RemovePrompts("summarize")
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: map[string]string{"topic": "go"}}); err == nil {
		t.Error("GetPrompt of a removed prompt succeeded")
	}
}
