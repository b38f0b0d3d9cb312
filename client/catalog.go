package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/looprig/mcp/internal/canonjson"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Catalog is what a server offers: its tools, resources and prompts, each
// sorted by name (resources by URI), and a fingerprint of all of it.
type Catalog struct {
	Tools             []*mcp.Tool
	Resources         []*mcp.Resource
	ResourceTemplates []*mcp.ResourceTemplate
	Prompts           []*mcp.Prompt
	// Fingerprint is "sha256:" and the hex SHA-256 of the catalog's canonical
	// JSON: every tool's name, title, description, input and output schema,
	// annotations and icons; every resource, template and prompt without
	// _meta.
	// It is the same across runs and processes for the same catalog,
	// whatever order the server listed it in.
	Fingerprint string
	// ToolFingerprints holds each tool's own fingerprint, by tool name.
	ToolFingerprints map[string]string
	// Cache holds the server's caching hint for each list it paged through
	// ("tools", "resources", "resourceTemplates", "prompts"). A hint is
	// ttlMs and cacheScope (protocol 2026-07-28, SEP-2549). It holds the
	// shortest TTL of the list's pages, and "private" if any page was. The fingerprint does not
	// cover it. Within a TTL the go-sdk answers a repeated list, or a
	// resources/read, from its own cache.
	Cache map[string]mcp.Cacheable
	// Skills are the skills the server lists (skills/list), sorted by URI,
	// when the Definition asks for them (Definition.Skills) and the server
	// offers the skills extension. Listing fetches none of their files.
	Skills []*Skill
	// SkillFingerprints holds each skill's own fingerprint (its URI,
	// frontmatter, files, digests and sizes), by SKILL.md URI. The catalog
	// fingerprint covers them.
	SkillFingerprints map[string]string
	// RefusedSkills are the skills left out of Skills because their entry
	// breaks a rule of the extension, by URI, with the reason.
	RefusedSkills map[string]string
}

// noteCache merges one page's caching hint into the list's.
func (c *Catalog) noteCache(list string, page mcp.Cacheable) {
	if c.Cache == nil {
		c.Cache = map[string]mcp.Cacheable{}
	}
	got, ok := c.Cache[list]
	if !ok {
		c.Cache[list] = page
		return
	}
	got.TTLMs = min(got.TTLMs, page.TTLMs)
	if page.CacheScope == "private" {
		got.CacheScope = "private"
	}
	c.Cache[list] = got
}

// Tool returns the named tool, or nil.
func (c *Catalog) Tool(name string) *mcp.Tool {
	i, ok := slices.BinarySearchFunc(c.Tools, name, func(t *mcp.Tool, name string) int { return strings.Compare(t.Name, name) })
	if !ok {
		return nil
	}
	return c.Tools[i]
}

// fingerprinted is the part of a tool that its fingerprint covers.
type fingerprinted struct {
	Name         string               `json:"name"`
	Title        string               `json:"title,omitempty"`
	Description  string               `json:"description,omitempty"`
	InputSchema  any                  `json:"inputSchema,omitempty"`
	OutputSchema any                  `json:"outputSchema,omitempty"`
	Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty"`
	Icons        []mcp.Icon           `json:"icons,omitempty"`
}

// canonical returns v's canonical JSON (internal/canonjson: object keys
// sorted at every depth, no insignificant white space).
func canonical(v any) ([]byte, error) { return canonjson.Marshal(v) }

