package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool that runs as a task (the tasks extension, SEP-2663): a client
// that declares the extension gets the task at once and polls tasks/get
// until the task completes with the tool's result. The client here is raw
// HTTP, to show the wire.
func ExampleServer_RegisterTaskTool() {
	srv, err := server.New("builds", "v1.0.0", &server.Options{Tasks: &server.TaskOptions{}})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close() // cancels the tasks still running, and waits for them
	release := make(chan struct{})
	err = srv.RegisterTaskTool(&mcp.Tool{Name: "build", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select { // a long job, here until the example lets it finish
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "build ok"}}}, nil
		}, nil)
	if err != nil {
		log.Fatal(err)
	}
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()

	post := func(method, name, params string) (out struct {
		ResultType, TaskID, Status string
		Result                     *mcp.CallToolResult
	}) {
		body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + `,"_meta":{` +
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
			`"io.modelcontextprotocol/clientInfo":{"name":"example","version":"v0"},` +
			`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method, "Mcp-Name": name} {
			req.Header.Set(k, v)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			log.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var reply struct{ Result json.RawMessage }
		if err := json.Unmarshal(b, &reply); err != nil {
			log.Fatal(err)
		}
		json.Unmarshal(reply.Result, &out)
		return out
	}

	task := post("tools/call", "build", `"name":"build","arguments":{}`)
	fmt.Println(task.ResultType, task.Status)
	get := `"taskId":"` + task.TaskID + `"`
	fmt.Println(post("tasks/get", task.TaskID, get).Status)
	close(release)
	for {
		t := post("tasks/get", task.TaskID, get)
		if t.Status == "completed" {
			fmt.Println(t.Status, t.Result.Content[0].(*mcp.TextContent).Text)
			break
		}
	}
	// Output:
	// task working
	// working
	// completed build ok
}
