package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/looprig/mcp/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A ToolHandler runs one tool call. By the time it runs, the call's
// arguments (req.Params.Arguments) are a JSON object within the input
// bound. They satisfy the tool's input schema. They are the bytes the
// client sent, with no schema defaults applied.
//
// What the caller sees:
//   - a result: that result, if its encoding is within the result bound;
//     otherwise an isError result whose text starts "result too large";
//   - an error: an isError result whose text is the error's message, so that
//     a model can read it and correct itself — except a *jsonrpc.Error,
//     which is sent as that JSON-RPC error;
//   - a panic: an isError result whose text starts "handler panicked"; the
//     stack goes to the server's Logger.
//
// In every case the session goes on serving.
type ToolHandler func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error)

// A ToolHandlerFor is a [ToolHandler] with typed input and output, for
// [RegisterToolFor]. The input is decoded from the validated arguments. A
// non-zero output is encoded as the result's structured content (validated
// against the output schema), and as its text content when the handler set
// none. The result may be nil.
type ToolHandlerFor[In, Out any] func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error)

// RegisterTool publishes t, run by h.
//
// t.InputSchema is required: a *jsonschema.Schema, or any value that
// encodes to a JSON Schema (json.RawMessage, a map), whose root type is
// "object". t.OutputSchema is optional and is published as given. The tool
// is published exactly as t describes it; t must not be modified after.
//
// A failed call never ends the session; see [ToolHandler] for what the
// caller sees. A call to a tool that is not registered gets the go-sdk's
// JSON-RPC error (invalid params, "unknown tool").
//
// A property of the input schema may carry "x-mcp-header": "Name". A
// 2026-07-28 client then sends its value in the Mcp-Param-Name header
// too, for proxies and gateways to route on. The server refuses a call
// whose header does not match the argument (see [HTTPHandler]).
//
// RegisterTool returns an error wrapping [ErrInvalidDefinition] for:
//   - an invalid name: empty, longer than 128 bytes, or outside
//     [A-Za-z0-9_.-];
//   - a missing or invalid schema. That includes an x-mcp-header on a
//     property that is not a string, integer or boolean. It also includes
//     a header name that is empty, not an HTTP token, or used twice
//     ignoring case;
//   - a nil handler.
//
// It returns an error wrapping [ErrDuplicate] for a name already
// registered. Both are programmer errors, and nothing is published. (The
// go-sdk would instead leave such a tool out of tools/list.)
func (s *Server) RegisterTool(t *mcp.Tool, h ToolHandler) error {
	if t == nil || h == nil {
		return fmt.Errorf("server: tool: nil tool or handler: %w", ErrInvalidDefinition)
	}
	if err := checkToolName(t.Name); err != nil {
		return fmt.Errorf("server: tool %q: %w: %v", t.Name, ErrInvalidDefinition, err)
	}
	in, err := resolveSchema(t.InputSchema, true)
	if err != nil {
		return fmt.Errorf("server: tool %q: input schema: %w: %v", t.Name, ErrInvalidDefinition, err)
	}
	headers, err := paramHeadersOf(t.InputSchema)
	if err != nil {
		return fmt.Errorf("server: tool %q: input schema: %w: %v", t.Name, ErrInvalidDefinition, err)
	}
	if t.OutputSchema != nil {
		if _, err := resolveSchema(t.OutputSchema, false); err != nil {
			return fmt.Errorf("server: tool %q: output schema: %w: %v", t.Name, ErrInvalidDefinition, err)
		}
	}
	if err := s.claim(s.tools, "tool", t.Name); err != nil {
		return err
	}
	s.mu.Lock()
	s.headers[t.Name] = headers
	s.mu.Unlock()
	s.mcp.AddTool(t, s.guardTool(t.Name, in, h))
	return nil
}

