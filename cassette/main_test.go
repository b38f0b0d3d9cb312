package cassette_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// childEnv makes the test binary a stdio server: the counter (see
// newCounter), whose "crash" tool writes to stderr and exits with status 3
// in the middle of its call, and whose "big" tool answers with a frame
// larger than the tests let stdio read.
const childEnv = "CASSETTE_TEST_CHILD"

// secretEnv is a variable the child's "env" tool and stderr tell.
const secretEnv = "CASSETTE_TEST_SECRET"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "counter" {
		fmt.Fprintln(os.Stderr, "listening with key s3cr3t")
		c := newCounter()
		mcp.AddTool(c.srv, &mcp.Tool{Name: "crash", Description: "Dies mid-call."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "boom: config missing")
			os.Exit(3)
			return nil, nil, nil
		})
		if v := os.Getenv(secretEnv); v != "" {
			fmt.Fprintln(os.Stderr, "using the key "+v)
		}
		mcp.AddTool(c.srv, &mcp.Tool{Name: "env", Description: "Tells the value of " + secretEnv + "."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return text("the key is " + os.Getenv(secretEnv)), nil, nil
		})
		mcp.AddTool(c.srv, &mcp.Tool{Name: "big", Description: "Answers with 1 MiB."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return text(strings.Repeat("x", 1<<20)), nil, nil
		})
		if err := c.srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(leakcheck.Main(m))
}
