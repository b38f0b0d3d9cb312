package fakeserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Catalog is a fake server of your own: its name and the tools,
// resources, prompts and skills it publishes, each with a scripted reply.
// A fake built from it ([Options].Custom) is deterministic, counts every
// execution and takes every fault, as the built-in catalogs do.
//
// To serve it from a stdio child (the test binary re-run), register it by
// name first ([Register], or mcptest.Main's options): the child finds it
// by that name (--catalog NAME).
//
// A Catalog is plain data and may be shared: a fake keeps its own state
// (call numbers, counts), never the Catalog's.
type Catalog struct {
	// Name is the server's name (its serverInfo.name) and the name it is
	// registered under: 1 to 64 of [A-Za-z0-9_.-]. Required.
	Name string
	// Version is the server's version; empty means [Version].
	Version string
	// Instructions are the server's instructions to the client, if any.
	Instructions string
	// PageSize is the number of items per page of every list; zero means
	// the go-sdk's default (1000).
	PageSize int
	// Tools are the tools published, in any order (lists are sorted by
	// name). Names must be unique.
	Tools []Tool
	// Resources are the resources published; URIs must be absolute and
	// unique.
	Resources []Resource
	// Prompts are the prompts published; names must be unique.
	Prompts []Prompt
	// Skills are the skills published (the skills extension, SEP-2640);
	// paths must be unique.
	Skills []Skill
}

// Definition is v0.1.0's name for [Catalog].
//
// Deprecated: use [Catalog]. In this module a definition is how to reach a
// server (client.Definition); a fake's tools and replies are its catalog.
type Definition = Catalog

// A Tool is one tool of a [Catalog]: what tools/list publishes, and the
// reply to each call.
type Tool struct {
	// Name is the tool's name: 1 to 128 of [A-Za-z0-9_.-]. Required.
	Name string
	// Title and Description are published as given.
	Title, Description string
	// InputSchema is the JSON Schema the arguments are validated against
	// before the reply runs. (A call with invalid arguments is an isError
	// result and is not counted.) It is a json.RawMessage, a string holding
	// JSON, a *jsonschema.Schema or a map. Its root type must be "object".
	// Nil means {"type":"object"}: any object.
	InputSchema any
	// OutputSchema, if set, is published as the tool's output schema, in
	// the same forms as InputSchema.
	OutputSchema any
	// Annotations are published as given (read-only, destructive,
	// idempotent, open-world hints).
	Annotations *mcp.ToolAnnotations
	// Reply answers each call. Required: use [Text], [Result], [Sequence],
	// [Error], or a function of the call.
	Reply Reply
}

// A Reply answers one round of a tool call. It runs after the arguments
// have passed validation, the execution has been counted and the faults
// scripted for the tool have acted. It must be deterministic (a function
// of the call only) for the fake to stay deterministic.
//
// What the caller sees is what the server package gives for a handler's
// return (server.ToolHandler): the result; an isError result carrying the
// error's text; or, for a *jsonrpc.Error, that JSON-RPC error. A result
// with InputRequests set asks the client for input (multi round-trip
// requests, SEP-2322). On 2026-07-28 it is sent as an input-required
// result, and the client continues the call with a new round. On
// 2025-11-25 the go-sdk sends the requests to the client during the call,
// and runs the reply again with the answers. Either way [Call].InputResponses holds them
// in the next round, and [Call].RequestState the state the result set.
type Reply func(ctx context.Context, call *Call) (*mcp.CallToolResult, error)

// A Call is one round of a tool call, as a [Reply] sees it.
type Call struct {
	// Tool is the tool's name.
	Tool string
	// N numbers the calls of Tool at this fake server: 1 for the first,
	// 2 for the second, … A continuation (a later round of the same call)
	// keeps its call's number.
	N int
	// Round is 1 for a call's first request and counts up with each
	// continuation.
	Round int
	// Arguments are the call's arguments, as the client sent them
	// (validated against the input schema).
	Arguments json.RawMessage
	// InputResponses are the client's answers to the previous round's
	// InputRequests, by the ids that round gave them; nil in round 1.
	InputResponses mcp.InputResponseMap
	// RequestState is the state the previous round's result carried
	// (CallToolResult.RequestState); "" in round 1.
	RequestState string
	// Request is the go-sdk's request: its session (for notifications),
	// its params and _meta.
	Request *mcp.CallToolRequest
}