// RegisterToolFor publishes t, run by the typed handler h. A nil
// t.InputSchema is inferred from In (which must be a struct or a map), and
// a nil t.OutputSchema from Out (unless Out is any), by jsonschema.For.
// The arguments are decoded into In as the schema validated them. An
// object key fills the field whose JSON name it is exactly, not ignoring
// case as encoding/json would. So no field holds a value the schema did
// not check. Arguments that do not decode into In are invalid input.
// Otherwise it is [Server.RegisterTool].
func RegisterToolFor[In, Out any](s *Server, t *mcp.Tool, h ToolHandlerFor[In, Out]) error {
	if t == nil || h == nil {
		return fmt.Errorf("server: tool: nil tool or handler: %w", ErrInvalidDefinition)
	}
	tt := *t
	if tt.InputSchema == nil {
		schema, err := jsonschema.For[In](nil)
		if err != nil {
			return fmt.Errorf("server: tool %q: input schema: %w: %v", t.Name, ErrInvalidDefinition, err)
		}
		tt.InputSchema = schema
	}
	if tt.OutputSchema == nil && !isAny[Out]() {
		schema, err := jsonschema.For[Out](nil)
		if err != nil {
			return fmt.Errorf("server: tool %q: output schema: %w: %v", t.Name, ErrInvalidDefinition, err)
		}
		tt.OutputSchema = schema
	}
	var out *jsonschema.Resolved
	if tt.OutputSchema != nil {
		var err error
		if out, err = resolveSchema(tt.OutputSchema, false); err != nil {
			return fmt.Errorf("server: tool %q: output schema: %w: %v", t.Name, ErrInvalidDefinition, err)
		}
	}
	return s.RegisterTool(&tt, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in In
		if args := req.Params.Arguments; len(args) > 0 {
			// Read as validated: keys matched exactly. encoding/json would
			// fill a field from a key the schema never checked ("QUERY"
			// beside a validated "query").
			if err := wire.Unmarshal(args, &in); err != nil {
				return nil, callError(CallInvalidInput, "decoding arguments: %v", err)
			}
		}
		res, o, err := h(ctx, req, in)
		if err != nil {
			return nil, err
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		if res.InputRequests != nil || out == nil && any(o) == nil {
			return res, nil // asking for input has no output yet
		}
		b, err := json.Marshal(o)
		if err != nil {
			return nil, fmt.Errorf("encoding output: %w", err)
		}
		if out != nil {
			if err := validateJSON(out, b); err != nil {
				return nil, fmt.Errorf("invalid output: %w", err)
			}
		}
		res.StructuredContent = json.RawMessage(b)
		if res.Content == nil {
			res.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
		}
		return res, nil
	})
}

func isAny[T any]() bool { var p *T; _, ok := any(p).(*any); return ok }

// RemoveTools withdraws the named tools; connected sessions get the
// list-changed notification. Names that are not registered are ignored. A
// removed name may be registered again.
func (s *Server) RemoveTools(names ...string) {
	var gone []string
	for _, n := range names {
		if s.release(s.tools, n) {
			gone = append(gone, n)
		}
	}
	if len(gone) > 0 {
		s.mu.Lock()
		for _, n := range gone {
			delete(s.headers, n)
			delete(s.taskTools, n)
		}
		s.mu.Unlock()
		s.mcp.RemoveTools(gone...)
	}
}

