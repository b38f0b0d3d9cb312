package client_test

import (
	"testing"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callAllocs is what Client.CallTool allocates for a call on top of the
// same call through the go-sdk session it wraps (Client.Session), at each
// revision: the call's own context, cancelled by its deadline and by Close
// (context.WithTimeout, context.AfterFunc and its stop, the function that
// ends both, the context's done channel), and the check that the go-sdk
// did not decode a task handle into the result (its result type, which
// only its JSON shows, marshaled apart from the content: two). The task
// that holds a result given at once stays on the stack, and the params are
// the session call's too. It is the edge: TestCallToolAllocations fails at
// one more.
var callAllocs = map[client.Profile]int{client.Profile20260728: 9, client.Profile20251125: 9}

// TestCallToolAllocations counts the allocations of a call through
// Client.CallTool against those of the same call through the go-sdk
// session under it, to one server over transport/inprocess.
func TestCallToolAllocations(t *testing.T) {
	if testkit.RaceEnabled {
		t.Skip("the race detector changes what allocates")
	}
	for profile, want := range callAllocs {
		t.Run(profile.String(), func(t *testing.T) {
			ctx := testkit.Context(t)
			args := map[string]any{"query": "allocs"}
			c := connect(t, docsServer(&counter{}), client.Definition{Profile: profile}, nil)
			const runs = 200
			bare := testing.AllocsPerRun(runs, func() {
				if _, err := c.Session().CallTool(ctx, &mcp.CallToolParams{Name: "lookup", Arguments: args}); err != nil {
					t.Fatal(err)
				}
			})
			ours := testing.AllocsPerRun(runs, func() {
				if _, err := c.CallTool(ctx, "lookup", args); err != nil {
					t.Fatal(err)
				}
			})
			if got := ours - bare; got > float64(want) {
				t.Errorf("Client.CallTool allocates %v times per call on top of its session (%v, %v through the session), want at most %d", got, ours, bare, want)
			} else {
				t.Logf("Client.CallTool allocates %v times per call on top of its session (%v, %v through the session)", got, ours, bare)
			}
		})
	}
}
