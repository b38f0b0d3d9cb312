package quickstart_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// Quick start 1: a safe client. (Compiled, not run: it needs a
// my-mcp-server program on PATH.)
func Example_safeClient() {
	ctx := context.Background()
	f, err := stdio.New("my-mcp-server", []string{"--flag"}, &stdio.Options{
		Env: map[string]string{"API_BASE": "https://example.com"}, // nothing else but PATH, HOME, … reaches the child
	})
	if err != nil {
		log.Fatal(err) // options are checked here; nothing starts until Connect
	}
	c, err := client.Connect(ctx, client.Definition{Name: "docs", Transport: f}, nil)
	if err != nil {
		var e *client.Error
		if errors.As(err, &e) {
			log.Print(e.Class, e.Stderr())
		} // e.g. "start" and the child's stderr tail
		log.Fatal(err)
	}
	defer c.Close() // drains in-flight calls, then stdin EOF → SIGTERM → SIGKILL to the child and every descendant

	for _, b := range c.Bindings() {
		fmt.Println(b.ModelName) // mcp__docs__lookup: hand it to your model
	}
	res, err := c.CallModel(ctx, "mcp__docs__lookup", map[string]any{"query": "close"})
	fmt.Println(res, err)
}

// Quick start 1, a remote server. (Compiled, not run.)
func Example_remote() {
	f, err := streamablehttp.New("https://mcp.example.com/mcp", &streamablehttp.Options{
		Credentials: auth.Bearer(auth.NewToken(os.Getenv("MCP_TOKEN"))), // or OAuth, client credentials, workload identity, DPoP
	})
	fmt.Println(f, err)
}