// Decode decodes the call's arguments into v.
func (c *Call) Decode(v any) error {
	if len(c.Arguments) == 0 {
		return nil
	}
	if err := json.Unmarshal(c.Arguments, v); err != nil {
		return fmt.Errorf("fakeserver: tool %s: decoding arguments: %w", c.Tool, err)
	}
	return nil
}

// Text returns a Reply that always answers with one text content s.
func Text(s string) Reply {
	return func(context.Context, *Call) (*mcp.CallToolResult, error) { return text(s), nil }
}

// Result returns a Reply that always answers with a copy of res (its
// top-level fields; the content values are shared and must not be changed).
func Result(res *mcp.CallToolResult) Reply {
	return func(context.Context, *Call) (*mcp.CallToolResult, error) {
		if res == nil {
			return &mcp.CallToolResult{}, nil
		}
		r := *res
		r.Content = slices.Clone(res.Content)
		return &r, nil
	}
}

// Error returns a Reply whose every call fails with message: the caller
// gets an isError result whose text is message.
func Error(message string) Reply {
	return func(context.Context, *Call) (*mcp.CallToolResult, error) { return nil, errors.New(message) }
}

// Sequence returns a Reply that answers call N with replies[N-1]. The
// first call gets the first reply, the second the second, and so on. The
// rounds of one call all go to that call's reply. A call past the end of
// the sequence fails with an isError result that says so (end the sequence
// with the reply you want repeated as many times as the test calls).
func Sequence(replies ...Reply) Reply {
	return func(ctx context.Context, c *Call) (*mcp.CallToolResult, error) {
		if c.N < 1 || c.N > len(replies) {
			return nil, fmt.Errorf("fakeserver: tool %s: call %d is past the end of its sequence of %d replies", c.Tool, c.N, len(replies))
		}
		return replies[c.N-1](ctx, c)
	}
}

// A Resource is one resource of a [Catalog].
type Resource struct {
	// URI identifies the resource; it must be absolute. Required.
	URI string
	// Name is the resource's name; empty means the URI.
	Name string
	// Title, Description and MIMEType are published as given.
	Title, Description, MIMEType string
	// Text is the resource's content as text; Blob as bytes (sent base64).
	// Set at most one of them, or Read.
	Text string
	Blob []byte
	// Read, if set, answers each resources/read instead of Text or Blob.
	// Its error is sent as a JSON-RPC error.
	Read func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error)
}

// A Prompt is one prompt of a [Catalog].
type Prompt struct {
	// Name is the prompt's name. Required.
	Name string
	// Title and Description are published as given.
	Title, Description string
	// Arguments are the prompt's arguments; a required one missing from a
	// prompts/get is an invalid-params error.
	Arguments []*mcp.PromptArgument
	// Text is the prompt's one user message, in which each {{NAME}} is
	// replaced by the argument NAME's value ("" when not given).
	Text string
	// Get, if set, answers each prompts/get instead of Text.
	Get func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error)
}

// ErrBadCatalog is returned when a [Catalog] is invalid: no name, a
// tool without a reply, two items with one name, a resource with two
// contents, a schema that is not a JSON Schema object, …
//
// An unknown Options.Catalog or Options.Revision matches it too.
var ErrBadCatalog = errors.New("invalid catalog")

// A CatalogError says what is wrong with a [Catalog]. It wraps
// [ErrBadCatalog], and the cause when there is one (such as the server
// package's server.ErrInvalidDefinition or server.ErrDuplicate).
type CatalogError struct {
	// Catalog is the catalog's name.
	Catalog string
	// Item is the item at fault: "tool NAME", "resource URI", "prompt
	// NAME", or "" for the catalog itself.
	Item string
	// Err is what is wrong.
	Err error
}

func (e *CatalogError) Error() string {
	s := fmt.Sprintf("fakeserver: invalid catalog %q", e.Catalog)
	if e.Item != "" {
		s += ": " + e.Item
	}
	return s + ": " + strings.TrimPrefix(e.Err.Error(), "invalid catalog: ")
}

// Unwrap returns ErrBadCatalog and the cause.
func (e *CatalogError) Unwrap() []error { return []error{ErrBadCatalog, e.Err} }

