package stdio_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary is also every child these tests start: STDIO_TEST_CHILD
// names what it does (see children). Because of the environment allowlist,
// tests pass these variables through Options.Env.
const (
	childEnv  = "STDIO_TEST_CHILD"  // the child's mode
	recordEnv = "STDIO_TEST_RECORD" // a file the child appends what it observes to, one line each
	sizeEnv   = "STDIO_TEST_SIZE"   // a size in bytes, for the modes that need one
)

func init() {
	if os.Getenv(childEnv) == "leaderexits" {
		runtime.LockOSThread() // main runs on the leader thread
	}
}

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		run, ok := children[mode]
		if !ok {
			fmt.Fprintf(os.Stderr, "unknown %s=%q\n", childEnv, mode)
			os.Exit(2)
		}
		os.Exit(run())
	}
	os.Exit(leakcheck.Main(m))
}

// children are the programs the test binary can be, by mode.
var children = map[string]func() int{
	// crash writes two lines to stderr and exits with status 3.
	"crash": func() int {
		fmt.Fprintln(os.Stderr, "starting")
		fmt.Fprintln(os.Stderr, "boom: config missing")
		return 3
	},
	// env writes its environment to stderr, one variable a line, and exits.
	"env": func() int {
		env := os.Environ()
		slices.Sort(env)
		fmt.Fprint(os.Stderr, strings.Join(env, "\n"))
		return 0
	},
	// flood writes STDIO_TEST_SIZE bytes to stderr and exits.
	"flood": func() int {
		n, _ := strconv.Atoi(os.Getenv(sizeEnv))
		chunk := []byte(strings.Repeat(strings.Repeat("x", 1023)+"\n", 1024))
		for ; n > 0; n -= len(chunk) {
			if _, err := os.Stderr.Write(chunk[:min(n, len(chunk))]); err != nil {
				return 1
			}
		}
		return 0
	},
	// frames writes one message exactly STDIO_TEST_SIZE bytes long, then a
	// line one byte longer, then waits for stdin to end.
	"frames": func() int {
		n, _ := strconv.Atoi(os.Getenv(sizeEnv))
		os.Stdout.WriteString(notification(n) + "\n" + notification(n+1) + "\n")
		io.Copy(io.Discard, os.Stdin)
		return 0
	},
	// grandchild starts a "hang" grandchild that shares its stdio, records
	// "grandchild PID", and exits when stdin ends, leaving the grandchild.
	"grandchild": func() int {
		exe, _ := os.Executable()
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), childEnv+"=hang")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		record(fmt.Sprintf("grandchild %d", cmd.Process.Pid))
		io.Copy(io.Discard, os.Stdin)
		return 0
	},
	// chatty writes four notifications of STDIO_TEST_SIZE bytes that nobody
	// reads, then exits when stdin ends.
	"chatty": func() int {
		n, _ := strconv.Atoi(os.Getenv(sizeEnv))
		for range 4 {
			if _, err := os.Stdout.WriteString(notification(n) + "\n"); err != nil {
				return 1
			}
		}
		io.Copy(io.Discard, os.Stdin)
		return 0
	},
	// hang waits to be killed; on Unix it ignores SIGTERM.
	"hang": func() int { hang(); return 0 },
	// malformed writes a line that is not JSON, then waits for stdin to end.
	"malformed": func() int {
		os.Stdout.WriteString("this is not json\n")
		io.Copy(io.Discard, os.Stdin)
		return 0
	},
	// polite records "ready" once it handles SIGTERM, and "stdin-eof" when stdin ends but keeps running; on
	// SIGTERM it records "sigterm" and exits 0.
	"polite": func() int { return observe(true) },
	// serve serves a go-sdk server with the tool "echo" on stdin/stdout.
	"serve": func() int {
		if err := newServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	},
	// stubborn records "stdin-eof" and "sigterm" as they come but exits on
	// neither: only SIGKILL ends it.
	"stubborn": func() int { return observe(false) },
}

func observe(exitOnTerm bool) int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	record("ready")
	go func() {
		io.Copy(io.Discard, os.Stdin)
		record("stdin-eof")
	}()
	for range sigs {
		record("sigterm")
		if exitOnTerm {
			return 0
		}
	}
	return 0
}

// record appends line to the file named by STDIO_TEST_RECORD.
func record(line string) {
	f, err := os.OpenFile(os.Getenv(recordEnv), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer f.Close()
	f.WriteString(line + "\n")
}

// readRecord returns the lines a child recorded.
func readRecord(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var lines []string
	for s := bufio.NewScanner(f); s.Scan(); {
		lines = append(lines, s.Text())
	}
	return lines
}

// notification is a JSON-RPC notification exactly n bytes long (n >= 64).
func notification(n int) string {
	const head, tail = `{"jsonrpc":"2.0","method":"notifications/test","params":{"pad":"`, `"}}`
	return head + strings.Repeat("p", n-len(head)-len(tail)) + tail
}

type echoIn struct {
	Text string `json:"text"`
}

func newServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "stdio-test", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "returns its text"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	return srv
}
