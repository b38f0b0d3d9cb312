// Package downstream is what a team using github.com/looprig/mcp writes: a
// small agent step over an MCP client (Lookup, Forecast) and an MCP server
// of its own (NewServer, ServeMain), tested the way a downstream module
// tests them, with only the library's public packages:
//
//   - the agent against a fake of its own tools, with scripted faults, on
//     every transport (agent_test.go);
//   - its server in-process, with mcptest.CheckServer and a golden catalog
//     (server_test.go);
//   - a session with a real server, @modelcontextprotocol/server-everything,
//     recorded once and replayed in CI with no server and no Node.js
//     (cassette_test.go);
//   - scenario files that run its own server program, with mcpscript
//     (testdata/script).
//
// Its tests run from this directory, a module of its own, as CI runs them:
//
//	cd examples/downstream && CI=true go test ./...
package downstream

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/looprig/mcp/client"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Lookup asks the server's lookup tool about query, the way a harness
// would on a model's behalf, and returns the text of the answer.
func Lookup(ctx context.Context, c *client.Client, query string) (string, error) {
	return callText(ctx, c, "lookup", map[string]any{"query": query})
}

// Forecast is one step of a travel agent: it asks the weather server's
// get_weather tool about each city, in order, and returns one line per
// city. It never calls a tool twice for one city: when a call fails, the
// line says why (the failure's class, so that a retry policy above can
// decide), and the agent goes on with the next city.
func Forecast(ctx context.Context, c *client.Client, cities ...string) []string {
	var lines []string
	for _, city := range cities {
		text, err := callText(ctx, c, "get_weather", map[string]any{"city": city})
		if ce, ok := errors.AsType[*client.Error](err); ok {
			text = fmt.Sprintf("unavailable (%s)", ce.Class)
		} else if err != nil {
			text = "unavailable (" + err.Error() + ")"
		}
		lines = append(lines, city+": "+text)
	}
	return lines
}

// callText calls tool through its binding's model name, as a model would,
// and joins the text of the result.
func callText(ctx context.Context, c *client.Client, tool string, args map[string]any) (string, error) {
	b, ok := c.Binding(tool)
	if !ok {
		return "", client.ErrUnknownTool
	}
	res, err := c.CallModel(ctx, b.ModelName, args)
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
