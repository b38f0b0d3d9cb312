package client

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Bindings returns every tool's binding, sorted by model name.
func (c *Client) Bindings() []Binding {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Binding, 0, len(c.models))
	for tool, model := range c.models {
		out = append(out, c.binding(tool, model))
	}
	slices.SortFunc(out, func(a, b Binding) int { return strings.Compare(a.ModelName, b.ModelName) })
	return out
}

// Binding returns the binding of a tool, named by its tool name or its model
// name.
func (c *Client) Binding(name string) (Binding, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tool, ok := c.lookup(name)
	if !ok {
		return Binding{}, false
	}
	return c.binding(tool, c.models[tool]), true
}

func (c *Client) lookup(name string) (tool string, ok bool) {
	if _, ok := c.models[name]; ok {
		return name, true
	}
	tool, ok = c.tools[name]
	return tool, ok
}

func (c *Client) binding(tool, model string) Binding {
	return Binding{Server: c.def.Name, Tool: tool, ModelName: model, Enabled: !c.disabled[tool], Held: c.held[tool]}
}

// SetEnabled enables or disables the binding of a tool, named by its tool
// name or model name. A disabled binding refuses calls with ReasonDisabled.
// The setting outlives catalog changes.
func (c *Client) SetEnabled(name string, enabled bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	tool, ok := c.lookup(name)
	if !ok {
		return &Error{Class: ClassPolicy, Op: OpCallTool, Server: c.def.Name, Tool: name,
			Err: fmt.Errorf("%w: %q", ErrUnknownTool, name)}
	}
	if enabled {
		delete(c.disabled, tool)
	} else {
		c.disabled[tool] = true
	}
	return nil
}

// A Drift describes how the catalog differs from what was accepted (the
// pinned fingerprint, or the catalog accepted last).
type Drift struct {
	Want, Got string   // catalog fingerprints; Want is "" when nothing was pinned
	Changed   []string // tools whose fingerprint changed
	Added     []string // tools that are new
	Removed   []string // tools that are gone
	// Skills are the skills (SKILL.md URIs) that changed, are new or are
	// gone; they are held until Client.AcceptCatalog.
	Skills []string
}

func (d *Drift) String() string {
	return fmt.Sprintf("catalog %s, want %s: changed %v, added %v, removed %v", d.Got, d.Want, d.Changed, d.Added, d.Removed)
}

func newDrift(want string, cat *Catalog, accepted map[string]string) *Drift {
	d := &Drift{Want: want, Got: cat.Fingerprint}
	for _, tool := range slices.Sorted(maps.Keys(cat.ToolFingerprints)) {
		old, ok := accepted[tool]
		switch {
		case !ok:
			d.Added = append(d.Added, tool)
		case old != cat.ToolFingerprints[tool]:
			d.Changed = append(d.Changed, tool)
		}
	}
	for _, tool := range slices.Sorted(maps.Keys(accepted)) {
		if _, ok := cat.ToolFingerprints[tool]; !ok {
			d.Removed = append(d.Removed, tool)
		}
	}
	return d
}

// Drift returns how the catalog differs from the pinned or last accepted
// one, or nil when it does not. Only a Definition with a Fingerprint drifts.
func (c *Client) Drift() *Drift {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.drift
}

// AcceptCatalog accepts the current catalog: held tools become callable,
// held skills loadable, and later changes are measured against it.
func (c *Client) AcceptCatalog() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.accepted = c.catalog.ToolFingerprints
	c.acceptedSkills = c.catalog.SkillFingerprints
	clear(c.held)
	c.drift = nil
}

// listChanged re-discovers the catalog after the server said a list
// changed, on the client's notification goroutine (see notifier), once per
// change not yet handled: changes that arrive while one waits are one.
func (c *Client) listChanged(what string) {
	c.mu.Lock()
	c.handled[what]++
	if c.handled[what] <= c.absorbed[what] { // Connect re-discovered after it already
		c.mu.Unlock()
		return
	}
	if c.catalog == nil { // Connect is still discovering; it re-discovers after
		if !slices.Contains(c.pending, what) {
			c.pending = append(c.pending, what)
		}
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	c.notes.postList(what, func(ctx context.Context) { c.rediscover(ctx, what) })
}

// rediscover re-reads the catalog and calls the handlers with it.
func (c *Client) rediscover(ctx context.Context, what string) {
	ctx, cancel := context.WithTimeout(ctx, c.limits.ConnectTimeout)
	defer cancel()
	cat, err := discover(ctx, c.session, c.limits, c.def.Skills)
	if err != nil {
		return // the old catalog stays; a broken server shows on the next call
	}
	c.mu.Lock()
	c.install(cat, false)
	drift := c.drift
	c.mu.Unlock()
	if c.handlers.ListChanged != nil {
		c.handlers.ListChanged(what, cat)
	}
	if drift != nil && c.handlers.CatalogChanged != nil {
		c.handlers.CatalogChanged(drift)
	}
}

// listKinds are the lists a list_changed notification names.
var listKinds = []string{"tools", "resources", "prompts"}

// listMethods maps the list_changed notifications to their lists.
var listMethods = map[string]string{
	"notifications/tools/list_changed":     "tools",
	"notifications/resources/list_changed": "resources",
	"notifications/prompts/list_changed":   "prompts",
}

// announce counts a notification the connection has just read, before
// the go-sdk hands it on: a list change, for Connect (see Connect).
func (c *Client) announce(method string) {
	what, ok := listMethods[method]
	if !ok {
		return
	}
	c.mu.Lock()
	c.announced[what]++
	c.mu.Unlock()
}
