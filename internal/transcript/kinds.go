package transcript

// A catalogKind is one kind of catalog item: how a server lists it and how
// its drift weighs. Adding a kind (skills) is one entry in catalogKinds.
type catalogKind struct {
	field  string // the list result's field that holds the items, and the kind's name: "tools"
	method string // the list method: "tools/list"
	key    string // the item's field that keys it: "name", "uri"
	rule   kindRule
}

// catalogKinds holds every catalog kind, in the order they are shown.
var catalogKinds = []catalogKind{
	{"tools", "tools/list", "name", kindRule{noun: "tool", added: Dangerous, removed: Breaking, other: Minor, fields: map[string]fieldRule{
		"description":  fixed(Dangerous, "description changed"),
		"title":        fixed(Info, "title changed"),
		"icons":        fixed(Info, "icons changed"),
		"annotations":  toolAnnotations,
		"inputSchema":  inputSchema,
		"outputSchema": fixed(Breaking, "output schema changed"),
	}}},
	{"resources", "resources/list", "uri", resourceRule("resource")},
	{"resourceTemplates", "resources/templates/list", "uriTemplate", resourceRule("resource template")},
	{"prompts", "prompts/list", "name", kindRule{noun: "prompt", added: Minor, removed: Breaking, other: Minor, fields: map[string]fieldRule{
		"description": fixed(Dangerous, "description changed"),
		"title":       fixed(Info, "title changed"),
		"icons":       fixed(Info, "icons changed"),
		"arguments":   promptArguments,
	}}},
	// The skills extension (SEP-2640): a skill is instructions for the
	// model, so a new one or changed content weighs as a new tool or a
	// changed description does.
	{"skills", "skills/list", "uri", kindRule{noun: "skill", added: Dangerous, removed: Breaking, other: Minor, fields: map[string]fieldRule{
		"frontmatter": fixed(Dangerous, "frontmatter changed"),
		"resources":   fixed(Dangerous, "files changed"),
	}}},
}

// Kinds are the catalog kinds, in the order they are shown.
var Kinds = func() []string {
	out := make([]string, len(catalogKinds))
	for i, k := range catalogKinds {
		out[i] = k.field
	}
	return out
}()

// lists maps a list method to the field of its result that holds the items
// and the key of each item.
var lists = func() map[string]struct{ field, key string } {
	out := map[string]struct{ field, key string }{}
	for _, k := range catalogKinds {
		out[k.method] = struct{ field, key string }{k.field, k.key}
	}
	return out
}()

// catalogRules holds each kind's rule, by kind.
var catalogRules = func() map[string]kindRule {
	out := map[string]kindRule{}
	for _, k := range catalogKinds {
		out[k.field] = k.rule
	}
	return out
}()
