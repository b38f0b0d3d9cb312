package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMain runs the program itself when the test binary is re-run with
// RUN_CONFORMANCE_SERVER set, so that TestHTTPContract can test the argv
// contract that scripts/conformance relies on.
func TestMain(m *testing.M) {
	if os.Getenv("RUN_CONFORMANCE_SERVER") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(leakcheck.Main(m))
}

// connect returns a client session to a fresh conformance server, in
// process, with the client features the suite's client has.
func connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	srv, err := newServer()
	if err != nil {
		t.Fatalf("newServer: %v", err)
	}
	tr, err := srv.Factory().Transport()
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "hi"}}, nil
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"username": "ada"}}, nil
		},
	})
	cs, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestCatalog(t *testing.T) {
	cs := connect(t)
	ctx := context.Background()
	caps := cs.InitializeResult().Capabilities
	if caps.Completions == nil || caps.Resources == nil || !caps.Resources.Subscribe || caps.Logging == nil {
		t.Errorf("capabilities = %+v; want completions, resource subscriptions and logging", caps)
	}

	var tools []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Description == "" || tool.InputSchema == nil {
			t.Errorf("tool %s has no description or no input schema", tool.Name)
		}
		tools = append(tools, tool.Name)
	}
	want := []string{
		"json_schema_2020_12_tool", "test_audio_content", "test_elicitation", "test_elicitation_sep1034_defaults",
		"test_elicitation_sep1330_enums", "test_embedded_resource", "test_error_handling", "test_image_content",
		"test_multiple_content_types", "test_reconnection", "test_sampling", "test_simple_text",
		"test_tool_with_logging", "test_tool_with_progress",
	}
	if diff := cmp.Diff(want, tools); diff != "" {
		t.Errorf("tools mismatch (-want +got):\n%s", diff)
	}

	var prompts []string
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		prompts = append(prompts, p.Name)
	}
	want = []string{"test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image", "test_simple_prompt"}
	if diff := cmp.Diff(want, prompts); diff != "" {
		t.Errorf("prompts mismatch (-want +got):\n%s", diff)
	}
}

func TestTools(t *testing.T) {
	cs := connect(t)
	for _, tc := range []struct {
		name, args, want string
		isError          bool
	}{
		{"test_simple_text", `{}`, "This is a simple text response for testing.", false},
		{"test_error_handling", `{}`, "this tool intentionally returns an error for testing", true},
		{"test_sampling", `{"prompt":"hello"}`, "LLM response: hi", false},
		{"test_elicitation", `{"message":"name?"}`, "Elicitation result: action=accept, content=map[username:ada]", false},
		{"json_schema_2020_12_tool", `{"name":"x"}`, `JSON Schema 2020-12 tool called with: {"name":"x"}`, false},
		{"test_reconnection", `{}`, "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.", false},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.name, Arguments: json.RawMessage(tc.args)})
		if err != nil {
			t.Errorf("CallTool(%s): %v", tc.name, err)
			continue
		}
		got := res.Content[0].(*mcp.TextContent).Text
		if got != tc.want || res.IsError != tc.isError {
			t.Errorf("CallTool(%s) = %q (isError %v), want %q (isError %v)", tc.name, got, res.IsError, tc.want, tc.isError)
		}
	}
}

func TestResources(t *testing.T) {
	cs := connect(t)
	ctx := context.Background()
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://template/42/data"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Contents[0].Text, `{"id": "42", "templateTest": true, "data": "Data for ID: 42"}`; got != want {
		t.Errorf("template resource = %q, want %q", got, want)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://watched-resource"}); err != nil {
		t.Errorf("Subscribe: %v", err)
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "test://watched-resource"}); err != nil {
		t.Errorf("Unsubscribe: %v", err)
	}
	comp, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
		Argument: mcp.CompleteParamsArgument{Name: "arg1", Value: "t"},
	})
	if err != nil || comp.Completion.Values == nil {
		t.Errorf("Complete = %+v, %v; want an empty list of values", comp, err)
	}
}

// TestHTTPContract runs the program as scripts/conformance does: with
// -http=127.0.0.1:0 it logs the address it listens at, serves Streamable
// HTTP there, and exits cleanly on SIGTERM.
func TestHTTPContract(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-http=127.0.0.1:0")
	cmd.Env = append(os.Environ(), "RUN_CONFORMANCE_SERVER=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	lines := bufio.NewScanner(stderr)
	addr := regexp.MustCompile(`listening at (http://127\.0\.0\.1:[0-9]+)`)
	var url string
	for url == "" && lines.Scan() {
		if m := addr.FindStringSubmatch(lines.Text()); m != nil {
			url = m[1] + "/mcp"
		}
	}
	go func() {
		for lines.Scan() { // drain the rest, so that the program never blocks on stderr
		}
		done <- cmd.Wait()
	}()
	if url == "" {
		t.Fatal("the program did not log the address it listens at")
	}

	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("Connect(%s): %v", url, err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_simple_text", Arguments: map[string]any{}})
	if err != nil || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "simple text") {
		t.Errorf("CallTool over HTTP = %v, %v", res, err)
	}
	if cs.ID() == "" {
		t.Error("the HTTP session has no id: the server is not stateful")
	}
	cs.Close()

	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the program did not exit within 10s of SIGTERM")
	}
	done <- nil // for the cleanup
}