// guardTool wraps h with the input checks, the result bound, panic
// recovery and the checks of input-required results.
func (s *Server) guardTool(name string, in *jsonschema.Resolved, h ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if res, ok := takePending(ctx); ok {
			return res.(*mcp.CallToolResult), nil
		}
		args := req.Params.Arguments
		if exceeds(len(args), s.maxInputBytes) {
			return s.toolError(name, callError(CallInputTooLarge, "%d bytes of arguments exceed the %d-byte limit", len(args), s.maxInputBytes)), nil
		}
		if err := validateArgs(in, args); err != nil {
			return s.toolError(name, callError(CallInvalidInput, "%v", err)), nil
		}
		c, err := s.continuation(ctx, binding{"tools/call", name, argsDigest(args), principal(req.Extra)}, &req.Params.RequestState, len(req.Params.InputResponses) > 0)
		if err != nil {
			s.logger.Warn("tool call refused", "tool", name, "error", err)
			return nil, err
		}
		if tt, ok := s.taskTool(name); ok {
			if res, handled, err := s.startTask(ctx, name, c, tt, req); handled {
				return res, err
			}
		}
		hctx, done := requestScoped(ctx)
		res, err := s.run(hctx, name, req, h)
		done()
		if err == nil && res != nil && res.InputRequests != nil {
			err = s.askFor(ctx, c, req.Session, req.ClientCapabilities(), res.InputRequests, &res.RequestState)
		}
		if err != nil {
			if werr, ok := errors.AsType[*jsonrpc.Error](err); ok {
				s.logger.Warn("tool call failed", "tool", name, "error", err)
				return nil, rpcError(werr)
			}
			return s.toolError(name, err), nil
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		if res.Content == nil && res.InputRequests == nil {
			res.Content = []mcp.Content{} // as the go-sdk sends it
		}
		if n, ok := encodedAtMost(res); ok && !exceeds(n, s.maxResultBytes) {
			return res, nil // within the bound, and sure to encode
		}
		b, err := json.Marshal(res)
		if err != nil {
			return s.toolError(name, fmt.Errorf("encoding result: %w", err)), nil
		}
		if exceeds(len(b), s.maxResultBytes) {
			return s.toolError(name, callError(CallResultTooLarge, "%d bytes exceed the %d-byte limit", len(b), s.maxResultBytes)), nil
		}
		return res, nil
	}
}

// Most results are a few texts, far within the bound: encodedAtMost tells
// so without encoding one (the go-sdk encodes it again to send it).
const (
	resultEnvelope = 128 // {"content":[],"isError":true,"requestState":"","resultType":"input_required"} is 77 bytes
	textEnvelope   = 64  // {"type":"text","text":""}, and a comma: 26
)

// encodedAtMost returns a bound on the length of res's JSON encoding, and
// whether it found one without encoding res. It finds one where res holds
// nothing but text contents without annotations or _meta (and perhaps an
// error flag and a request state). There each byte of a string encodes as
// at most six (a \u00XX escape), and the rest is a few dozen bytes a
// content. Such a result always encodes. Elsewhere it reports false.
func encodedAtMost(res *mcp.CallToolResult) (int, bool) {
	if res.Meta != nil || res.StructuredContent != nil || res.InputRequests != nil {
		return 0, false
	}
	n := resultEnvelope + 6*len(res.RequestState)
	for _, c := range res.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok || t.Annotations != nil || t.Meta != nil {
			return 0, false
		}
		n += textEnvelope + 6*len(t.Text)
	}
	return n, true
}

// run calls h, turning a panic into a *CallError (CallPanic).
func (s *Server) run(ctx context.Context, name string, req *mcp.CallToolRequest, h ToolHandler) (res *mcp.CallToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			s.logger.Error("tool handler panicked", "tool", name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			res, err = nil, callError(CallPanic, "%v", v)
		}
	}()
	return h(ctx, req)
}

// toolError is the isError result that carries err to the caller.
func (s *Server) toolError(name string, err error) *mcp.CallToolResult {
	s.logger.Warn("tool call failed", "tool", name, "error", err)
	res := &mcp.CallToolResult{}
	res.SetError(err)
	return res
}

// checkToolName applies the MCP naming rule: 1 to 128 characters from
// [A-Za-z0-9_.-].
func checkToolName(name string) error {
	if name == "" || len(name) > 128 {
		return fmt.Errorf("name must be 1 to 128 bytes, not %d", len(name))
	}
	for _, r := range name {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '_', r == '-', r == '.':
		default:
			return fmt.Errorf("name contains %q", r)
		}
	}
	return nil
}

// resolveSchema turns a schema given as a *jsonschema.Schema or anything
// that encodes to one into a resolved schema. An input schema's root type
// must be "object".
func resolveSchema(v any, input bool) (*jsonschema.Resolved, error) {
	var schema *jsonschema.Schema
	switch v := v.(type) {
	case nil:
		return nil, errors.New("missing")
	case *jsonschema.Schema:
		if v == nil {
			return nil, errors.New("missing")
		}
		schema = v
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encoding: %v", err)
		}
		schema = new(jsonschema.Schema)
		if err := json.Unmarshal(b, schema); err != nil {
			return nil, fmt.Errorf("decoding: %v", err)
		}
	}
	if input && schema.Type != "object" {
		return nil, fmt.Errorf(`root type must be "object", not %q`, schema.Type)
	}
	return schema.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
}

