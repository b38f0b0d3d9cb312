package hostile_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// answerText is what "echo" answers in a faulty stdio child, so that the
// child's writer can find the answer among its output.
const answerText = "hostile-answer"

// runFaulty is the "faulty" stdio peer: the go-sdk server over stdin and
// stdout, whose "echo" misbehaves as HOSTILE_FAULT says, recording each
// execution ("exec") and each process it leaves ("escaped").
func runFaulty() int {
	fault := os.Getenv(faultEnv)
	out := &faultWriter{w: os.Stdout, fault: fault}
	if fault == "ignore-term" {
		signal.Ignore(syscall.SIGTERM)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "faulty", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		record("exec", "1")
		text := answerText
		switch fault {
		case "crash":
			os.Stderr.WriteString("crashing in the middle of echo\n")
			os.Exit(3)
		case "hang":
			time.Sleep(time.Hour)
		case "malformed":
			out.raw("this is not json\n")
		case "oversize":
			text = strings.Repeat("x", maxFrame)
		case "setsid":
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), childEnv+"=sleeper")
			ownSession(cmd)
			if err := cmd.Start(); err == nil {
				record("escaped", fmt.Sprint(cmd.Process.Pid))
			}
		case "stderr-flood":
			chunk := bytes.Repeat([]byte("e"), 64<<10)
			for range 128 { // 8 MiB
				os.Stderr.Write(chunk)
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	err := srv.Run(context.Background(), &mcp.IOTransport{Reader: os.Stdin, Writer: out})
	if fault == "ignore-term" {
		time.Sleep(time.Hour) // ignores the end of stdin too
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// faultWriter is the child's stdout: it rewrites the answer to "echo" as
// the fault says ("other-id": for another id; "rpc-error": a JSON-RPC
// error), and lets the tool write raw lines between messages.
type faultWriter struct {
	mu    sync.Mutex // guards w
	w     io.Writer
	fault string
}

var idField = regexp.MustCompile(`"id":("[^"]*"|[0-9]+)`)

func (f *faultWriter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if bytes.Contains(p, []byte(answerText)) {
		switch f.fault {
		case "other-id":
			q := idField.ReplaceAll(p, []byte(`"id":"not-yours"`))
			_, err := f.w.Write(q)
			return len(p), err
		case "rpc-error":
			id := idField.Find(p)
			_, err := fmt.Fprintf(f.w, "{\"jsonrpc\":\"2.0\",%s,\"error\":{\"code\":-32603,\"message\":\"boom\"}}\n", id)
			return len(p), err
		}
	}
	return f.w.Write(p)
}

func (f *faultWriter) raw(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	io.WriteString(f.w, s)
}

func (f *faultWriter) Close() error { return nil }
