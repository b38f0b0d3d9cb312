package fakeserver

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// richClient is a client that answers every server-initiated request
// deterministically and collects the notifications it gets.
type richClient struct {
	mu       sync.Mutex // guards logs and progress
	logs     []string
	progress []string

	notified    chan string // one value per notification, for waiting
	toolChanged chan struct{}
}

func newRichClient() *richClient {
	return &richClient{notified: make(chan string, 256), toolChanged: make(chan struct{}, 16)}
}

func (rc *richClient) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.ClientOptions.CreateMessageHandler, mcp.CreateMessageResult
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			prompt := req.Params.Messages[0].Content.(*mcp.TextContent).Text
			//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageResult
			return &mcp.CreateMessageResult{Model: "fake-model", Role: "assistant", Content: &mcp.TextContent{Text: "echo " + prompt}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "yes to " + req.Params.Message}}, nil
		},
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ClientOptions.LoggingMessageHandler
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			rc.mu.Lock()
			rc.logs = append(rc.logs, fmt.Sprintf("%s %s %v", req.Params.Level, req.Params.Logger, req.Params.Data))
			rc.mu.Unlock()
			rc.notified <- "log"
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			p := req.Params
			rc.mu.Lock()
			rc.progress = append(rc.progress, fmt.Sprintf("%v %v/%v %s", p.ProgressToken, p.Progress, p.Total, p.Message))
			rc.mu.Unlock()
			rc.notified <- "progress"
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { rc.toolChanged <- struct{}{} },
	}
}

// await waits for n notifications, failing t at the test's deadline.
func (rc *richClient) await(t *testing.T, n int, what string) {
	t.Helper()
	for i := range n {
		testkit.Await(t, rc.notified, fmt.Sprintf("%s notification %d of %d", what, i+1, n))
	}
}

func connectRich(t *testing.T, fs *Server, rc *richClient) *mcp.ClientSession {
	t.Helper()
	return connectRichAt(t, fs, rc, stable.ProtocolVersion)
}

// connectRichAt connects rc's client in-process at the given revision.
func connectRichAt(t *testing.T, fs *Server, rc *richClient, version string) *mcp.ClientSession {
	t.Helper()
	c := testkit.NewClient(rc.options())
	//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.Client.AddRoots, mcp.Root
	c.AddRoots(&mcp.Root{URI: "file:///work/b", Name: "b"}, &mcp.Root{URI: "file:///work/a", Name: "a"})
	return testkit.Connect(t, testkit.Transport(t, fs.Factory()), &testkit.ConnectOptions{Client: c, Version: version})
}

