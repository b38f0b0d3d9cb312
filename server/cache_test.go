package server

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCacheHints(t *testing.T) {
	var methods []string
	s := newServer(t, "docs", "v1", &Options{Cache: func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
		switch req.(type) {
		case *mcp.ListToolsRequest:
			methods = append(methods, "tools/list")
			c.TTLMs, c.CacheScope = 60000, "private"
		case *mcp.ReadResourceRequest:
			methods = append(methods, "resources/read")
			c.TTLMs = 1000 // scope left to the default
		}
	}})
	mustRegister(t, s, lookupTool(), lookup)
	if err := s.RegisterResource(&mcp.Resource{Name: "a", URI: "test://a"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "a"}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.RegisterPrompt(&mcp.Prompt{Name: "p"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s) // the go-sdk's default: 2026-07-28
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://a"})
	if err != nil {
		t.Fatal(err)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]mcp.Cacheable{"tools/list": tools.Cacheable, "resources/read": read.Cacheable, "prompts/list": prompts.Cacheable}
	want := map[string]mcp.Cacheable{
		"tools/list":     {TTLMs: 60000, CacheScope: "private"},
		"resources/read": {TTLMs: 1000, CacheScope: "public"},
		"prompts/list":   {TTLMs: 0, CacheScope: "public"}, // the defaults
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("caching hints mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"tools/list", "resources/read"}, methods); diff != "" {
		t.Errorf("Options.Cache calls mismatch (-want +got):\n%s", diff)
	}
}
