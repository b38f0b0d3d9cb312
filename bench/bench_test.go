package bench

import (
	"context"
	"testing"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgotest "github.com/mark3labs/mcp-go/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var args = map[string]any{"city": "Oslo"}

const schema = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`

// weather is the user-defined fake the mcptest variant serves.
var weather = &fakeserver.Catalog{Name: "weather", Tools: []fakeserver.Tool{{
	Name:        "get_weather",
	InputSchema: schema,
	Reply:       fakeserver.Text("sunny"),
}}}

// revisions are the protocol revisions the looprig and go-sdk variants
// are measured at: 2026-07-28 carries client info and capabilities in
// every request's _meta, which the go-sdk's server decodes each time.
var revisions = []struct {
	version string
	profile client.Profile
}{
	{"2026-07-28", client.Profile20260728},
	{"2025-11-25", client.Profile20251125},
}

func BenchmarkCallTool(b *testing.B) {
	for _, rev := range revisions {
		b.Run("looprig-mcptest/"+rev.version, func(b *testing.B) { loop(b, looprig(b, rev.profile)) })
	}
	for _, rev := range revisions {
		b.Run("go-sdk-inmemory/"+rev.version, func(b *testing.B) { loop(b, goSDK(b, rev.version)) })
	}
	b.Run("mcp-go-mcptest", func(b *testing.B) { loop(b, mcpGo(b)) })
}

// BenchmarkCallToolPaired is BenchmarkCallTool with every variant taking
// its turn call by call (see paired): the metrics NAME-ns/op are measured
// in the same moments, which makes their ratios fair on a busy machine.
// scripts/bench reports it.
func BenchmarkCallToolPaired(b *testing.B) {
	var sides []side
	for _, rev := range revisions {
		sides = append(sides, side{Name: "looprig-mcptest/" + rev.version, Op: looprig(b, rev.profile)})
	}
	for _, rev := range revisions {
		sides = append(sides, side{Name: "go-sdk-inmemory/" + rev.version, Op: goSDK(b, rev.version)})
	}
	sides = append(sides, side{Name: "mcp-go-mcptest", Op: mcpGo(b)})
	paired(b, sides...)
}

// A side is one variant of a comparison: Op is one call.
type side struct {
	Name string
	Op   func()
}

// paired runs the sides in turn, the order rotating, and reports each
// side's mean duration as NAME-ns/op: the main module's internal/benchpair,
// which a module of its own cannot import.
func paired(b *testing.B, sides ...side) {
	total := make([]time.Duration, len(sides))
	n := 0
	for b.Loop() {
		for j := range sides {
			k := (n + j) % len(sides)
			start := time.Now()
			sides[k].Op()
			total[k] += time.Since(start)
		}
		n++
	}
	for i, s := range sides {
		b.ReportMetric(float64(total[i].Nanoseconds())/float64(max(n, 1)), s.Name+"-ns/op")
	}
}

// loop measures op.
func loop(b *testing.B, op func()) {
	b.ReportAllocs()
	for b.Loop() {
		op()
	}
}

// looprig returns an in-process call to a user-defined fake through
// mcptest and this module's client.
func looprig(b *testing.B, profile client.Profile) func() {
	ctx := context.Background()
	fake := mcptest.InProcess(b, &mcptest.InProcessOptions{Custom: weather})
	def := fake.Definition()
	def.Profile = profile
	c := mcptest.Connect(b, def, nil)
	return func() {
		if _, err := c.CallTool(ctx, "get_weather", args); err != nil {
			b.Fatal(err)
		}
	}
}

// goSDK returns a call through the go-sdk alone: its server with a typed
// tool (input validated against the schema inferred from its type), its
// in-memory transports and its client, at version.
func goSDK(b *testing.B, version string) func() {
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "get_weather"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		City string `json:"city"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny"}}}, nil, nil
	})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v1"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	p := &mcp.CallToolParams{Name: "get_weather", Arguments: args}
	return func() {
		if _, err := cs.CallTool(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}

// mcpGo returns a call through mark3labs/mcp-go's mcptest: its server and
// client over in-memory pipes.
func mcpGo(b *testing.B) func() {
	ctx := context.Background()
	// mcp-go's mcptest takes a *testing.T only for its Name; a benchmark
	// has none to give.
	s := mcpgotest.NewUnstartedServer(&testing.T{})
	s.AddTool(mcpgo.NewTool("get_weather", mcpgo.WithString("city", mcpgo.Required())),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("sunny"), nil
		})
	if err := s.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	req := mcpgo.CallToolRequest{}
	req.Params.Name = "get_weather"
	req.Params.Arguments = args
	return func() {
		if _, err := s.Client().CallTool(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
