package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxCheckPages bounds the pages CheckServer reads from one list.
const MaxCheckPages = 1000

// A CheckError is one protocol problem CheckServer found: the check that
// found it ("initialize", "tools/list", "schema lookup", …) and what is
// wrong.
type CheckError struct {
	Check string
	Err   error
}

func (e *CheckError) Error() string { return e.Check + ": " + e.Err.Error() }
func (e *CheckError) Unwrap() error { return e.Err }

// A serverCheck looks at one aspect of a connected server and returns every
// problem it finds.
type serverCheck struct {
	name string
	run  func(ctx context.Context, s *checkSession) []error
}

// checkSession is the session every check shares.
type checkSession struct {
	cs    *mcp.ClientSession
	tools []*mcp.Tool // from the tools/list check, for the schema checks
}

// serverChecks are run in this order; later ones use what earlier ones
// learned.
var serverChecks = []serverCheck{
	{"initialize", checkInitialize},
	{"ping", checkPing},
	{"tools/list", checkToolsList},
	{"tool schemas", checkSchemas},
	{"tools/call unknown", checkUnknownTool},
	{"resources/list", checkResourcesList},
	{"prompts/list", checkPromptsList},
}

// CheckServer connects to the server f makes, at this project's stable
// protocol revision, and checks that it keeps the protocol's rules, in the
// manner of testing/fstest.TestFS: the handshake completes and names the
// server; ping answers; every list it advertises pages consistently (no
// repeated cursor, no null or duplicate item, the same items when listed
// twice) within MaxCheckPages; tool names are valid; every input and output
// schema is a JSON Schema object of type "object" that resolves; a call to
// an unknown tool is an error; the session closes cleanly. It returns nil,
// or one errors.Join of a *CheckError per problem.
func CheckServer(ctx context.Context, f transport.Factory) error {
	s, err := openCheck(ctx, f)
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range serverChecks {
		for _, e := range c.run(ctx, s) {
			errs = append(errs, &CheckError{c.name, e})
		}
	}
	if err := s.cs.Close(); err != nil {
		errs = append(errs, &CheckError{"close", err})
	}
	return errors.Join(errs...)
}

// RunServerChecks runs each of CheckServer's checks as a subtest of t, on one
// session, closed at cleanup.
func RunServerChecks(t *testing.T, f transport.Factory) {
	t.Helper()
	s, err := openCheck(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.cs.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	for _, c := range serverChecks {
		t.Run(c.name, func(t *testing.T) {
			for _, e := range c.run(t.Context(), s) {
				t.Error(e)
			}
		})
	}
}

func openCheck(ctx context.Context, f transport.Factory) (*checkSession, error) {
	tr, err := f.Transport()
	if err != nil {
		return nil, &CheckError{"initialize", err}
	}
	impl := &mcp.Implementation{Name: "mcptest-check", Version: client.DefaultImplementation().Version}
	cs, err := mcp.NewClient(impl, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: stableProtocol})
	if err != nil {
		return nil, &CheckError{"initialize", err}
	}
	return &checkSession{cs: cs}, nil
}

// stableProtocol is the revision of client.Profile20251125.
const stableProtocol = "2025-11-25"

func checkInitialize(_ context.Context, s *checkSession) []error {
	r := s.cs.InitializeResult()
	var errs []error
	if r.ServerInfo == nil || r.ServerInfo.Name == "" {
		errs = append(errs, errors.New("serverInfo has no name"))
	}
	if r.Capabilities == nil {
		errs = append(errs, errors.New("no capabilities object"))
	}
	return errs
}

func checkPing(ctx context.Context, s *checkSession) []error {
	if err := s.cs.Ping(ctx, nil); err != nil {
		return []error{err}
	}
	return nil
}

// toolName is the rule server.RegisterTool applies, and the protocol's
// recommendation: 1 to 128 of [A-Za-z0-9_.-].
var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

func checkToolsList(ctx context.Context, s *checkSession) []error {
	if s.cs.InitializeResult().Capabilities.Tools == nil {
		return nil
	}
	list := func(cursor string) ([]*mcp.Tool, string, error) {
		r, err := s.cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Tools, r.NextCursor, nil
	}
	tools, errs := pageTwice(list, func(t *mcp.Tool) string { return t.Name })
	for _, t := range tools {
		if !toolName.MatchString(t.Name) {
			errs = append(errs, fmt.Errorf("tool name %q is not 1 to 128 of [A-Za-z0-9_.-]", t.Name))
		}
	}
	s.tools = tools
	return errs
}

