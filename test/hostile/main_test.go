package hostile_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// childEnv makes the test binary a stdio peer: its value names the peer
// (see stdioPeers).
const childEnv = "HOSTILE_TEST_PEER"

func TestMain(m *testing.M) {
	if name := os.Getenv(childEnv); name != "" {
		if h, ok := httpPeers[name]; ok {
			os.Exit(serveHTTPPeer(h))
		}
		run, ok := stdioPeers[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "unknown %s=%q\n", childEnv, name)
			os.Exit(2)
		}
		os.Exit(run())
	}
	os.Exit(leakcheck.Main(m))
}

// stdioPeers are the stdio peers the test binary can be, by name.
var stdioPeers = map[string]func() int{
	// faulty serves a server whose "echo" misbehaves: see runFaulty.
	"faulty": runFaulty,
	// sleeper sleeps until killed.
	"sleeper": func() int {
		time.Sleep(time.Hour)
		return 0
	},
	// sdk serves newServer over stdin and stdout.
	"sdk": func() int {
		if err := newServer(nil).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	},
}