// DefinitionError is v0.1.0's name for [CatalogError].
//
// Deprecated: use [CatalogError].
type DefinitionError = CatalogError

var catalogName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// check validates what the server package does not: the name, replies,
// duplicates within the catalog, resource contents.
func (c *Catalog) check() error {
	bad := func(item string, format string, args ...any) error {
		return &CatalogError{Catalog: c.Name, Item: item, Err: fmt.Errorf(format, args...)}
	}
	if !catalogName.MatchString(c.Name) {
		return bad("", "name must be 1 to 64 of [A-Za-z0-9_.-]")
	}
	if c.PageSize < 0 {
		return bad("", "negative page size %d", c.PageSize)
	}
	seen := map[string]bool{}
	for _, t := range c.Tools {
		item := "tool " + t.Name
		switch {
		case seen["t:"+t.Name]:
			return bad(item, "defined twice")
		case t.Reply == nil:
			return bad(item, "no Reply")
		}
		seen["t:"+t.Name] = true
	}
	for _, r := range c.Resources {
		item := "resource " + r.URI
		n := 0
		for _, set := range []bool{r.Text != "", r.Blob != nil, r.Read != nil} {
			if set {
				n++
			}
		}
		switch {
		case seen["r:"+r.URI]:
			return bad(item, "defined twice")
		case n > 1:
			return bad(item, "set at most one of Text, Blob and Read")
		}
		seen["r:"+r.URI] = true
	}
	for _, p := range c.Prompts {
		item := "prompt " + p.Name
		switch {
		case p.Name == "":
			return bad(item, "no name")
		case seen["p:"+p.Name]:
			return bad(item, "defined twice")
		case p.Text != "" && p.Get != nil:
			return bad(item, "set Text or Get, not both")
		}
		seen["p:"+p.Name] = true
	}
	return nil
}

// schemaValue turns the forms a Tool's schema may take into one the server
// package accepts.
func schemaValue(v any) any {
	switch s := v.(type) {
	case nil:
		return nil
	case string:
		return json.RawMessage(s)
	case []byte:
		return json.RawMessage(s)
	}
	return v
}

// install publishes c's tools, resources and prompts on s.
func (c *Catalog) install(s *Server) error {
	wrap := func(item string, err error) error {
		if err == nil {
			return nil
		}
		return &CatalogError{Catalog: c.Name, Item: item, Err: err}
	}
	for _, t := range c.Tools {
		in := schemaValue(t.InputSchema)
		if in == nil {
			in = emptySchema
		}
		mt := &mcp.Tool{
			Name: t.Name, Title: t.Title, Description: t.Description,
			InputSchema: in, OutputSchema: schemaValue(t.OutputSchema), Annotations: t.Annotations,
		}
		if err := s.addTool(mt, t.Reply); err != nil {
			return wrap("tool "+t.Name, err)
		}
	}
	for _, r := range c.Resources {
		if err := wrap("resource "+r.URI, s.srv.RegisterResource(r.resource(), r.handler())); err != nil {
			return err
		}
	}
	for _, p := range c.Prompts {
		if err := wrap("prompt "+p.Name, s.srv.RegisterPrompt(p.prompt(), p.handler())); err != nil {
			return err
		}
	}
	return nil
}

func (r Resource) resource() *mcp.Resource {
	name := r.Name
	if name == "" {
		name = r.URI
	}
	return &mcp.Resource{URI: r.URI, Name: name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType}
}

func (r Resource) handler() mcp.ResourceHandler {
	if r.Read != nil {
		return r.Read
	}
	return func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: req.Params.URI, MIMEType: r.MIMEType, Text: r.Text, Blob: r.Blob,
		}}}, nil
	}
}

func (p Prompt) prompt() *mcp.Prompt {
	return &mcp.Prompt{Name: p.Name, Title: p.Title, Description: p.Description, Arguments: p.Arguments}
}

var placeholder = regexp.MustCompile(`\{\{([^{}]*)\}\}`)

func (p Prompt) handler() mcp.PromptHandler {
	if p.Get != nil {
		return p.Get
	}
	return func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		msg := placeholder.ReplaceAllStringFunc(p.Text, func(m string) string {
			return req.Params.Arguments[strings.TrimSpace(m[2:len(m)-2])]
		})
		return &mcp.GetPromptResult{
			Description: p.Description,
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: msg}}},
		}, nil
	}
}
