package mcptest_test

import (
	"net/http"
	"testing"

	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
)

// A test of a client against a fake server over Streamable HTTP that drops
// the call's response stream: the reply comes through the resumed stream,
// the tool ran once, and Close sent DELETE (checked at cleanup too: an open
// session fails the test).
func ExampleHTTP() {
	_ = func(t *testing.T) {
		mcptest.LeakCheck(t)
		fake := mcptest.HTTP(t, &mcptest.FakeOptions{
			Faults: []fakeserver.Fault{{Kind: fakeserver.FaultDrop, Tool: "lookup"}},
		})
		c := mcptest.Connect(t, fake.Definition(), nil)
		if _, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "resume"}); err != nil {
			t.Fatal(err)
		}
		if n := fake.Executions("lookup"); n != 1 {
			t.Errorf("lookup ran %d times, want 1", n)
		}
		c.Close()
		deletes := 0
		for _, r := range fake.HTTP().Requests() {
			if r.Method == http.MethodDelete {
				deletes++
			}
		}
		if deletes != 1 {
			t.Errorf("the fake saw %d DELETEs, want 1", deletes)
		}
	}
}
