package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioTasks serves s over ServeStdio on pipes; send writes a 2026-07-28
// request declaring the tasks extension and returns the reply's result.
type stdioTasks struct {
	t   *testing.T
	in  *io.PipeWriter
	out *bufio.Scanner
	n   int
}

func newStdioTasks(t *testing.T, s *Server) *stdioTasks {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, inR, outW); outW.Close() }()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		<-done
		s.Close()
	})
	go func() { <-ctx.Done(); outR.Close() }() // a test past its deadline stops reading
	return &stdioTasks{t: t, in: inW, out: bufio.NewScanner(outR)}
}

func (c *stdioTasks) send(method, params string) (json.RawMessage, *rpcReply) {
	c.t.Helper()
	c.n++
	fmt.Fprintf(c.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s,%s}}`+"\n", c.n, method, params, taskMeta)
	if !c.out.Scan() {
		c.t.Fatalf("%s: no reply: %v", method, c.out.Err())
	}
	r := parseReply(c.t, c.out.Text())
	return r.Result, &r
}

func TestTaskOverStdio(t *testing.T) {
	s := newServer(t, "tasks", "v0", &Options{Tasks: &TaskOptions{}})
	runs := 0
	err := s.RegisterTaskTool(&mcp.Tool{Name: "job", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs++
		return textResult("stdio done"), nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := newStdioTasks(t, s)
	res, r := c.send("tools/call", `"name":"job","arguments":{}`)
	var created struct {
		ResultType string          `json:"resultType"`
		TaskID     string          `json:"taskId"`
		Meta       json.RawMessage `json:"_meta"`
	}
	if r.Error != nil || json.Unmarshal(res, &created) != nil || created.ResultType != "task" || created.TaskID == "" || created.Meta != nil {
		t.Fatalf("tools/call over stdio: %s %+v, want the task alone", res, r.Error)
	}
	for {
		res, r = c.send("tasks/get", fmt.Sprintf(`"taskId":%q`, created.TaskID))
		var d detailed
		if r.Error != nil || json.Unmarshal(res, &d) != nil {
			t.Fatalf("tasks/get over stdio: %s %+v", res, r.Error)
		}
		if d.Status == TaskCompleted {
			if d.Result == nil || d.Result.Content[0].Text != "stdio done" {
				t.Errorf("result: %+v", d.Result)
			}
			break
		}
	}
	s.Close()
	if runs != 1 {
		t.Errorf("%d executions, want 1", runs)
	}
	res, r = c.send("tasks/cancel", fmt.Sprintf(`"taskId":%q`, created.TaskID))
	if r.Error != nil || string(res) != `{"resultType":"complete"}` {
		t.Errorf("tasks/cancel over stdio: %s %+v", res, r.Error)
	}
}
