// Package golden is the shape of a catalog in mcptest's golden files,
// which the script command catalog prints too.
package golden

import "github.com/looprig/mcp/client"

// Catalog is what a golden file holds of a catalog: everything but the
// per-tool fingerprints, which the catalog's fingerprint covers.
type Catalog struct {
	Tools             any `json:"tools"`
	Resources         any `json:"resources"`
	ResourceTemplates any `json:"resourceTemplates"`
	Prompts           any `json:"prompts"`
	// Skills are the catalog's skills (Definition.Skills), left out when
	// there are none, so that the golden files of servers without skills
	// stay as they were.
	Skills any `json:"skills,omitempty"`
}

// New returns what a golden file holds of cat.
func New(cat *client.Catalog) Catalog {
	g := Catalog{Tools: cat.Tools, Resources: cat.Resources, ResourceTemplates: cat.ResourceTemplates, Prompts: cat.Prompts}
	if len(cat.Skills) > 0 {
		g.Skills = cat.Skills
	}
	return g
}
