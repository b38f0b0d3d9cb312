package fakeserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// served is what a fake serves: a built-in catalog's fixed set of tools,
// resources and prompts, or a custom [Catalog].
type served struct {
	name, version string
	pageSize      int
	instructions  string
	tools         []string // every tool name the catalog can publish
	skills        []server.SkillDefinition
	install       func(*Server) error
}

func (c served) has(tool string) bool { return slices.Contains(c.tools, tool) }

var catalogs = map[string]served{
	CatalogDocs: {
		name:         CatalogDocs,
		version:      Version,
		instructions: "A fake documentation server.",
		tools:        []string{"lookup"},
		install:      installDocs,
	},
	CatalogRich: {
		name:         CatalogRich,
		version:      Version,
		pageSize:     10,
		instructions: "A fake server that exercises every client feature.",
		tools:        append([]string{"lookup", "sample", "elicit", "roots", "log", "progress", "toggle", "ephemeral"}, itemNames()...),
		install:      installRich,
		skills:       richSkills,
	},
}

// resolveCatalog returns what Options.Catalog or Options.Custom names.
func resolveCatalog(name string, custom *Catalog) (served, error) {
	if custom != nil {
		if name != "" {
			return served{}, fmt.Errorf("fakeserver: set Options.Catalog (%q) or Options.Custom (%q), not both", name, custom.Name)
		}
		return customCatalog(custom)
	}
	if name == "" {
		name = CatalogDocs
	}
	if c, ok := catalogs[name]; ok {
		return c, nil
	}
	if c, ok := Registered(name); ok {
		return customCatalog(c)
	}
	return served{}, fmt.Errorf("fakeserver: %w %q (want one of %s)", errUnknownCatalog, name, strings.Join(Catalogs(), ", "))
}

// errUnknownCatalog is returned when a catalog is neither built in nor
// registered ([Register]).
const errUnknownCatalog = badName("unknown catalog")

// customCatalog returns what a custom catalog serves, once it is valid.
func customCatalog(c *Catalog) (served, error) {
	if err := c.check(); err != nil {
		return served{}, err
	}
	s := served{name: c.Name, version: c.Version, pageSize: c.PageSize, instructions: c.Instructions, install: c.install}
	if s.version == "" {
		s.version = Version
	}
	for _, t := range c.Tools {
		s.tools = append(s.tools, t.Name)
	}
	s.skills = skillDefinitions(c.Skills)
	return s, nil
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
func args[T any](c *Call) T {
	var v T
	c.Decode(&v) // validated against the schema
	return v
}

// installDocs publishes the docs catalog: lookup, docs://readme, summarize.
func installDocs(s *Server) error {
	err := s.addTool(&mcp.Tool{
		Name:        "lookup",
		Description: "Look up a topic in the documentation.",
		InputSchema: schema(`{"type":"object","properties":{"query":{"type":"string","description":"What to look up."}},"required":["query"],"additionalProperties":false}`),
	}, func(_ context.Context, c *Call) (*mcp.CallToolResult, error) {
		return text("docs: " + args[struct{ Query string }](c).Query), nil
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
		h    Reply
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
			Text(name))
		if err != nil {
			return err
		}
	}
	return nil
}

// sample, elicit and roots need the client: they are written once, with
// input-required results (SEP-2322) and the server package's readers of
// the answers. Round 1 asks; round 2 answers from the input responses. On
// 2026-07-28 the client continues the call with a new request; on
// 2025-11-25 the server asks the client during the call and runs round 2
// itself.

// input is the key of the one input request each of them makes.
const input = "input"

func askFor(req mcp.InputRequest) *mcp.CallToolResult {
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{input: req}}
}

func sample(_ context.Context, c *Call) (*mcp.CallToolResult, error) {
	res, ok := server.SamplingResponse(c.InputResponses, input)
	if !ok {
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageParams
		return askFor(&mcp.CreateMessageParams{
			//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.SamplingMessage
			Messages:     []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: args[struct{ Prompt string }](c).Prompt}}},
			SystemPrompt: "You are answering a fake server.",
			MaxTokens:    64,
		}), nil
	}
	var answer string
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			answer += tc.Text
		}
	}
	return text(fmt.Sprintf("sampled %s: %s", res.Model, answer)), nil
}

func elicit(_ context.Context, c *Call) (*mcp.CallToolResult, error) {
	res, ok := server.ElicitResponse(c.InputResponses, input)
	if !ok {
		return askFor(&mcp.ElicitParams{
			Message:         args[struct{ Question string }](c).Question,
			RequestedSchema: schema(`{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}`),
		}), nil
	}
	content, _ := json.Marshal(res.Content) // map keys sorted
	return text(fmt.Sprintf("elicited %s: %s", res.Action, content)), nil
}

func roots(_ context.Context, c *Call) (*mcp.CallToolResult, error) {
	res, ok := server.RootsResponse(c.InputResponses, input)
	if !ok {
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ListRootsParams
		return askFor(&mcp.ListRootsParams{}), nil
	}
	lines := make([]string, 0, len(res.Roots))
	for _, r := range res.Roots {
		lines = append(lines, r.URI+" "+r.Name)
	}
	slices.Sort(lines)
	return text(fmt.Sprintf("%d roots\n%s", len(lines), strings.Join(lines, "\n"))), nil
}

//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.LoggingLevel
var logLevels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error"}

func logMessages(ctx context.Context, c *Call) (*mcp.CallToolResult, error) {
	req := c.Request
	in := args[struct{ Count *int }](c)
	n := 3
	if in.Count != nil {
		n = *in.Count
	}
	for i := range n {
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerSession.Log, mcp.LoggingMessageParams
		err := req.Session.Log(ctx, &mcp.LoggingMessageParams{
			Level: logLevels[i%len(logLevels)], Logger: "fakeserver", Data: fmt.Sprintf("message %d of %d", i+1, n),
		})
		if err != nil {
			return nil, fmt.Errorf("logging: %w", err)
		}
	}
	return text(fmt.Sprintf("logged %d messages", n)), nil
}

func progress(ctx context.Context, c *Call) (*mcp.CallToolResult, error) {
	req := c.Request
	in := args[struct{ Steps *int }](c)
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
func (s *Server) toggle(context.Context, *Call) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ephemeral = !s.ephemeral
	if !s.ephemeral {
		s.srv.RemoveTools(ephemeralTool)
		return text("removed " + ephemeralTool), nil
	}
	err := s.addTool(&mcp.Tool{Name: ephemeralTool, Description: "A tool that comes and goes.", InputSchema: emptySchema}, Text(ephemeralTool))
	if err != nil {
		return nil, err
	}
	return text("added " + ephemeralTool), nil
}

func envToolDef() *mcp.Tool {
	return &mcp.Tool{Name: envTool, Description: "Return the server's environment as sorted KEY=VALUE lines.", InputSchema: emptySchema}
}

func envReply(context.Context, *Call) (*mcp.CallToolResult, error) {
	env := os.Environ()
	slices.Sort(env)
	return text(strings.Join(env, "\n")), nil
}
