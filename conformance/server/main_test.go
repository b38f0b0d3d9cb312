package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
// process, on protocol revision version, which the server must settle on,
// with the client features the suite's client has.
func connect(t *testing.T, version string) *mcp.ClientSession {
	t.Helper()
	srv, err := newServer()
	if err != nil {
		t.Fatalf("newServer: %v", err)
	}
	c := testkit.NewClient(&mcp.ClientOptions{
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.ClientOptions.CreateMessageHandler, mcp.CreateMessageResult
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageResult
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "hi"}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			// The user fills in the fields asked for.
			answers := map[string]any{"username": "ada", "name": "Ada", "color": "green", "context": "tests", "ok": true}
			var schema struct{ Properties map[string]any }
			b, _ := json.Marshal(req.Params.RequestedSchema)
			json.Unmarshal(b, &schema)
			content := map[string]any{}
			for k := range schema.Properties {
				if v, ok := answers[k]; ok {
					content[k] = v
				}
			}
			return &mcp.ElicitResult{Action: "accept", Content: content}, nil
		},
		Capabilities: &mcp.ClientCapabilities{
			//lint:ignore SA1019 sampling and roots, deprecated by SEP-2577 and still supported: mcp.ClientCapabilities.Sampling, mcp.SamplingCapabilities, mcp.ClientCapabilities.RootsV2, mcp.RootCapabilities
			Sampling: &mcp.SamplingCapabilities{}, Elicitation: &mcp.ElicitationCapabilities{}, RootsV2: &mcp.RootCapabilities{},
		},
		// A 2025-11-25 client knows nothing of input-required results.
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: version < "2026-07-28"},
	})
	//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.Client.AddRoots, mcp.Root
	c.AddRoots(&mcp.Root{URI: "file:///test/root", Name: "Test Root"})
	return testkit.Connect(t, testkit.Transport(t, srv.Factory()), &testkit.ConnectOptions{Client: c, Version: version})
}

func TestCatalog(t *testing.T) {
	cs := connect(t, "2025-11-25")
	ctx := context.Background()
	caps := cs.InitializeResult().Capabilities
	//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerCapabilities.Logging
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
		"confirm_delete", "failing_job", "greet", "json_schema_2020_12_tool", "multi_input", "protocol_error_job", "slow_compute", "test_audio_content", "test_elicitation", "test_elicitation_sep1034_defaults",
		"test_elicitation_sep1330_enums", "test_embedded_resource", "test_error_handling", "test_image_content",
		"test_input_required_result_capabilities", "test_input_required_result_elicitation",
		"test_input_required_result_list_roots", "test_input_required_result_multi_round",
		"test_input_required_result_multiple_inputs", "test_input_required_result_request_state",
		"test_input_required_result_sampling", "test_input_required_result_tampered_state",
		"test_logging_tool", "test_missing_capability",
		"test_multiple_content_types", "test_reconnection", "test_sampling", "test_simple_text",
		"test_streaming_elicitation", "test_tool_with_logging", "test_tool_with_progress",
		"test_tool_with_task", "test_trigger_prompt_change", "test_trigger_tool_change", "test_x_mcp_header",
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
	want = []string{
		"test_input_required_result_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource",
		"test_prompt_with_image", "test_simple_prompt",
	}
	if diff := cmp.Diff(want, prompts); diff != "" {
		t.Errorf("prompts mismatch (-want +got):\n%s", diff)
	}
}

