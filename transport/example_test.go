package transport_test

import (
	"fmt"

	"github.com/looprig/mcp/transport"
)

func ExampleParseKind() {
	for _, name := range []string{"stdio", "streamablehttp", "sse", "inprocess", "websocket"} {
		k, err := transport.ParseKind(name)
		fmt.Println(k, err)
	}
	// Output:
	// stdio <nil>
	// streamablehttp <nil>
	// sse <nil>
	// inprocess <nil>
	// Kind(0) transport: unknown kind "websocket"
}

func ExampleDiagnosis_String() {
	d := &transport.Diagnosis{Exited: true, ExitCode: 3, Stderr: []byte("boom: config missing\n")}
	fmt.Print(d)
	// Output:
	// exit status 3; stderr tail:
	// boom: config missing
}
