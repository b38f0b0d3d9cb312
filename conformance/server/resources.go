package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newServer returns the conformance server with everything it publishes.
func newServer() (*server.Server, error) {
	srv, err := server.New("mcp-conformance-test-server", "1.0.0", &server.Options{
		// The suite asks for completions (none are offered) and subscribes
		// to test://watched-resource, which never changes.
		Completion: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
		},
		Subscriptions: true,
		Tasks:         &server.TaskOptions{},
		Skills:        skillOptions(),
	})
	if err != nil {
		return nil, err
	}
	for _, register := range []func(*server.Server) error{registerTools, registerResources, registerPrompts, registerCurrent, registerTasks} {
		if err := register(srv); err != nil {
			return nil, err
		}
	}
	return srv, nil
}

func textResource(text string) mcp.ResourceHandler {
	return func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: text}}}, nil
	}
}

// registerResources publishes the resources of the suite's resources-*
// scenarios.
func registerResources(srv *server.Server) error {
	resources := []struct {
		r *mcp.Resource
		h mcp.ResourceHandler
	}{
		{&mcp.Resource{Name: "static-text", Description: "A static text resource.", MIMEType: "text/plain", URI: "test://static-text"},
			textResource("This is the content of the static text resource.")},
		{&mcp.Resource{Name: "static-binary", Description: "A static binary resource (a PNG image).", MIMEType: "image/png", URI: "test://static-binary"},
			func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: pngData}}}, nil
			}},
		{&mcp.Resource{Name: "watched-resource", Description: "A resource clients may subscribe to; its content never changes.", MIMEType: "text/plain", URI: "test://watched-resource"},
			textResource("Watched resource content")},
	}
	for _, r := range resources {
		if err := srv.RegisterResource(r.r, r.h); err != nil {
			return err
		}
	}
	// The server package does not wrap resource templates: they go to the
	// go-sdk server directly.
	srv.MCP().AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "template",
		Description: "A resource template with parameter substitution.",
		MIMEType:    "application/json",
		URITemplate: "test://template/{id}/data",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		id, ok := strings.CutSuffix(strings.TrimPrefix(req.Params.URI, "test://template/"), "/data")
		if !ok || id == "" || strings.Contains(id, "/") {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI:      req.Params.URI,
			MIMEType: "application/json",
			Text:     fmt.Sprintf(`{"id": %q, "templateTest": true, "data": "Data for ID: %s"}`, id, id),
		}}}, nil
	})
	return nil
}

// registerPrompts publishes the prompts of the suite's prompts-* scenarios.
func registerPrompts(srv *server.Server) error {
	user := func(c mcp.Content) *mcp.PromptMessage { return &mcp.PromptMessage{Role: "user", Content: c} }
	prompts := []struct {
		p *mcp.Prompt
		h mcp.PromptHandler
	}{
		{&mcp.Prompt{Name: "test_simple_prompt", Title: "Simple Test Prompt", Description: "A prompt without arguments."},
			func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Description: "A simple test prompt", Messages: []*mcp.PromptMessage{
					user(&mcp.TextContent{Text: "This is a simple prompt for testing."}),
				}}, nil
			}},
		{&mcp.Prompt{Name: "test_prompt_with_arguments", Title: "Prompt With Arguments", Description: "A prompt with required arguments.",
			Arguments: []*mcp.PromptArgument{
				{Name: "arg1", Description: "First test argument", Required: true},
				{Name: "arg2", Description: "Second test argument", Required: true},
			}},
			func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				a := req.Params.Arguments
				return &mcp.GetPromptResult{Description: "A prompt with arguments", Messages: []*mcp.PromptMessage{
					user(&mcp.TextContent{Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])}),
				}}, nil
			}},
		{&mcp.Prompt{Name: "test_prompt_with_embedded_resource", Title: "Prompt With Embedded Resource", Description: "A prompt that embeds a resource.",
			Arguments: []*mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
			func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Description: "A prompt with an embedded resource", Messages: []*mcp.PromptMessage{
					user(&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
						URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing.",
					}}),
					user(&mcp.TextContent{Text: "Please process the embedded resource above."}),
				}}, nil
			}},
		{&mcp.Prompt{Name: "test_prompt_with_image", Title: "Prompt With Image", Description: "A prompt with image content."},
			func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Description: "A prompt with an image", Messages: []*mcp.PromptMessage{
					user(&mcp.ImageContent{Data: pngData, MIMEType: "image/png"}),
					user(&mcp.TextContent{Text: "Please analyze the image above."}),
				}}, nil
			}},
	}
	for _, p := range prompts {
		if err := srv.RegisterPrompt(p.p, p.h); err != nil {
			return err
		}
	}
	return nil
}
