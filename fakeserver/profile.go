package fakeserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// catalog is one profile's fixed set of tools, resources and prompts.
type catalog struct {
	pageSize     int
	instructions string
	tools        []string // every tool name the profile can publish
	install      func(*Server) error
}

func (c catalog) has(tool string) bool { return slices.Contains(c.tools, tool) }

var catalogs = map[string]catalog{
	ProfileDocs: {
		instructions: "A fake documentation server.",
		tools:        []string{"lookup"},
		install:      installDocs,
	},
	ProfileRich: {
		pageSize:     10,
		instructions: "A fake server that exercises every client feature.",
		tools:        append([]string{"lookup", "sample", "elicit", "roots", "log", "progress", "toggle", "ephemeral"}, itemNames()...),
		install:      installRich,
	},
}

const (
	envTool       = "env"
	ephemeralTool = "ephemeral"
	itemCount     = 25
)

func itemNames() []string {
	names := make([]string, itemCount)
	for i := range names {
		names[i] = fmt.Sprintf("item-%02d", i)
	}
	return names
}

func schema(s string) json.RawMessage { return json.RawMessage(s) }

var emptySchema = schema(`{"type":"object"}`)

// args decodes a call's validated arguments.
func args[T any](req *mcp.CallToolRequest) T {
	var v T
	json.Unmarshal(req.Params.Arguments, &v) // validated against the schema
	return v
}

// installDocs publishes the docs catalog: lookup, docs://readme, summarize.
func installDocs(s *Server) error {
	err := s.addTool(&mcp.Tool{
		Name:        "lookup",
		Description: "Look up a topic in the documentation.",
		InputSchema: schema(`{"type":"object","properties":{"query":{"type":"string","description":"What to look up."}},"required":["query"],"additionalProperties":false}`),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("docs: " + args[struct{ Query string }](req).Query), nil
	})
	if err != nil {
		return err
	}
	err = s.srv.RegisterResource(&mcp.Resource{
		URI: "docs://readme", Name: "readme", Title: "README", MIMEType: "text/markdown",
		Description: "The documentation's front page.",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: req.Params.URI, MIMEType: "text/markdown", Text: "# docs\n\nA fake documentation server. Call lookup with a query.\n",
		}}}, nil
	})
	if err != nil {
		return err
	}
	return s.srv.RegisterPrompt(&mcp.Prompt{
		Name:        "summarize",
		Description: "Summarize the documentation about a topic.",
		Arguments:   []*mcp.PromptArgument{{Name: "topic", Description: "The topic to summarize.", Required: true}},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{
			Description: "Summarize " + req.Params.Arguments["topic"],
			Messages: []*mcp.PromptMessage{{
				Role: "user", Content: &mcp.TextContent{Text: "Summarize the documentation about " + req.Params.Arguments["topic"] + "."},
			}},
		}, nil
	})
}

// installRich publishes the docs catalog plus the feature tools and the
// items that make tools/list span several pages.
func installRich(s *Server) error {
	if err := installDocs(s); err != nil {
		return err
	}
	tools := []struct {
		tool *mcp.Tool
		h    func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error)
	}{
		{&mcp.Tool{
			Name:        "sample",
			Description: "Ask the client's model (sampling/createMessage) and return its answer.",
			InputSchema: schema(`{"type":"object","properties":{"prompt":{"type":"string"}},"required":["prompt"]}`),
		}, sample},
		{&mcp.Tool{
			Name:        "elicit",
			Description: "Ask the user a question (elicitation/create) and return the answer.",
			InputSchema: schema(`{"type":"object","properties":{"question":{"type":"string"}},"required":["question"]}`),
		}, elicit},
		{&mcp.Tool{Name: "roots", Description: "List the client's roots (roots/list).", InputSchema: emptySchema}, roots},
		{&mcp.Tool{
			Name:        "log",
			Description: "Send count log messages (notifications/message) at cycling levels; count defaults to 3.",
			InputSchema: schema(`{"type":"object","properties":{"count":{"type":"integer","minimum":0,"maximum":100}}}`),
		}, logMessages},
		{&mcp.Tool{
			Name:        "progress",
			Description: "Send steps progress notifications for the call's progress token; steps defaults to 3.",
			InputSchema: schema(`{"type":"object","properties":{"steps":{"type":"integer","minimum":0,"maximum":100}}}`),
		}, progress},
		{&mcp.Tool{Name: "toggle", Description: `Add the tool "ephemeral", or remove it if present (notifications/tools/list_changed).`, InputSchema: emptySchema}, s.toggle},
	}
	for _, t := range tools {
		if err := s.addTool(t.tool, t.h); err != nil {
			return err
		}
	}
	for _, name := range itemNames() {
		err := s.addTool(&mcp.Tool{Name: name, Description: "A tool that fills the list: " + name + ".", InputSchema: emptySchema},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text(name), nil })
		if err != nil {
			return err
		}
	}
	return nil
}