func checkResourcesList(ctx context.Context, s *checkSession) []error {
	if s.cs.InitializeResult().Capabilities.Resources == nil {
		return nil
	}
	_, errs := pageTwice(func(cursor string) ([]*mcp.Resource, string, error) {
		r, err := s.cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Resources, r.NextCursor, nil
	}, func(r *mcp.Resource) string { return r.URI })
	return errs
}

func checkPromptsList(ctx context.Context, s *checkSession) []error {
	if s.cs.InitializeResult().Capabilities.Prompts == nil {
		return nil
	}
	_, errs := pageTwice(func(cursor string) ([]*mcp.Prompt, string, error) {
		r, err := s.cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Prompts, r.NextCursor, nil
	}, func(p *mcp.Prompt) string { return p.Name })
	return errs
}

// pageTwice lists every page twice and reports repeated cursors, null and
// duplicate items, and listings that differ.
func pageTwice[T any](list func(cursor string) ([]*T, string, error), key func(*T) string) ([]*T, []error) {
	first, errs := pageAll(list, key)
	if len(errs) > 0 {
		return first, errs
	}
	second, errs := pageAll(list, key)
	if len(errs) > 0 {
		return first, errs
	}
	keys := func(items []*T) []string {
		var ks []string
		for _, it := range items {
			ks = append(ks, key(it))
		}
		return ks
	}
	if diff := cmp.Diff(keys(first), keys(second)); diff != "" {
		errs = append(errs, fmt.Errorf("listing twice gave different items (-first +second):\n%s", diff))
	}
	return first, errs
}

func pageAll[T any](list func(cursor string) ([]*T, string, error), key func(*T) string) ([]*T, []error) {
	var (
		all     []*T
		errs    []error
		cursors = map[string]bool{}
		seen    = map[string]bool{}
		cursor  string
	)
	for page := 1; ; page++ {
		if page > MaxCheckPages {
			return all, append(errs, fmt.Errorf("more than %d pages", MaxCheckPages))
		}
		items, next, err := list(cursor)
		if err != nil {
			return all, append(errs, fmt.Errorf("page %d: %w", page, err))
		}
		for i, it := range items {
			switch {
			case it == nil:
				errs = append(errs, fmt.Errorf("page %d: item %d is null", page, i))
			case seen[key(it)]:
				errs = append(errs, fmt.Errorf("page %d: %q listed twice", page, key(it)))
			default:
				seen[key(it)] = true
				all = append(all, it)
			}
		}
		if next == "" {
			return all, errs
		}
		if cursors[next] {
			return all, append(errs, fmt.Errorf("page %d: cursor %q repeated", page, next))
		}
		cursors[next] = true
		cursor = next
	}
}

func checkSchemas(_ context.Context, s *checkSession) []error {
	var errs []error
	for _, t := range s.tools {
		if t.InputSchema == nil {
			errs = append(errs, fmt.Errorf("%s: no inputSchema", t.Name))
		} else if err := checkSchema(t.InputSchema); err != nil {
			errs = append(errs, fmt.Errorf("%s: inputSchema: %w", t.Name, err))
		}
		if t.OutputSchema != nil {
			if err := checkSchema(t.OutputSchema); err != nil {
				errs = append(errs, fmt.Errorf("%s: outputSchema: %w", t.Name, err))
			}
		}
	}
	return errs
}

// checkSchema reports whether v is a JSON Schema object of type "object"
// that resolves.
func checkSchema(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
		return fmt.Errorf("not a JSON object: %s", b)
	}
	if obj["type"] != "object" {
		return fmt.Errorf(`type is %v, want "object"`, obj["type"])
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("not a JSON Schema: %w", err)
	}
	if _, err := s.Resolve(nil); err != nil {
		return fmt.Errorf("invalid JSON Schema: %w", err)
	}
	return nil
}

func checkUnknownTool(ctx context.Context, s *checkSession) []error {
	name := "mcptest-no-such-tool"
	for slices.ContainsFunc(s.tools, func(t *mcp.Tool) bool { return t.Name == name }) {
		name += "-really"
	}
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
	if err == nil && !res.IsError {
		return []error{fmt.Errorf("calling the unknown tool %q succeeded", name)}
	}
	return nil
}