func hash(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func withoutMeta[T any](items []*T, clear func(*T)) []*T {
	out := make([]*T, len(items))
	for i, it := range items {
		c := *it
		clear(&c)
		out[i] = &c
	}
	return out
}

// NewCatalog returns a catalog of the given items, sorted and
// fingerprinted as Connect builds one: a catalog read from elsewhere (a
// cassette) gets the fingerprint a Definition pins. It returns an error
// wrapping ReasonInvalidCatalog for a tool listed twice.
func NewCatalog(tools []*mcp.Tool, resources []*mcp.Resource, templates []*mcp.ResourceTemplate, prompts []*mcp.Prompt) (*Catalog, error) {
	c := &Catalog{Tools: slices.Clone(tools), Resources: slices.Clone(resources), ResourceTemplates: slices.Clone(templates), Prompts: slices.Clone(prompts)}
	if err := c.seal(); err != nil {
		return nil, fmt.Errorf("%w: %v", reasonErr(ReasonInvalidCatalog), err)
	}
	return c, nil
}

// seal sorts the catalog, checks it for duplicates and computes its
// fingerprints.
func (c *Catalog) seal() error {
	slices.SortFunc(c.Tools, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(c.Resources, func(a, b *mcp.Resource) int { return strings.Compare(a.URI, b.URI) })
	slices.SortFunc(c.ResourceTemplates, func(a, b *mcp.ResourceTemplate) int { return strings.Compare(a.URITemplate, b.URITemplate) })
	slices.SortFunc(c.Prompts, func(a, b *mcp.Prompt) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(c.Tools); i++ {
		if c.Tools[i].Name == c.Tools[i-1].Name {
			return fmt.Errorf("server listed tool %q twice", c.Tools[i].Name)
		}
	}
	c.ToolFingerprints = make(map[string]string, len(c.Tools))
	tools := make([]json.RawMessage, len(c.Tools))
	for i, t := range c.Tools {
		b, err := canonical(fingerprinted{t.Name, t.Title, t.Description, t.InputSchema, t.OutputSchema, t.Annotations, t.Icons})
		if err != nil {
			return fmt.Errorf("tool %q: %w", t.Name, err)
		}
		tools[i] = b
		c.ToolFingerprints[t.Name] = hash(b)
	}
	skills, err := c.sealSkills()
	if err != nil {
		return err
	}
	covered := map[string]any{
		"tools":             tools,
		"resources":         withoutMeta(c.Resources, func(r *mcp.Resource) { r.Meta = nil }),
		"resourceTemplates": withoutMeta(c.ResourceTemplates, func(r *mcp.ResourceTemplate) { r.Meta = nil }),
		"prompts":           withoutMeta(c.Prompts, func(p *mcp.Prompt) { p.Meta = nil }),
	}
	if len(skills) > 0 { // so that a catalog without skills keeps its fingerprint
		covered["skills"] = skills
	}
	all, err := canonical(covered)
	if err != nil {
		return err
	}
	c.Fingerprint = hash(all)
	return nil
}

// discover lists everything the server's capabilities offer, bounded by l.
// Skills are listed when skills is set and the server offers them.
func discover(ctx context.Context, cs *mcp.ClientSession, l Limits, skills bool) (*Catalog, error) {
	caps := cs.InitializeResult().Capabilities
	if caps == nil {
		caps = &mcp.ServerCapabilities{}
	}
	b := &budget{Limits: l}
	cat := &Catalog{}
	var err error
	if caps.Tools != nil {
		cat.Tools, err = listAll(ctx, b, "tools", func(ctx context.Context, cursor string) ([]*mcp.Tool, string, error) {
			r, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			cat.noteCache("tools", r.Cacheable)
			return r.Tools, r.NextCursor, nil
		})
		if err != nil {
			return nil, err
		}
	}
	if caps.Resources != nil {
		cat.Resources, err = listAll(ctx, b, "resources", func(ctx context.Context, cursor string) ([]*mcp.Resource, string, error) {
			r, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			cat.noteCache("resources", r.Cacheable)
			return r.Resources, r.NextCursor, nil
		})
		if err != nil {
			return nil, err
		}
		cat.ResourceTemplates, err = listAll(ctx, b, "resource templates", func(ctx context.Context, cursor string) ([]*mcp.ResourceTemplate, string, error) {
			r, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			cat.noteCache("resourceTemplates", r.Cacheable)
			return r.ResourceTemplates, r.NextCursor, nil
		})
		if err != nil {
			return nil, err
		}
	}
	if caps.Prompts != nil {
		cat.Prompts, err = listAll(ctx, b, "prompts", func(ctx context.Context, cursor string) ([]*mcp.Prompt, string, error) {
			r, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			cat.noteCache("prompts", r.Cacheable)
			return r.Prompts, r.NextCursor, nil
		})
		if err != nil {
			return nil, err
		}
	}
	if skills && offersSkills(caps) {
		if err := listSkills(ctx, cs, b, cat); err != nil {
			return nil, err
		}
	}
	if err := cat.seal(); err != nil {
		return nil, fmt.Errorf("%w: %v", reasonErr(ReasonInvalidCatalog), err)
	}
	return cat, nil
}

// budget is what is left of Limits' catalog size across lists.
type budget struct {
	Limits
	bytes int
}

// listAll pages through one list until its cursor runs out, bounded by the
// budget and refusing a cursor seen before.
func listAll[T any](ctx context.Context, b *budget, what string, page func(context.Context, string) ([]*T, string, error)) ([]*T, error) {
	var (
		all    []*T
		cursor string
		seen   = map[string]bool{}
	)
	for pages := 0; ; pages++ {
		if pages == b.MaxPages {
			return nil, fmt.Errorf("%w: %s: more than %d pages", ErrCatalogLimit, what, b.MaxPages)
		}
		items, next, err := page(ctx, cursor)
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", what, err)
		}
		for _, it := range items {
			if it == nil {
				return nil, fmt.Errorf("%w: %s: null item", reasonErr(ReasonInvalidCatalog), what)
			}
			enc, err := json.Marshal(it)
			if err != nil {
				return nil, fmt.Errorf("listing %s: %w", what, err)
			}
			b.bytes += len(enc)
			if b.bytes > b.MaxCatalogBytes {
				return nil, fmt.Errorf("%w: catalog larger than %d bytes", ErrCatalogLimit, b.MaxCatalogBytes)
			}
		}
		all = append(all, items...)
		if len(all) > b.MaxItems {
			return nil, fmt.Errorf("%w: %s: more than %d items", ErrCatalogLimit, what, b.MaxItems)
		}
		if next == "" {
			return all, nil
		}
		if seen[next] {
			return nil, fmt.Errorf("%w: %s: cursor %q", reasonErr(ReasonCursorLoop), what, next)
		}
		seen[next] = true
		cursor = next
	}
}
