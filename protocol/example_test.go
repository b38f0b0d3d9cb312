package protocol_test

import (
	"fmt"

	"github.com/looprig/mcp/protocol"
)

// Revisions are dates, and order as strings: a session at
// Revision20260728 or later has no initialize.
func Example() {
	negotiated := "2025-11-25"
	fmt.Println(negotiated >= protocol.Revision20260728)
	fmt.Println(protocol.TaskCompleted.Terminal(), protocol.TaskWorking.Terminal())
	fmt.Println(protocol.TasksExtension)
	// Output:
	// false
	// true false
	// io.modelcontextprotocol/tasks
}