// TestTools calls the tools on both revisions: those that need the user
// are written once, and answer the same either way.
func TestTools(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, version)
			for _, tc := range []struct {
				name, args, want string
				isError          bool
			}{
				{"test_simple_text", `{}`, "This is a simple text response for testing.", false},
				{"test_error_handling", `{}`, "this tool intentionally returns an error for testing", true},
				{"test_sampling", `{"prompt":"hello"}`, "LLM response: hi", false},
				{"test_elicitation", `{"message":"name?"}`, "Elicitation result: action=accept, content=map[username:ada]", false},
				{"json_schema_2020_12_tool", `{"name":"x","email":"x@example.com"}`, `JSON Schema 2020-12 tool called with: {"name":"x","email":"x@example.com"}`, false},
				{"test_x_mcp_header", `{"region":"eu"}`, "region=eu", false},
				{"test_input_required_result_elicitation", `{}`, "Hello, Ada!", false},
				{"test_input_required_result_sampling", `{}`, "Sampling response: hi", false},
				{"test_input_required_result_list_roots", `{}`, "Client exposed 1 root(s): file:///test/root", false},
				{"test_input_required_result_request_state", `{}`, "state-ok: requestState received and confirmation accepted", false},
				{"test_input_required_result_multiple_inputs", `{}`, "hi Ada — 1 root(s) visible", false},
				{"test_input_required_result_multi_round", `{}`, "Multi-round complete: Ada likes green", false},
				{"test_input_required_result_capabilities", `{}`, "Capability-aware input requests fulfilled", false},
				{"test_missing_capability", `{}`, "sampled: hi", false},
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
			p, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "test_input_required_result_prompt"})
			if err != nil || p.Messages[0].Content.(*mcp.TextContent).Text != "Context: tests" {
				t.Errorf("GetPrompt = %+v, %v; want the elicited context", p, err)
			}
		})
	}
}

// TestTamperedState continues a call with an altered requestState, as the
// tampered-state scenario does: refused with invalid params.
func TestTamperedState(t *testing.T) {
	srv, err := newServer()
	if err != nil {
		t.Fatal(err)
	}
	c := testkit.NewClient(&mcp.ClientOptions{
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	cs := testkit.Connect(t, testkit.Transport(t, srv.Factory()), &testkit.ConnectOptions{Client: c})
	const tool = "test_input_required_result_tampered_state"
	first, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
	if err != nil || !first.NeedsInput() || first.RequestState == "" {
		t.Fatalf("CallTool = %+v, %v; want an input-required result with a requestState", first, err)
	}
	answer := mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}}
	for state, wantErr := range map[string]bool{first.RequestState: false, first.RequestState + "-TAMPERED": true} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}, InputResponses: answer, RequestState: state})
		var werr *jsonrpc.Error
		switch {
		case wantErr && (!errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams):
			t.Errorf("continuation with %q = %v, %v; want invalid params", state, res, err)
		case !wantErr && (err != nil || !strings.HasPrefix(res.Content[0].(*mcp.TextContent).Text, "state-ok")):
			t.Errorf("continuation with the state as issued = %+v, %v; want state-ok", res, err)
		}
	}
}

// TestMissingCapability calls test_missing_capability from a client that
// did not declare sampling, as server-stateless does: -32021 naming it.
func TestMissingCapability(t *testing.T) {
	srv, err := newServer()
	if err != nil {
		t.Fatal(err)
	}
	cs := testkit.Connect(t, testkit.Transport(t, srv.Factory()), nil)
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_missing_capability", Arguments: map[string]any{}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != mcp.CodeMissingRequiredClientCapabilities || string(werr.Data) != `{"requiredCapabilities":{"sampling":{}}}` {
		t.Errorf("CallTool = %v; want -32021 with requiredCapabilities {sampling:{}}", err)
	}
}

func TestResources(t *testing.T) {
	cs := connect(t, "2025-11-25")
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
// -http=127.0.0.1:0 (and -stateless) it logs the address it listens at,
// serves Streamable HTTP there to clients of both revisions, and exits
// cleanly on SIGTERM.
func TestHTTPContract(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			url, stop := startProgram(t, "-http=127.0.0.1:0", fmt.Sprintf("-stateless=%v", stateless))
			for _, version := range []string{"2025-11-25", "2026-07-28"} {
				cs := testkit.Connect(t, &mcp.StreamableClientTransport{Endpoint: url}, &testkit.ConnectOptions{Version: version})
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_simple_text", Arguments: map[string]any{}})
				if err != nil || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "simple text") {
					t.Errorf("%s: CallTool over HTTP = %v, %v", version, res, err)
				}
				if wantSession := version == "2025-11-25" && !stateless; (cs.ID() != "") != wantSession {
					t.Errorf("%s: session id %q; want one: %v", version, cs.ID(), wantSession)
				}
				cs.Close()
			}
			stop()
		})
	}
}

// startProgram runs the program with args, and returns the URL it serves
// at and a function that sends it SIGTERM and checks that it exits cleanly.
func startProgram(t *testing.T, args ...string) (url string, stop func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
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
	return url, func() {
		t.Helper()
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
}