// validateArgs checks that args (absent or null meaning {}) is an object
// that satisfies rs.
func validateArgs(rs *jsonschema.Resolved, args json.RawMessage) error {
	v, err := decodeJSON(args)
	if err != nil {
		return err
	}
	if v == nil {
		v = map[string]any{}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return errors.New("arguments must be a JSON object")
	}
	err = rs.Validate(&v)
	if err == nil {
		return nil
	}
	// Validation stops at the first problem, and jsonschema-go visits the
	// properties in map order. Name the first invalid property in sorted
	// order instead, so the same arguments always get the same message.
	root := rs.Schema()
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		sub, ok := root.Properties[k]
		if !ok {
			continue
		}
		probe := &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{k: sub}, Defs: root.Defs, Definitions: root.Definitions}
		prs, rerr := probe.Resolve(nil)
		if rerr != nil {
			break
		}
		var one any = map[string]any{k: obj[k]}
		if perr := prs.Validate(&one); perr != nil {
			return perr
		}
	}
	return err
}

// validateJSON checks that the encoded value b satisfies rs.
func validateJSON(rs *jsonschema.Resolved, b []byte) error {
	v, err := decodeJSON(b)
	if err != nil {
		return err
	}
	return rs.Validate(&v)
}

// decodeJSON decodes b for validation; empty b is nil. Numbers decode as
// float64, as jsonschema-go expects (it types a json.Number as a string).
func decodeJSON(b []byte) (any, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("decoding: %v", err)
	}
	return v, nil
}

// headerProperty is what checkParamHeaders reads of a schema property.
type headerProperty struct {
	Type       any                       `json:"type"`
	Header     json.RawMessage           `json:"x-mcp-header"`
	Properties map[string]headerProperty `json:"properties"`
}

// paramHeadersOf applies the rules of x-mcp-header annotations (SEP-2243)
// that the go-sdk checks when it lists a tool, and returns the arguments
// the schema mirrors in headers.
func paramHeadersOf(schema any) ([]paramHeader, error) {
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	var root headerProperty
	if err := json.Unmarshal(b, &root); err != nil {
		return nil, nil // not an object schema: resolveSchema has refused it
	}
	var out []paramHeader
	return out, checkHeaderProps(root.Properties, nil, make(map[string]string), &out)
}

func checkHeaderProps(props map[string]headerProperty, prefix []string, seen map[string]string, out *[]paramHeader) error {
	for _, name := range slices.Sorted(maps.Keys(props)) {
		p, at := props[name], append(slices.Clone(prefix), name)
		path := strings.Join(at, ".")
		if p.Header != nil {
			var header string
			if err := json.Unmarshal(p.Header, &header); err != nil || header == "" {
				return fmt.Errorf("property %q: x-mcp-header must be a non-empty string", path)
			}
			if p.Type != "string" && p.Type != "integer" && p.Type != "boolean" {
				return fmt.Errorf("property %q: x-mcp-header applies to a string, integer or boolean, not type %v", path, p.Type)
			}
			if i := strings.IndexFunc(header, func(r rune) bool { return !isTokenChar(r) }); i >= 0 {
				return fmt.Errorf("property %q: x-mcp-header %q has %q, which an HTTP header name cannot have", path, header, header[i])
			}
			if other, dup := seen[strings.ToLower(header)]; dup {
				return fmt.Errorf("property %q: x-mcp-header %q is property %q's too", path, header, other)
			}
			seen[strings.ToLower(header)] = path
			*out = append(*out, paramHeader{path: at, header: header})
		}
		if err := checkHeaderProps(p.Properties, at, seen, out); err != nil {
			return err
		}
	}
	return nil
}

// isTokenChar reports whether r may appear in an HTTP header name (RFC 9110
// token).
func isTokenChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}