// The tools that need the client are written once, with input-required
// results: on 2026-07-28 the client continues each call with a second
// request; on 2025-11-25 the go-sdk asks the client during the call. Either
// way the answer is the same, and each call is two rounds and one
// completed execution.
func TestRichInputRequiredOnBothRevisions(t *testing.T) {
	leakcheck.Check(t)
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			fs := newFake(t, &Options{Catalog: CatalogRich})
			cs := connectRichAt(t, fs, newRichClient(), version)
			tests := []struct{ tool, args, want string }{
				{"sample", `{"prompt":"hello"}`, "sampled fake-model: echo hello"},
				{"elicit", `{"question":"ok?"}`, `elicited accept: {"answer":"yes to ok?"}`},
				{"roots", `{}`, "2 roots\nfile:///work/a a\nfile:///work/b b"},
			}
			for _, tt := range tests {
				if diff := cmp.Diff(outcome{Text: tt.want}, call(t, cs, tt.tool, tt.args)); diff != "" {
					t.Errorf("%s mismatch (-want +got):\n%s", tt.tool, diff)
				}
			}
			want := Counts{
				Executions: map[string]int{"sample": 1, "elicit": 1, "roots": 1},
				Rounds:     map[string]int{"sample": 2, "elicit": 2, "roots": 2},
			}
			if diff := cmp.Diff(want, fs.Counts()); diff != "" {
				t.Errorf("Counts mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRichCatalog(t *testing.T) {
	leakcheck.Check(t)
	fs := newFake(t, &Options{Catalog: CatalogRich})
	rc := newRichClient()
	cs := connectRich(t, fs, rc)
	ctx := context.Background()

	tests := []struct{ tool, args, want string }{
		{"lookup", `{"query":"x"}`, "docs: x"},
		{"sample", `{"prompt":"hello"}`, "sampled fake-model: echo hello"},
		{"elicit", `{"question":"ok?"}`, `elicited accept: {"answer":"yes to ok?"}`},
		{"roots", `{}`, "2 roots\nfile:///work/a a\nfile:///work/b b"},
		{"item-07", `{}`, "item-07"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(outcome{Text: tt.want}, call(t, cs, tt.tool, tt.args)); diff != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", tt.tool, diff)
		}
	}

	// Logging: nothing is sent until the client sets a level.
	//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ClientSession.SetLoggingLevel, mcp.SetLoggingLevelParams
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(outcome{Text: "logged 6 messages"}, call(t, cs, "log", `{"count":6}`)); diff != "" {
		t.Errorf("log mismatch (-want +got):\n%s", diff)
	}
	rc.await(t, 6, "log")

	// Progress, for the call's token.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{"steps": 2}, Meta: mcp.Meta{"progressToken": "tok"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "progress: 2 steps" {
		t.Errorf("progress = %q", got)
	}
	rc.await(t, 2, "progress")
	rc.mu.Lock()
	wantLogs := []string{
		"debug fakeserver message 1 of 6", "info fakeserver message 2 of 6", "notice fakeserver message 3 of 6",
		"warning fakeserver message 4 of 6", "error fakeserver message 5 of 6", "debug fakeserver message 6 of 6",
	}
	if diff := cmp.Diff(wantLogs, rc.logs); diff != "" {
		t.Errorf("log messages mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"tok 1/2 step 1 of 2", "tok 2/2 step 2 of 2"}, rc.progress); diff != "" {
		t.Errorf("progress notifications mismatch (-want +got):\n%s", diff)
	}
	rc.mu.Unlock()
}

func TestRichPagination(t *testing.T) {
	leakcheck.Check(t)
	cs := connect(t, newFake(t, &Options{Catalog: CatalogRich}), nil)
	ctx := context.Background()
	var pages []int
	var names []string
	cursor := ""
	for {
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, len(res.Tools))
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if diff := cmp.Diff([]int{10, 10, 10, 2}, pages); diff != "" {
		t.Errorf("page sizes mismatch (-want +got):\n%s", diff)
	}
	if !slices.IsSorted(names) || len(names) != 32 || !slices.Contains(names, "item-24") {
		t.Errorf("tools = %v, want 32 sorted names", names)
	}
}

func TestRichListChanged(t *testing.T) {
	leakcheck.Check(t)
	fs := newFake(t, &Options{Catalog: CatalogRich})
	rc := newRichClient()
	cs := connectRich(t, fs, rc)
	ctx := context.Background()
	has := func() bool {
		for tool, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			if tool.Name == ephemeralTool {
				return true
			}
		}
		return false
	}
	for i, want := range []string{"added ephemeral", "removed ephemeral", "added ephemeral"} {
		if diff := cmp.Diff(outcome{Text: want}, call(t, cs, "toggle", `{}`)); diff != "" {
			t.Errorf("toggle %d mismatch (-want +got):\n%s", i, diff)
		}
		select {
		case <-rc.toolChanged:
		case <-time.After(5 * time.Second):
			t.Fatalf("toggle %d: no tools/list_changed notification", i)
		}
		if got, want := has(), i%2 == 0; got != want {
			t.Errorf("after toggle %d: ephemeral listed = %v, want %v", i, got, want)
		}
	}
	if diff := cmp.Diff(outcome{Text: ephemeralTool}, call(t, cs, ephemeralTool, `{}`)); diff != "" {
		t.Errorf("ephemeral mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"toggle": 3, "ephemeral": 1}, fs.Counts().Executions); diff != "" {
		t.Errorf("Counts mismatch (-want +got):\n%s", diff)
	}
}
