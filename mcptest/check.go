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
	"github.com/looprig/mcp/protocol"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxCheckPages bounds the pages CheckServer reads from one list.
const MaxCheckPages = 1000

// A CheckError is one protocol problem CheckServer found: the check that
// found it ("initialize", "tools/list", "schema lookup", …), the protocol
// revision of the session it found it in, and what is wrong.
type CheckError struct {
	Check    string
	Revision string
	Err      error
}

func (e *CheckError) Error() string { return e.Check + " at " + e.Revision + ": " + e.Err.Error() }
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
	f     transport.Factory // for the checks that need a client.Client of their own
	rev   string            // the revision negotiated
	tools []*mcp.Tool       // from the tools/list check, for the schema checks
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
	{"skills", checkSkills},
}

// checkRevisions are the revisions CheckServer checks a server at, in
// order: the current one, which a server serves when it answers
// server/discover, and 2025-11-25, which a server meets from older
// clients unless it serves the current revision only.
var checkRevisions = []string{protocol.Revision20260728, protocol.Revision20251125}

// CheckServer checks that the server f makes keeps the protocol's rules,
// in the manner of testing/fstest.TestFS. f is a [Fake]'s Factory, a
// *server.Server's Factory, inprocess.New of a go-sdk server, or a stdio
// or Streamable HTTP factory of a server elsewhere.
//
// It checks at each revision in turn, each in a session of its own. First
// it checks on 2026-07-28 when the server serves it, that is when it
// answers server/discover. A server that does not is checked at 2025-11-25
// only. Then it checks on 2025-11-25. A server that serves 2026-07-28 and
// refuses initialize, or that revision, serves the current revision only.
// It is checked at that revision alone. In each session:
//   - the handshake (server/discover or initialize) completes and names
//     the server;
//   - ping answers;
//   - every list the server advertises pages consistently within
//     MaxCheckPages: no repeated cursor, no null or duplicate item, the
//     same items when listed twice;
//   - tool names are valid;
//   - every input and output schema is a JSON Schema object of type
//     "object" that resolves;
//   - a call to an unknown tool is an error;
//   - at 2026-07-28, a server offering the skills extension lists entries
//     that keep its rules. Each skill file reads back as its entry says
//     (size, digest, frontmatter);
//   - the session closes cleanly.
//
// It returns nil, or one errors.Join of a *CheckError per problem.
func CheckServer(ctx context.Context, f transport.Factory) error {
	var errs []error
	current := false // the server serves 2026-07-28
	for _, rev := range checkRevisions {
		s, err := openCheck(ctx, f, rev)
		if err != nil {
			if current && refusesRevision(err) {
				continue // a server of the current revision only
			}
			errs = append(errs, err)
			continue
		}
		current = current || s != nil && s.rev >= protocol.Revision20260728
		if s == nil {
			continue // the server does not serve rev
		}
		for _, c := range serverChecks {
			for _, e := range c.run(ctx, s) {
				errs = append(errs, &CheckError{c.name, s.rev, e})
			}
		}
		if err := s.cs.Close(); err != nil {
			errs = append(errs, &CheckError{"close", s.rev, err})
		}
	}
	return errors.Join(errs...)
}

// RunServerChecks runs CheckServer's checks as subtests of t, one per
// revision offered and check ("2026-07-28/tools/list"), on one session per
// revision, closed at cleanup. 2026-07-28 is a skipped subtest for a server
// that does not serve it.
func RunServerChecks(t *testing.T, f transport.Factory) {
	t.Helper()
	current := false // the server serves 2026-07-28
	for _, rev := range checkRevisions {
		t.Run(rev, func(t *testing.T) {
			s, err := openCheck(context.Background(), f, rev)
			if err != nil && current && refusesRevision(err) {
				t.Skipf("the server serves 2026-07-28 only (%v)", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			if s == nil {
				t.Skipf("the server does not serve %s (it does not answer server/discover)", rev)
			}
			current = current || s.rev >= protocol.Revision20260728
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
		})
	}
}

// refusesRevision reports whether err is a server's refusal of the
// revision a session offered: initialize unknown (a server of 2026-07-28
// only) or the revision unsupported (-32022).
func refusesRevision(err error) bool {
	var rpcErr *jsonrpc.Error
	return errors.As(err, &rpcErr) && (rpcErr.Code == jsonrpc.CodeMethodNotFound || rpcErr.Code == mcp.CodeUnsupportedProtocolVersion)
}

// openCheck opens a session offering rev. It returns nil when rev is
// 2026-07-28 and the server fell back to an older revision. Such a server
// does not serve 2026-07-28, and the next session checks what it serves. A
// server that answers 2025-11-25 with an older revision is checked at that
// one.
func openCheck(ctx context.Context, f transport.Factory, rev string) (*checkSession, error) {
	tr, err := f.Transport()
	if err != nil {
		return nil, &CheckError{"initialize", rev, err}
	}
	impl := &mcp.Implementation{Name: "mcptest-check", Version: client.DefaultImplementation().Version}
	cs, err := mcp.NewClient(impl, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rev})
	if err != nil {
		return nil, &CheckError{"initialize", rev, err}
	}
	got := cs.InitializeResult().ProtocolVersion
	if rev >= protocol.Revision20260728 && got < rev {
		if err := cs.Close(); err != nil {
			return nil, &CheckError{"close", got, err}
		}
		return nil, nil
	}
	return &checkSession{cs: cs, f: f, rev: got}, nil
}

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
