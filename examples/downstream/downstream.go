// Package downstream is what a user of github.com/looprig/mcp writes: a
// small harness function over an MCP client, tested the way a downstream
// module would test it, with only the library's public packages:
// mcptest fake servers, a cassette recorded once and replayed in CI,
// a golden catalog, and a testscript scenario.
//
// Its tests run from this directory, a module of its own:
//
//	cd examples/downstream && go test ./...
package downstream

import (
	"context"
	"strings"

	"github.com/looprig/mcp/client"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Lookup asks the server's lookup tool about query, the way a harness
// would on a model's behalf, and returns the text of the answer.
func Lookup(ctx context.Context, c *client.Client, query string) (string, error) {
	b, ok := c.Binding("lookup")
	if !ok {
		return "", client.ErrUnknownTool
	}
	res, err := c.CallModel(ctx, b.ModelName, map[string]any{"query": query})
	if err != nil {
		return "", err
	}
	var out []string
	for _, ct := range res.Content {
		if t, ok := ct.(*mcp.TextContent); ok {
			out = append(out, t.Text)
		}
	}
	return strings.Join(out, "\n"), nil
}