func sample(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	in := args[struct{ Prompt string }](req)
	res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
		Messages:     []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Prompt}}},
		SystemPrompt: "You are answering a fake server.",
		MaxTokens:    64,
	})
	if err != nil {
		return nil, fmt.Errorf("sampling: %w", err)
	}
	var answer string
	if tc, ok := res.Content.(*mcp.TextContent); ok {
		answer = tc.Text
	}
	return text(fmt.Sprintf("sampled %s: %s", res.Model, answer)), nil
}

func elicit(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	in := args[struct{ Question string }](req)
	res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
		Message:         in.Question,
		RequestedSchema: schema(`{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}`),
	})
	if err != nil {
		return nil, fmt.Errorf("elicitation: %w", err)
	}
	content, _ := json.Marshal(res.Content) // map keys sorted
	return text(fmt.Sprintf("elicited %s: %s", res.Action, content)), nil
}

func roots(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	res, err := req.Session.ListRoots(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("roots: %w", err)
	}
	lines := make([]string, 0, len(res.Roots))
	for _, r := range res.Roots {
		lines = append(lines, r.URI+" "+r.Name)
	}
	slices.Sort(lines)
	return text(fmt.Sprintf("%d roots\n%s", len(lines), strings.Join(lines, "\n"))), nil
}

var logLevels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error"}

func logMessages(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	in := args[struct{ Count *int }](req)
	n := 3
	if in.Count != nil {
		n = *in.Count
	}
	for i := range n {
		err := req.Session.Log(ctx, &mcp.LoggingMessageParams{
			Level: logLevels[i%len(logLevels)], Logger: "fakeserver", Data: fmt.Sprintf("message %d of %d", i+1, n),
		})
		if err != nil {
			return nil, fmt.Errorf("logging: %w", err)
		}
	}
	return text(fmt.Sprintf("logged %d messages", n)), nil
}

func progress(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	in := args[struct{ Steps *int }](req)
	n := 3
	if in.Steps != nil {
		n = *in.Steps
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return text(fmt.Sprintf("progress: %d steps, no progress token", n)), nil
	}
	for i := range n {
		err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token, Progress: float64(i + 1), Total: float64(n), Message: fmt.Sprintf("step %d of %d", i+1, n),
		})
		if err != nil {
			return nil, fmt.Errorf("progress: %w", err)
		}
	}
	return text(fmt.Sprintf("progress: %d steps", n)), nil
}

// toggle adds the tool "ephemeral" or removes it. The go-sdk sends the
// list-changed notification shortly after the change (it debounces
// changes), so it usually follows this call's reply.
func (s *Server) toggle(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ephemeral = !s.ephemeral
	if !s.ephemeral {
		s.srv.RemoveTools(ephemeralTool)
		return text("removed " + ephemeralTool), nil
	}
	err := s.addTool(&mcp.Tool{Name: ephemeralTool, Description: "A tool that comes and goes.", InputSchema: emptySchema},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(ephemeralTool), nil
		})
	if err != nil {
		return nil, err
	}
	return text("added " + ephemeralTool), nil
}

func envToolDef() *mcp.Tool {
	return &mcp.Tool{Name: envTool, Description: "Return the server's environment as sorted KEY=VALUE lines.", InputSchema: emptySchema}
}

func envHandler(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	env := os.Environ()
	slices.Sort(env)
	return text(strings.Join(env, "\n")), nil
}
